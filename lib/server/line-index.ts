import fs from 'node:fs';
import { countNewlines } from '../exec/newlines';

/**
 * Line numbers of the viewer's files: how many lines come before a byte offset, and how many lines a
 * file has, without reading the file again for every page. Each file (spilled outputs never change; logs
 * only grow) is counted once from its start, remembering the count at every STEP_BYTES; a page's line
 * number is then the mark below it plus at most STEP_BYTES counted. A huge file is counted over several
 * requests (COUNT_PER_CALL_MAX_BYTES each): until then its numbers are unknown (null).
 */

/** a mark (newlines before it) every this many bytes */
const STEP_BYTES = 1024 * 1024;
/** most bytes one request counts before answering with what it knows */
const COUNT_PER_CALL_MAX_BYTES = 128 * 1024 * 1024;
/** files whose counts are kept (the least recently used is forgotten) */
const INDEXES_MAX = 32;

interface Index {
  dev: number;
  ino: number;
  /** bytes counted from the start */
  counted: number;
  /** newlines among them */
  newlines: number;
  /** marks[k]: newlines before byte k * STEP_BYTES */
  marks: number[];
}

const indexes = new Map<string, Index>();

function indexFor(file: string, st: fs.Stats): Index {
  let ix = indexes.get(file);
  // a file replaced or cut shorter is counted again
  if (!ix || ix.dev !== st.dev || ix.ino !== st.ino || ix.counted > st.size) ix = { dev: st.dev, ino: st.ino, counted: 0, newlines: 0, marks: [0] };
  indexes.delete(file);
  indexes.set(file, ix);
  while (indexes.size > INDEXES_MAX) indexes.delete(indexes.keys().next().value as string);
  return ix;
}

/** Count on up to `upTo` bytes, at most COUNT_PER_CALL_MAX_BYTES now; true when counted that far. */
function countTo(fd: number, ix: Index, upTo: number): boolean {
  let left = COUNT_PER_CALL_MAX_BYTES;
  const buf = Buffer.allocUnsafe(STEP_BYTES);
  while (ix.counted < upTo && left > 0) {
    const nextMark = (Math.floor(ix.counted / STEP_BYTES) + 1) * STEP_BYTES;
    const n = fs.readSync(fd, buf, 0, Math.min(nextMark, upTo) - ix.counted, ix.counted);
    if (n <= 0) break;
    ix.newlines += countNewlines(buf, 0, n);
    ix.counted += n;
    left -= n;
    if (ix.counted === nextMark) ix.marks.push(ix.newlines);
  }
  return ix.counted >= upTo;
}

/** Newlines before offset (offset ≤ ix.counted): the mark below it plus the bytes from the mark. */
function newlinesBefore(fd: number, ix: Index, offset: number): number {
  const k = Math.floor(offset / STEP_BYTES);
  const from = k * STEP_BYTES;
  if (offset === from) return ix.marks[k];
  const buf = Buffer.allocUnsafe(offset - from);
  const n = fs.readSync(fd, buf, 0, buf.length, from);
  return ix.marks[k] + countNewlines(buf, 0, n);
}

export interface LineNumbers {
  /** the 1-based number of the line that begins at offset; null while the file is not counted that far */
  firstLine: number | null;
  /** the lines of the file's first `size` bytes (a last line without a newline counts); null while not counted */
  totalLines: number | null;
}

/**
 * The number of the line beginning at `offset` and the lines in the first `size` bytes of an open file
 * (size: the file's size when the page was read). Counts what it has not counted yet, within the bound.
 */
export function lineNumbers(file: string, fd: number, st: fs.Stats, offset: number, size: number): LineNumbers {
  const ix = indexFor(file, st);
  const whole = countTo(fd, ix, size);
  const firstLine = offset <= ix.counted ? newlinesBefore(fd, ix, offset) + 1 : null;
  if (!whole) return { firstLine, totalLines: null };
  let totalLines = newlinesBefore(fd, ix, size);
  if (size > 0) {
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) totalLines++;
  }
  return { firstLine, totalLines };
}
