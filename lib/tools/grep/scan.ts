/**
 * The pieces of grep's built-in search that one file needs: the scan of one file and the rendering of
 * its matches (engine.ts puts them together with the sorted walk of walk.ts).
 */
import fs from 'node:fs';
import { clipLine } from '../../contract/text';
import { openInHeldFolder, releaseFolder, type HeldFolder } from '../../policy/confined-fs';
import type { SearchRequest, Skipped } from './engine';

/** The first read of every file; larger files are measured with fstat and read on. */
const FIRST_READ_BYTES = 64 * 1024;

export function note(s: Skipped, rel: string) {
  s.count++;
  if (s.samples.length < 3) s.samples.push(rel);
}

export type Scan =
  | { kind: 'oversize' }
  | { kind: 'unreadable' }
  | { kind: 'none' }
  | { kind: 'text' | 'binary'; text: string; hits: number[] };

/** What one search reuses from file to file: the read buffer, and the folder of the last file, held open. */
export interface ScanState {
  buf: Buffer | null;
  dir: HeldFolder | null;
}

/** A fresh state for one search; `endScan` lets go of it. */
export function scanState(): ScanState {
  return { buf: null, dir: null };
}

export function endScan(s: ScanState): void {
  releaseFolder(s.dir);
  s.dir = null;
}

/**
 * Read one file and find its matching line numbers (1-based). Synchronous by design (see module comment).
 * The file is opened by name in its folder, held open and checked to be where the walk found it: a folder
 * swapped for a link while the search runs reads as unreadable, never as what lies behind the link.
 */
export function scanFile(abs: string, req: SearchRequest, pool: ScanState): Scan {
  const fd = openInHeldFolder(abs, pool);
  if (fd < 0) return { kind: 'unreadable' };
  let n = 0;
  try {
    // Most files fit in the first read, so open+read+close is all they cost (no fstat): a short read
    // means end of file; reading one byte past the cap is enough to know a file is over it.
    const first = Math.min(FIRST_READ_BYTES, req.maxFileBytes + 1);
    if (!pool.buf || pool.buf.length < first) pool.buf = Buffer.allocUnsafe(first);
    n = fs.readSync(fd, pool.buf, 0, first, 0);
    if (n > req.maxFileBytes) return { kind: 'oversize' };
    if (n === first) {
      const size = fs.fstatSync(fd).size;
      if (size > req.maxFileBytes) return { kind: 'oversize' };
      if (pool.buf.length < size) {
        const grown = Buffer.allocUnsafe(size);
        pool.buf.copy(grown, 0, 0, n);
        pool.buf = grown;
      }
      // a file that grows meanwhile is read as it was when measured
      while (n < size) {
        const r = fs.readSync(fd, pool.buf, n, size - n, n);
        if (r === 0) break;
        n += r;
      }
    }
  } catch {
    return { kind: 'unreadable' };
  } finally {
    fs.closeSync(fd);
  }
  if (n === 0) return { kind: 'none' };
  const buf = pool.buf!.subarray(0, n);
  const p = req.pattern;
  if (p.literalBytes && buf.indexOf(p.literalBytes) === -1) return { kind: 'none' };
  const binary = buf.subarray(0, Math.min(n, req.sniffBytes)).indexOf(0) !== -1;
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (p.wholeText && !p.wholeText.test(text)) return { kind: 'none' };
  const hits: number[] = [];
  let ln = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    ln++;
    const line = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    if (p.testLine(line)) hits.push(ln);
    start = end + 1;
  }
  if (hits.length === 0) return { kind: 'none' };
  return { kind: binary ? 'binary' : 'text', text, hits };
}

/** Lines of text with a trailing \r removed, 1-based access via index - 1. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

export interface OutLine {
  text: string;
  /** a matching line (counts toward the cap), not context or a separator */
  match: boolean;
}

/** Render up to `quota` matches of one file, with context like rg (`path:n:text`, `path-n-text`, `--` between groups). */
export function renderContent(rel: string, scan: { text: string; hits: number[] }, quota: number, req: SearchRequest, first: boolean): OutLine[] {
  const out: OutLine[] = [];
  const shown = scan.hits.slice(0, quota);
  const lines = splitLines(scan.text);
  if (req.context === 0) {
    for (const n of shown) out.push({ text: `${rel}:${n}:${clipLine(lines[n - 1], req.maxLineBytes)}`, match: true });
    return out;
  }
  const isHit = new Set(shown);
  // context after the last shown match stops before the first match that is not shown
  const limit = scan.hits.length > shown.length ? scan.hits[shown.length] - 1 : lines.length;
  const ranges: Array<[number, number]> = [];
  for (const n of shown) {
    const s = Math.max(1, n - req.context);
    const e = Math.min(limit, n + req.context);
    const last = ranges[ranges.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else ranges.push([s, e]);
  }
  for (const [s, e] of ranges) {
    if (!first || out.length > 0) out.push({ text: '--', match: false });
    for (let n = s; n <= e; n++) {
      const sep = isHit.has(n) ? ':' : '-';
      out.push({ text: `${rel}${sep}${n}${sep}${clipLine(lines[n - 1], req.maxLineBytes)}`, match: sep === ':' });
    }
  }
  return out;
}

