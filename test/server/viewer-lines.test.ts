/**
 * The full-output viewer's server side: every page carries its first line's number and the file's exact
 * line count (counted once per file, marks every MiB, a growing log counted on), and a search runs over
 * the whole file on disk with each match's line number and byte offset, bounded in bytes and time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFilePage } from '../../lib/server/files';
import { searchFile, searchQuery, SEARCH_QUERY_MAX_CHARS } from '../../lib/server/file-search';
import { HttpError } from '../../lib/server/http';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => (ws = tempWorkspace('clamp-viewer-lines-')));
afterAll(() => ws.cleanup());

const LINES = 300_000;
/** 300,000 numbered lines, about 9 MB: several of the index's 1 MiB marks */
const lineText = (i: number) => `line ${i} ${i % 7 === 0 ? 'Needle' : 'hay'} ${'·'.repeat(i % 11)}`;

function write(name: string, text: string | Buffer): string {
  const file = path.join(ws.root, name);
  fs.writeFileSync(file, text);
  return file;
}

/** The byte offset where line n (1-based) begins. */
function offsetOf(text: string, n: number): number {
  let at = 0;
  for (let k = 1; k < n; k++) at = text.indexOf('\n', at) + 1;
  return Buffer.byteLength(text.slice(0, at));
}

describe('page line numbers', () => {
  it('an ended 300,000-line output: its exact line count on the first page, and the number of any page’s first line', () => {
    const text = Array.from({ length: LINES }, (_, i) => lineText(i + 1)).join('\n') + '\n';
    const file = write('big.log', text);
    const first = readFilePage(file, 0, 256 * 1024);
    expect(first).toMatchObject({ offset: 0, firstLine: 1, totalLines: LINES, eof: false });
    // the last page, as "Jump to end" asks for it: its lines keep their numbers
    const size = Buffer.byteLength(text);
    const tail = readFilePage(file, size - 256 * 1024, 256 * 1024);
    const firstOfTail = tail.text.split('\n')[0];
    expect(firstOfTail).toBe(lineText(tail.firstLine!));
    expect(tail.totalLines).toBe(LINES);
    // pages anywhere, at line starts and mid-line (moved to the next line start)
    for (const n of [2, 1000, 123_457, 299_999, LINES]) {
      const p = readFilePage(file, offsetOf(text, n), 4096);
      expect(p.firstLine, `line ${n}`).toBe(n);
      expect(p.text.split('\n')[0]).toBe(lineText(n));
      const mid = readFilePage(file, offsetOf(text, n) - 3, 4096);
      expect(mid.firstLine, `inside line ${n - 1}`).toBe(n);
    }
  });

  it('a last line without a newline counts; a growing log is counted on; a replaced file is counted again', () => {
    const file = write('grow.log', 'one\ntwo\nthr');
    expect(readFilePage(file, 0, 4096)).toMatchObject({ firstLine: 1, totalLines: 3 });
    fs.appendFileSync(file, 'ee\nfour\n');
    expect(readFilePage(file, 8, 4096)).toMatchObject({ firstLine: 3, totalLines: 4, text: 'three\nfour\n' });
    fs.rmSync(file);
    fs.writeFileSync(file, 'a\n');
    expect(readFilePage(file, 0, 4096)).toMatchObject({ firstLine: 1, totalLines: 1 });
    expect(readFilePage(write('empty.log', ''), 0, 4096)).toMatchObject({ firstLine: 1, totalLines: 0, eof: true });
  });
});

describe('search over the whole file', () => {
  it('finds every match on disk (case ignored) with its line number, byte offset and column; lists the first ones and counts all', () => {
    const text = Array.from({ length: LINES }, (_, i) => lineText(i + 1)).join('\n') + '\n';
    const file = write('search.log', text);
    const r = searchFile(file, 'needle', { listedMax: 100 });
    const expected = Math.floor(LINES / 7);
    expect(r).toMatchObject({ query: 'needle', total: expected, searchedBytes: Buffer.byteLength(text), totalBytes: Buffer.byteLength(text), stoppedBy: null });
    expect(r.matches).toHaveLength(100);
    expect(r.matches[0]).toEqual({ offset: offsetOf(text, 7), line: 7, column: 'line 7 '.length, length: 6 });
    // a match far down, past many 1 MiB blocks
    const late = searchFile(file, 'line 299999 ');
    expect(late.matches).toEqual([{ offset: offsetOf(text, 299_999), line: 299_999, column: 0, length: 12 }]);
    // two on one line, and none
    const twice = searchFile(write('twice.log', 'a b\nxx yy xx\n'), 'XX');
    expect(twice.matches).toEqual([
      { offset: 4, line: 2, column: 0, length: 2 },
      { offset: 4, line: 2, column: 6, length: 2 },
    ]);
    expect(searchFile(file, 'no such text')).toMatchObject({ total: 0, matches: [] });
  });

  it('bytes that are not UTF-8 keep offsets exact; a line longer than a search piece is searched in pieces; the bounds say what they cut', () => {
    const bin = Buffer.concat([Buffer.from([0xff, 0xfe, 0x80, 0x0a, 0xc3]), Buffer.from('\nfind me\n')]);
    expect(searchFile(write('bin.log', bin), 'find').matches).toEqual([{ offset: 6, line: 3, column: 0, length: 4 }]);
    const long = 'x'.repeat(9 * 1024 * 1024) + 'TAIL\nnext TAIL\n';
    const lr = searchFile(write('long.log', long), 'tail');
    expect(lr.matches.map((m) => [m.line, m.offset])).toEqual([
      [1, 0],
      [2, 9 * 1024 * 1024 + 5],
    ]);
    expect(lr.matches[0].column).toBe(9 * 1024 * 1024);
    const text = Array.from({ length: 100_000 }, (_, i) => lineText(i + 1)).join('\n') + '\n';
    const cut = searchFile(write('cut.log', text), 'needle', { maxBytes: 1024 * 1024 });
    expect(cut.stoppedBy).toBe('bytes');
    expect(cut.searchedBytes).toBe(1024 * 1024);
    expect(cut.total).toBeGreaterThan(0);
    expect(searchFile(write('slow.log', text), 'needle', { maxMs: -1 }).stoppedBy).toBe('time');
  });

  it('the text to search for: given, within one line and the length cap', () => {
    const q = (s: string) => searchQuery(new URL(`http://x/?q=${encodeURIComponent(s)}`));
    expect(q('a.b*')).toBe('a.b*');
    expect(() => searchQuery(new URL('http://x/'))).toThrow(HttpError);
    expect(() => q('x'.repeat(SEARCH_QUERY_MAX_CHARS + 1))).toThrow(/at most 200/);
    expect(() => q('a\nb')).toThrow(/within one line/);
    // a regex's characters are plain text
    expect(searchFile(write('re.log', 'a.b*\naxbb\n'), 'a.b*').matches).toEqual([{ offset: 0, line: 1, column: 0, length: 4 }]);
  });
});
