/**
 * A process-wide line-offset index for read_file: while a scan passes through a file it records
 * checkpoints (line number → byte offset of that line's start), so the next call for a deep window
 * starts from the nearest checkpoint at or before it instead of byte 0. The file's total line count
 * is kept beside them once a scan has counted to the end.
 *
 * Validity: an entry belongs to one (real path, size, mtime, ctime, inode); any other stat of the
 * path drops it, so an append, a truncation, a rewrite or a rename over the file is never served
 * from stale checkpoints. The reader also checks that the byte before a checkpoint is a newline.
 *
 * Memory: at most READ_INDEX_MAX_FILES entries (least recently used forgotten first), each at most
 * READ_INDEX_MAX_CHECKPOINTS checkpoints of two numbers (16 bytes): with the budget table's values,
 * 32 × 4096 × 16 B = 2 MiB at worst. Only files with at least one checkpoint past line 1 get an
 * entry, so reading many small source files does not push a big log's index out.
 */
import type { Budget } from './budget';

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
}

interface State {
  entries: Map<string, Entry>;
  /** bytes read by read_file scans, for tests that check the index saved reading */
  bytesRead: number;
}

const KEY = Symbol.for('clamp.readIndex');

/** Shared through globalThis so a Next.js route bundle and the launcher see one index. */
function state(): State {
  const g = globalThis as unknown as Record<symbol, State | undefined>;
  g[KEY] ??= { entries: new Map(), bytesRead: 0 };
  return g[KEY];
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
 * Never throws; a file without an entry gets one lazily, at its first checkpoint past line 1.
 */
export class LineIndex {
  private entry: Entry | undefined;

  constructor(
    private readonly key: FileKey,
    private readonly budget: Budget,
  ) {
    const s = state();
    const e = s.entries.get(key.abs);
    if (e && sameFile(e, key)) {
      s.entries.delete(key.abs); // re-insert: most recently used last
      s.entries.set(key.abs, e);
      thin(e, budget.READ_INDEX_MAX_CHECKPOINTS);
      this.entry = e;
    } else if (e) {
      s.entries.delete(key.abs);
    }
  }

  /** The total line count, when a scan of this same file version counted to its end. */
  get total(): number | null {
    return this.entry?.total ?? null;
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
    if (this.entry) this.entry.total = lines;
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

/** The indexed files (least recently used first), their checkpoints, and the bytes read_file scans have read since the process started. */
export function readIndexStats(): { paths: string[]; checkpoints: number; maxCheckpointsPerFile: number; bytesRead: number } {
  const s = state();
  let checkpoints = 0;
  let most = 0;
  for (const e of s.entries.values()) {
    checkpoints += e.lines.length;
    most = Math.max(most, e.lines.length);
  }
  return { paths: [...s.entries.keys()], checkpoints, maxCheckpointsPerFile: most, bytesRead: s.bytesRead };
}
