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
  const maxBytes = o.maxBytes ?? SEARCH_MAX_BYTES;
  const deadline = Date.now() + (o.maxMs ?? SEARCH_MAX_MS);
  const listedMax = o.listedMax ?? SEARCH_LISTED_MAX;
  const re = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const matches: LogMatch[] = [];
    let total = 0;
    // where the line being read began, its number, and its UTF-16 length in earlier pieces
    let lineStart = 0;
    let line = 1;
    let column0 = 0;
    let carry = Buffer.alloc(0);
    let read = 0;
    let stoppedBy: LogSearchAnswer['stoppedBy'] = null;
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    for (;;) {
      const limit = Math.min(size, maxBytes);
      if (read >= limit) {
        if (read < size) stoppedBy = 'bytes';
        if (carry.length === 0) break;
      }
      if (Date.now() > deadline && read < size) {
        stoppedBy = 'time';
        break;
      }
      const n = read < limit ? fs.readSync(fd, block, 0, Math.min(BLOCK_BYTES, limit - read), read) : 0;
      const buf = carry.length ? Buffer.concat([carry, block.subarray(0, n)]) : block.subarray(0, n);
      const pieceOffset = read - carry.length;
      read += n;
      const last = n === 0;
      const nl = buf.lastIndexOf(0x0a);
      // search up to the last newline; a line still open waits for the next block unless it is too long or the file ended
      let end = nl + 1;
      if (last) end = buf.length;
      else if (end === 0) {
        if (buf.length < LINE_PIECE_MAX_BYTES) {
          carry = Buffer.from(buf);
          continue;
        }
        end = utf8End(buf);
      }
      const text = buf.subarray(0, end).toString('utf8');
      // walk the piece once: lines advance between matches; each "\n" of the text is the next 0x0a of the bytes
      // (decoding never takes one into another character), so offsets stay exact in text that is not UTF-8
      let at = 0;
      let atBytes = 0;
      const advanceTo = (idx: number) => {
        for (let k = text.indexOf('\n', at); k !== -1 && k < idx; k = text.indexOf('\n', k + 1)) {
          atBytes = buf.indexOf(0x0a, atBytes) + 1;
          at = k + 1;
          line++;
          lineStart = pieceOffset + atBytes;
          column0 = 0;
        }
      };
      for (const m of text.matchAll(re)) {
        advanceTo(m.index);
        total++;
        if (matches.length < listedMax) matches.push({ offset: lineStart, line, column: column0 + (m.index - at), length: m[0].length });
      }
      advanceTo(text.length);
      // the piece ended inside a line: its characters so far count toward the next piece's columns
      column0 += text.length - at;
      carry = Buffer.from(buf.subarray(end));
      if (last) break;
    }
    return { query, matches, total, searchedBytes: Math.min(read, size), totalBytes: size, stoppedBy };
  } finally {
    fs.closeSync(fd);
  }
}
