import fs from 'node:fs';
import type { LogMatch, LogSearchAnswer } from '../contract/viewer';
import { utf8End } from '../contract/text';
import { HttpError } from './http';

/**
 * The viewer's search: a text (case ignored) in a whole spilled output or log on disk, not only in the
 * lines the page has loaded. One pass from the start, a block at a time, so memory stays bounded and every
 * match gets its line's number and byte offset; bounded in bytes and time, and a cut says so.
 */

const BLOCK_BYTES = 1024 * 1024;
/** a line longer than this is searched in pieces (a match across two pieces is missed) */
const LINE_PIECE_MAX_BYTES = 4 * 1024 * 1024;
/** matches listed (all are counted) */
export const SEARCH_LISTED_MAX = 2000;
export const SEARCH_MAX_BYTES = 2 * 1024 * 1024 * 1024;
export const SEARCH_MAX_MS = 5000;
export const SEARCH_QUERY_MAX_CHARS = 200;

/** The search text of ?q=, or HttpError 400. */
export function searchQuery(url: URL): string {
  const q = url.searchParams.get('q') ?? '';
  if (q.length === 0) throw new HttpError(400, 'Give the text to search for in ?q=.');
  if (q.length > SEARCH_QUERY_MAX_CHARS) throw new HttpError(400, `The search text is ${q.length} characters; search for at most ${SEARCH_QUERY_MAX_CHARS}.`);
  if (q.includes('\n')) throw new HttpError(400, 'The search text spans lines; search for a text within one line.');
  return q;
}

/** Search a file for query (case ignored). Never reads more than o.maxBytes nor runs past o.maxMs. */
export function searchFile(file: string, query: string, o: { maxBytes?: number; maxMs?: number; listedMax?: number } = {}): LogSearchAnswer {
  const deadline = Date.now() + (o.maxMs ?? SEARCH_MAX_MS);
  const re = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const reading: Reading = { read: 0, stoppedBy: null };
    const found: Found = { matches: [], total: 0, listedMax: o.listedMax ?? SEARCH_LISTED_MAX };
    const at: LineAt = { line: 1, lineStart: 0, column0: 0 };
    for (const piece of pieces(fd, size, o.maxBytes ?? SEARCH_MAX_BYTES, deadline, reading)) scanPiece(piece, re, at, found);
    return { query, matches: found.matches, total: found.total, searchedBytes: Math.min(reading.read, size), totalBytes: size, stoppedBy: reading.stoppedBy };
  } finally {
    fs.closeSync(fd);
  }
}

/** How far the file was read, and why it stopped short of its end (null: it did not). */
interface Reading {
  read: number;
  stoppedBy: LogSearchAnswer['stoppedBy'];
}

/** The matches listed (at most listedMax) and all counted. */
interface Found {
  matches: LogMatch[];
  total: number;
  listedMax: number;
}

/** The line being read: its number, the byte offset where it began, and its UTF-16 length in earlier pieces. */
interface LineAt {
  line: number;
  lineStart: number;
  column0: number;
}

/** Bytes [0, end) of buf are searched now; offset is where buf begins in the file. */
interface Piece {
  buf: Buffer;
  end: number;
  offset: number;
}

/**
 * The file in pieces that end at a newline (or inside a line too long to hold, or at the file's end), a block at
 * a time, within maxBytes and the deadline; reading says how far it got. A piece is used before the next is read.
 */
function* pieces(fd: number, size: number, maxBytes: number, deadline: number, reading: Reading): Generator<Piece> {
  const limit = Math.min(size, maxBytes);
  const block = Buffer.allocUnsafe(BLOCK_BYTES);
  let carry = Buffer.alloc(0);
  for (;;) {
    if (reading.read >= limit) {
      if (reading.read < size) reading.stoppedBy = 'bytes';
      if (carry.length === 0) return;
    }
    if (Date.now() > deadline && reading.read < size) {
      reading.stoppedBy = 'time';
      return;
    }
    const n = reading.read < limit ? fs.readSync(fd, block, 0, Math.min(BLOCK_BYTES, limit - reading.read), reading.read) : 0;
    const buf = carry.length ? Buffer.concat([carry, block.subarray(0, n)]) : block.subarray(0, n);
    const offset = reading.read - carry.length;
    reading.read += n;
    const last = n === 0;
    const end = pieceEnd(buf, last);
    if (end === undefined) {
      carry = Buffer.from(buf);
      continue;
    }
    yield { buf, end, offset };
    carry = Buffer.from(buf.subarray(end));
    if (last) return;
  }
}

/** Where a piece ends: after its last newline; a line still open waits for the next block (undefined) unless it is too long or the file ended. */
function pieceEnd(buf: Buffer, last: boolean): number | undefined {
  if (last) return buf.length;
  const end = buf.lastIndexOf(0x0a) + 1;
  if (end > 0) return end;
  return buf.length < LINE_PIECE_MAX_BYTES ? undefined : utf8End(buf);
}

/**
 * Find the matches in one piece. The piece is walked once: lines advance between matches; each "\n" of the text is
 * the next 0x0a of the bytes (decoding never takes one into another character), so offsets stay exact in text that
 * is not UTF-8.
 */
function scanPiece({ buf, end, offset }: Piece, re: RegExp, lineAt: LineAt, found: Found): void {
  const text = buf.subarray(0, end).toString('utf8');
  let at = 0;
  let atBytes = 0;
  const advanceTo = (idx: number) => {
    for (let k = text.indexOf('\n', at); k !== -1 && k < idx; k = text.indexOf('\n', k + 1)) {
      atBytes = buf.indexOf(0x0a, atBytes) + 1;
      at = k + 1;
      lineAt.line++;
      lineAt.lineStart = offset + atBytes;
      lineAt.column0 = 0;
    }
  };
  for (const m of text.matchAll(re)) {
    advanceTo(m.index);
    found.total++;
    if (found.matches.length < found.listedMax) found.matches.push({ offset: lineAt.lineStart, line: lineAt.line, column: lineAt.column0 + (m.index - at), length: m[0].length });
  }
  advanceTo(text.length);
  // the piece ended inside a line: its characters so far count toward the next piece's columns
  lineAt.column0 += text.length - at;
}
