/**
 * A process-wide line-offset index for read_file: while a scan passes through a file it records
 * checkpoints (line number → byte offset of that line's start), so the next call for a deep window
 * starts from the nearest checkpoint at or before it instead of byte 0. The file's total line count
 * is kept beside them once a scan has counted to the end.
 *
 * Validity: an entry belongs to one (real path, size, mtime, ctime, inode). A stat that differs drops
 * it, except a pure append (a growing log, the common case): same inode, a larger size, and the
 * entry's fingerprint (a hash of the file's first and last FINGERPRINT_BYTES and of the bytes around
 * the last checkpoint, taken when the version was sealed with the stat unchanged) still matches the
 * bytes on disk. Then the checkpoints are kept and the total is extended by counting only the new
 * bytes. A truncation, a rename over the file or a rewrite of any fingerprinted byte drops the entry;
 * the reader also checks that the byte before the checkpoint it starts from is a newline.
 *
 * Memory: at most READ_INDEX_MAX_FILES entries (least recently used forgotten first), each at most
 * READ_INDEX_MAX_CHECKPOINTS checkpoints of two numbers (16 bytes) plus a fingerprint of a few dozen
 * bytes: with the budget table's values, 32 × 4096 × 16 B = 2 MiB at worst. Only files with at least
 * one checkpoint past line 1 get an entry, so reading many small source files does not push a big
 * log's index out.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { Budget } from '../../contract/budget';

/** What identifies one version of a file; any difference means the file changed. */
export interface FileKey {
  abs: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** checkpoint k: line lines[k] starts at byte bytes[k]; lines ascending, [0] is (1, 0) */
  lines: number[];
  bytes: number[];
  strideLines: number;
  strideBytes: number;
  /** total lines, once a scan counted to the end of this version of the file */
  total: number | null;
  /** hash of some bytes before `fp.size`, taken while the stat still matched; null until sealed */
  fp: Fingerprint | null;
}

/** What an entry's file held at a few places when its size was `size`; an append leaves them alone. */
interface Fingerprint {
  size: number;
  /** [start, end) byte ranges, the tail last */
  regions: [number, number][];
  digest: string;
}

/** Bytes hashed at each fingerprint region. */
const FINGERPRINT_BYTES = 4096;
/** Most bytes read in one call while counting the newlines of an append. */
const COUNT_CHUNK_BYTES = 1024 * 1024;
const NL = 0x0a;

interface State {
  entries: Map<string, Entry>;
  /** bytes read by read_file scans, for tests that check the index saved reading */
  bytesRead: number;
  /** bytes read to take or check fingerprints (a few KiB per file version) */
  fingerprintBytesRead: number;
}

const KEY = Symbol.for('clamp.readIndex');

/** Shared through globalThis so a Next.js route bundle and the launcher see one index. */
function state(): State {
  const g = globalThis as unknown as Record<symbol, State | undefined>;
  g[KEY] ??= { entries: new Map(), bytesRead: 0, fingerprintBytesRead: 0 };
  return g[KEY];
}

/** Fingerprint ranges of a file of `size` bytes: its head, around its last checkpoint, its tail (last). */
function regionsFor(size: number, checkpoint: number): [number, number][] {
  const half = FINGERPRINT_BYTES / 2;
  const regions: [number, number][] = [[0, Math.min(size, FINGERPRINT_BYTES)]];
  if (checkpoint > 0) regions.push([Math.max(0, checkpoint - half), Math.min(size, checkpoint + half)]);
  regions.push([Math.max(0, size - FINGERPRINT_BYTES), size]);
  return regions;
}

/** Read [start, end) whole (counted in fingerprintBytesRead); null when the file is shorter. */
async function readRange(fh: FileHandle, start: number, end: number): Promise<Buffer | null> {
  const buf = Buffer.alloc(end - start);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
    if (bytesRead === 0) return null;
    state().fingerprintBytesRead += bytesRead;
    got += bytesRead;
  }
  return buf;
}

/** Hash the ranges; also the last byte of the last one (-1 when empty). Null when the file is shorter. */
async function digestRegions(fh: FileHandle, regions: [number, number][]): Promise<{ digest: string; lastByte: number } | null> {
  const hash = createHash('sha256');
  let lastByte = -1;
  for (const [start, end] of regions) {
    const buf = await readRange(fh, start, end);
    if (!buf) return null;
    hash.update(`${start}:${end};`).update(buf);
    if (buf.length > 0) lastByte = buf[buf.length - 1];
  }
  return { digest: hash.digest('base64'), lastByte };
}

/** Newlines in [start, end) and the byte before `end`; null when the file is shorter. */
async function countNewlines(fh: FileHandle, start: number, end: number, signal: AbortSignal): Promise<{ newlines: number; lastByte: number } | null> {
  const buf = Buffer.allocUnsafe(Math.min(COUNT_CHUNK_BYTES, end - start));
  let newlines = 0;
  let lastByte = -1;
  for (let pos = start; pos < end; ) {
    if (signal.aborted) throw new Error('aborted');
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
    if (bytesRead === 0) return null;
    countBytesRead(bytesRead);
    const chunk = buf.subarray(0, bytesRead);
    for (let i = chunk.indexOf(NL); i !== -1; i = chunk.indexOf(NL, i + 1)) newlines++;
    lastByte = chunk[bytesRead - 1];
    pos += bytesRead;
  }
  return { newlines, lastByte };
}

const sameFile = (e: Entry, k: FileKey) => e.size === k.size && e.mtimeMs === k.mtimeMs && e.ctimeMs === k.ctimeMs && e.ino === k.ino;

/** Drop every other checkpoint (keeping line 1) until the entry fits; the strides double each time. */
function thin(e: Entry, max: number): void {
  while (e.lines.length > Math.max(2, max)) {
    e.lines = e.lines.filter((_, i) => i % 2 === 0);
    e.bytes = e.bytes.filter((_, i) => i % 2 === 0);
    e.strideLines *= 2;
    e.strideBytes *= 2;
  }
}

/**
 * The index of one file version for one scan: where to start, and a recorder of new checkpoints.
 * A file without an entry gets one lazily, at its first checkpoint past line 1.
 */
export class LineIndex {
  private entry: Entry | undefined;

  private constructor(
    private readonly key: FileKey,
    private readonly budget: Budget,
  ) {}

  /**
   * The index for the file version `key` (stat of the file `fh` reads): its entry when the stat is
   * unchanged or the file was only appended to since (checked against the fingerprint, the new
   * bytes counted when at most READ_INDEX_STRIDE_BYTES); otherwise none, the old entry dropped.
   * Throws only what reading `fh` throws, or 'aborted'.
   */
  static async open(fh: FileHandle, key: FileKey, budget: Budget, signal: AbortSignal): Promise<LineIndex> {
    const index = new LineIndex(key, budget);
    const s = state();
    const e = s.entries.get(key.abs);
    if (!e) return index;
    if (!sameFile(e, key) && !(await index.followAppend(fh, e, signal))) {
      if (s.entries.get(key.abs) === e) s.entries.delete(key.abs);
      return index;
    }
    s.entries.delete(key.abs); // re-insert: most recently used last
    s.entries.set(key.abs, e);
    thin(e, budget.READ_INDEX_MAX_CHECKPOINTS);
    index.entry = e;
    return index;
  }

  /**
   * True when `e` (an older version of this file) is a prefix of it, judged by the fingerprint;
   * then `e` now describes this version: same checkpoints, the total extended or forgotten.
   */
  private async followAppend(fh: FileHandle, e: Entry, signal: AbortSignal): Promise<boolean> {
    const { size, mtimeMs, ctimeMs, ino } = this.key;
    const fp = e.fp;
    if (ino !== e.ino || size <= e.size || !fp || fp.size !== e.size) return false;
    const was = { abs: this.key.abs, size: e.size, mtimeMs: e.mtimeMs, ctimeMs: e.ctimeMs, ino: e.ino };
    const now = await digestRegions(fh, fp.regions);
    if (!now || now.digest !== fp.digest) return false;
    let total: number | null = null;
    // lines = newlines + (a last line without one); the old file had a newline (a checkpoint past line 1)
    if (e.total !== null && e.lines.length > 1 && size - e.size <= this.budget.READ_INDEX_STRIDE_BYTES) {
      const added = await countNewlines(fh, e.size, size, signal);
      if (added) total = e.total - (now.lastByte === NL ? 0 : 1) + added.newlines + (added.lastByte === NL ? 0 : 1);
    }
    // another call may have moved the entry on while this one read
    if (state().entries.get(this.key.abs) !== e) return false;
    if (!sameFile(e, was)) return sameFile(e, this.key);
    Object.assign(e, { size, mtimeMs, ctimeMs, ino, total });
    return true;
  }

  /**
   * After a scan: fingerprint this version (once) so a later append can be told from a rewrite.
   * Taken only when a stat of `fh` afterwards still matches the key; a file that changed during the
   * call loses its entry, since its checkpoints may mix two versions.
   */
  async seal(fh: FileHandle): Promise<void> {
    const e = this.entry;
    if (!e || state().entries.get(this.key.abs) !== e || !sameFile(e, this.key) || e.fp?.size === e.size) return;
    const regions = regionsFor(e.size, e.bytes[e.bytes.length - 1]);
    const got = await digestRegions(fh, regions);
    const st = await fh.stat();
    if (!got || !sameFile(e, { abs: this.key.abs, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino })) {
      this.drop();
      return;
    }
    e.fp = { size: e.size, regions, digest: got.digest };
  }

  /** The total line count, when a scan of this same file version counted to its end. */
  get total(): number | null {
    const e = this.entry;
    return e && e.size === this.key.size ? e.total : null;
  }

  /** The checkpoint with the largest line <= `line`: a scan may start there. */
  startFor(line: number): { line: number; byte: number } {
    const e = this.entry;
    if (!e) return { line: 1, byte: 0 };
    let lo = 0;
    let hi = e.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (e.lines[mid] <= line) lo = mid;
      else hi = mid - 1;
    }
    return { line: e.lines[lo], byte: e.bytes[lo] };
  }

  /** The last checkpoint's byte offset: past it (by the byte stride) a scan should record the next line start. */
  get frontierByte(): number {
    return this.entry ? this.entry.bytes[this.entry.bytes.length - 1] : 0;
  }

  get strideBytes(): number {
    return this.entry?.strideBytes ?? this.budget.READ_INDEX_STRIDE_BYTES;
  }

  /** The next line at whose start a scan should call record(). */
  nextLine(): number {
    const e = this.entry;
    return e ? e.lines[e.lines.length - 1] + e.strideLines : 1 + this.budget.READ_INDEX_STRIDE_LINES;
  }

  /** Note that `line` starts at byte `byte` (kept when past the last checkpoint); returns the next line to record. */
  record(line: number, byte: number): number {
    const e = this.entry ?? this.create();
    if (line > e.lines[e.lines.length - 1]) {
      e.lines.push(line);
      e.bytes.push(byte);
      thin(e, this.budget.READ_INDEX_MAX_CHECKPOINTS);
    }
    return this.nextLine();
  }

  /** Remember the exact total line count of this file version. */
  setTotal(lines: number): void {
    if (this.entry && this.entry.size === this.key.size) this.entry.total = lines;
  }

  /** Forget this file's entry (its checkpoints did not match the bytes on disk). */
  drop(): void {
    const s = state();
    if (this.entry && s.entries.get(this.key.abs) === this.entry) s.entries.delete(this.key.abs);
    this.entry = undefined;
  }

  private create(): Entry {
    const { abs, size, mtimeMs, ctimeMs, ino } = this.key;
    const e: Entry = {
      size, mtimeMs, ctimeMs, ino,
      lines: [1], bytes: [0],
      strideLines: this.budget.READ_INDEX_STRIDE_LINES,
      strideBytes: this.budget.READ_INDEX_STRIDE_BYTES,
      total: null,
      fp: null,
    };
    const s = state();
    s.entries.set(abs, e);
    for (const old of s.entries.keys()) {
      if (s.entries.size <= Math.max(1, this.budget.READ_INDEX_MAX_FILES)) break;
      s.entries.delete(old); // Map order is insertion order: the least recently used come first
    }
    this.entry = e;
    return e;
  }
}

/** Count bytes a read_file scan read from disk (a test hook: see readIndexStats). */
export function countBytesRead(n: number): void {
  state().bytesRead += n;
}

/** Forget every checkpoint and total (tests compare reads with and without the index). */
export function clearReadIndex(): void {
  state().entries.clear();
}

/** The indexed files (least recently used first), their checkpoints, and the bytes read_file scans (and fingerprints) have read since the process started. */
export function readIndexStats(): { paths: string[]; checkpoints: number; maxCheckpointsPerFile: number; bytesRead: number; fingerprintBytesRead: number } {
  const s = state();
  let checkpoints = 0;
  let most = 0;
  for (const e of s.entries.values()) {
    checkpoints += e.lines.length;
    most = Math.max(most, e.lines.length);
  }
  return { paths: [...s.entries.keys()], checkpoints, maxCheckpointsPerFile: most, bytesRead: s.bytesRead, fingerprintBytesRead: s.fingerprintBytesRead };
}
