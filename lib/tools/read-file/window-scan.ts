/**
 * The one streamed pass read_file makes over a file: skip to the window, keep its lines (each cut to
 * READ_MAX_LINE_BYTES) within READ_WINDOW_MAX_BYTES of numbered text, then count the rest, bounded by
 * READ_COUNT_MAX_BYTES. Reads stay on the CHUNK_BYTES grid a scan from byte 0 reads, whichever
 * checkpoint of the line index they start from, so every answer is the one a scan from the start gives.
 */
import type fs from 'node:fs';
import type { Budget } from '../../contract/budget';
import { formatCount, utf8End } from '../../contract/text';
import { countBytesRead, type LineIndex } from './line-index';

/** Bytes read per system call; the only buffer whose size does not depend on the window. */
const CHUNK_BYTES = 1024 * 1024;
const NL = 0x0a;
const CR = 0x0d;
const utf8 = new TextDecoder('utf-8'); // lossy: invalid bytes become U+FFFD

export interface Scan {
  /** display text of each window line (number prefix not yet added), and whether it was cut */
  texts: { text: string; cut: boolean }[];
  /** what ended the window */
  end: 'limit' | 'bytes' | 'eof';
  /** lines in the file (a lower bound when !complete) */
  lines: number;
  /** true when the scan reached the end of the file */
  complete: boolean;
  /** bytes scanned from the start of the file */
  scanned: number;
}

/** Decimal digits of a line number (at least one). */
export const digits = (n: number) => String(Math.max(1, n)).length;

/** The index's checkpoint for `offset`, or the file's start when that checkpoint no longer follows a newline. */
async function checkedStart(fh: fs.promises.FileHandle, index: LineIndex, offset: number): Promise<{ line: number; byte: number }> {
  const from = index.startFor(offset);
  if (from.byte === 0) return from;
  // a checkpoint follows a newline; if it does not, the file changed under an unchanged stat
  const one = Buffer.alloc(1);
  const { bytesRead } = await fh.read(one, 0, 1, from.byte - 1);
  countBytesRead(bytesRead);
  if (bytesRead === 1 && one[0] === NL) return from;
  index.drop();
  return { line: 1, byte: 0 };
}

/** The state of one pass: the window's lines so far, the line being read and where the next checkpoint falls. */
class WindowScan {
  readonly texts: Scan['texts'] = [];
  end: Scan['end'] | null = null;
  /** the line being read */
  lineNo: number;
  lineHasBytes = false;
  /** the next byte to read */
  pos: number;
  private windowBytes = 0;
  /** head of the current window line, at most READ_MAX_LINE_BYTES + 1 bytes */
  private kept: Buffer[] = [];
  private keptBytes = 0;
  /** the current window line's full length */
  private lineBytes = 0;
  private lastByte = -1;
  private nextCheckpoint: number;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
    private readonly budget: Budget,
    private readonly index: LineIndex,
    from: { line: number; byte: number },
  ) {
    this.lineNo = from.line;
    this.pos = from.byte;
    this.nextCheckpoint = index.nextLine();
  }

  /** Read the window's lines out of one chunk (read at `base`) until the window closes; returns where it stopped. */
  windowLines(chunk: Buffer, base: number): number {
    // a UTF-8 BOM is an encoding mark, not text
    let start = base === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    while (this.end === null && start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const stop = nl === -1 ? chunk.length : nl;
      if (stop > start) {
        this.lineHasBytes = true;
        if (this.lineNo >= this.offset) this.keepBytes(chunk, start, stop);
      }
      if (nl === -1) start = chunk.length;
      else {
        if (this.lineNo >= this.offset) this.finishLine();
        this.lineNo++;
        if (this.lineNo === this.nextCheckpoint) this.nextCheckpoint = this.index.record(this.lineNo, base + nl + 1);
        this.lineHasBytes = false;
        start = nl + 1;
      }
    }
    return start;
  }

  /** After the window closed: count the lines in the chunk from `start` on, recording checkpoints. */
  countLines(chunk: Buffer, base: number, start: number): void {
    for (let i = chunk.indexOf(NL, start); i !== -1; i = chunk.indexOf(NL, i + 1)) {
      if (++this.lineNo === this.nextCheckpoint) this.nextCheckpoint = this.index.record(this.lineNo, base + i + 1);
    }
    this.byteStride();
    this.lineHasBytes = chunk[chunk.length - 1] !== NL;
  }

  /** After a chunk: far enough past the last checkpoint in bytes, record the next line start (long lines). */
  byteStride(): void {
    if (this.pos - this.index.frontierByte >= this.index.strideBytes) this.nextCheckpoint = Math.min(this.nextCheckpoint, this.lineNo + 1);
  }

  /** The end of the file: a last line without a trailing newline joins the window. */
  finishFile(): Scan['end'] {
    if (this.end === null && this.lineHasBytes && this.lineNo >= this.offset) this.finishLine();
    if (this.end === null) this.end = 'eof';
    return this.end;
  }

  private keepBytes(chunk: Buffer, start: number, stop: number): void {
    const room = this.budget.READ_MAX_LINE_BYTES + 1 - this.keptBytes;
    if (room > 0) {
      const piece = Buffer.from(chunk.subarray(start, Math.min(stop, start + room))); // copy: the chunk buffer is reused
      this.kept.push(piece);
      this.keptBytes += piece.length;
    }
    this.lineBytes += stop - start;
    this.lastByte = chunk[stop - 1];
  }

  /** The kept line as display text, cut with a marker past READ_MAX_LINE_BYTES; starts the next line. */
  private takeLine(): { text: string; cut: boolean } {
    const maxLine = this.budget.READ_MAX_LINE_BYTES;
    let body = Buffer.concat(this.kept, this.keptBytes);
    let total = this.lineBytes;
    if (this.lastByte === CR) total -= 1; // CRLF: the \r is part of the line ending, not shown
    body = body.subarray(0, Math.min(body.length, total));
    this.kept = [];
    this.keptBytes = 0;
    this.lineBytes = 0;
    this.lastByte = -1;
    if (total <= maxLine) return { text: utf8.decode(body), cut: false };
    const k = utf8End(body, maxLine);
    return { text: `${utf8.decode(body.subarray(0, k))}… [line cut: ${formatCount(total - k)} more bytes]`, cut: true };
  }

  /** Add the line just ended to the window, or close the window when its numbered text would pass the byte cap. */
  private finishLine(): void {
    const line = this.takeLine();
    // the final number width is known only at the end; the lower bound here is fixed up by the caller
    const cost = digits(this.lineNo) + 1 + Buffer.byteLength(line.text) + 1;
    if (this.texts.length > 0 && this.windowBytes + cost > this.budget.READ_WINDOW_MAX_BYTES) {
      this.end = 'bytes';
      return;
    }
    this.texts.push(line);
    this.windowBytes += cost;
    if (this.texts.length >= this.limit) this.end = 'limit';
  }
}

/**
 * Stream the file once: skip to `offset`, keep at most `limit` lines (each cut to READ_MAX_LINE_BYTES)
 * within READ_WINDOW_MAX_BYTES of numbered text, then count the rest (bounded by READ_COUNT_MAX_BYTES).
 * Starts at the index's nearest checkpoint and records new ones as it passes them.
 * Memory: one chunk buffer plus the window.
 */
export async function scanFile(fh: fs.promises.FileHandle, size: number, offset: number, limit: number, budget: Budget, signal: AbortSignal, index: LineIndex): Promise<Scan> {
  const known = index.total;
  // the window lies past the end: a full scan would only count the lines, and they are known
  if (known !== null && offset > known) return { texts: [], end: 'eof', lines: known, complete: true, scanned: size };
  const w = new WindowScan(offset, limit, budget, index, await checkedStart(fh, index, offset));
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let countedAfter = 0;
  let complete = true;
  let totalKnown = false; // the count after the window was taken from the index
  for (;;) {
    if (signal.aborted) throw new Error('aborted');
    // stay on the grid a scan from byte 0 reads: the counting cap is checked at the same chunk ends
    const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES - (w.pos % CHUNK_BYTES), w.pos);
    if (bytesRead === 0) break;
    countBytesRead(bytesRead);
    const chunk = buf.subarray(0, bytesRead);
    const base = w.pos;
    w.pos += bytesRead;
    const start = w.windowLines(chunk, base);
    // the window is closed and the total is known: a scan from here would reach the end under the
    // counting cap (it stops only at a chunk end before the end of the file, past the cap)
    if (w.end !== null && known !== null && size - (base + start) <= budget.READ_COUNT_MAX_BYTES) {
      totalKnown = true;
      break;
    }
    if (w.end === null || start >= chunk.length) {
      w.byteStride();
      continue;
    }
    // the window is closed: only count lines, up to the counting cap
    w.countLines(chunk, base, start);
    countedAfter += chunk.length - start;
    if (countedAfter >= budget.READ_COUNT_MAX_BYTES && w.pos < size) {
      complete = false;
      break;
    }
  }
  const end = w.finishFile();
  if (totalKnown && known !== null) return { texts: w.texts, end, lines: known, complete: true, scanned: size };
  const lines = w.lineHasBytes ? w.lineNo : w.lineNo - 1;
  if (complete) index.setTotal(lines);
  return { texts: w.texts, end, lines, complete, scanned: w.pos };
}
