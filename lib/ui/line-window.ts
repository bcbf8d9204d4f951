import type { FilePage } from '@/lib/contract/viewer';
import { byteLength, formatBytes, formatCount } from '@/lib/contract/text';

/**
 * The viewer's loaded part of a huge file: one contiguous run of lines between two byte offsets,
 * grown page by page downwards (appendPage) or upwards (prependPage), or started from the end
 * (fromTail). Pure; every function returns a new window. Offsets are UTF-8 bytes, as the server
 * counts them; the server cuts pages on line boundaries, and these functions stay correct when it
 * does not (a partial first line is dropped and asked for again with the page above). The server
 * numbers each page's first line and counts the file's lines, so a window started anywhere (the end,
 * a search match) knows its line numbers.
 */
export interface LineWindow {
  /** committed lines, without their newlines */
  lines: string[];
  /** text after the last newline at the end of the file: a line still being written, shown but asked for again */
  pending: string;
  /** byte offset of lines[0] */
  startOffset: number;
  /** byte offset just after the last committed line */
  endOffset: number;
  /** 1-based number of lines[0]; null only while the server has not counted that far into a huge file */
  firstLine: number | null;
  /** the file's lines as the server last counted them (at totalBytes); null until it has */
  totalLines: number | null;
  /** the last committed line is only a piece of a line longer than a page; the next page continues it */
  partialLast: boolean;
  totalBytes: number;
  /** the loaded text (pending included) reached the end of the file as it was */
  eof: boolean;
  /** a stable index for lines[0]: falls when lines are prepended, rises when the top is evicted */
  anchor: number;
  loaded: boolean;
}

/** most lines one window keeps; past it the far end is dropped (and loaded again on the way back) */
export const MAX_WINDOW_LINES = 200_000;

/** A window with nothing loaded yet. */
export function emptyWindow(): LineWindow {
  return { lines: [], pending: '', startOffset: 0, endOffset: 0, firstLine: 1, totalLines: null, partialLast: false, totalBytes: 0, eof: false, anchor: 0, loaded: false };
}

/** Lines of text that ends with a newline (or is empty). A CRLF line keeps its \r, so byte counts stay exact. */
export function splitComplete(text: string): string[] {
  if (!text) return [];
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** The lines to render: the committed ones and the pending line (joined to a committed fragment it continues). */
export function displayLines(w: LineWindow): string[] {
  if (!w.pending) return w.lines;
  if (w.partialLast && w.lines.length) return [...w.lines.slice(0, -1), w.lines[w.lines.length - 1] + w.pending];
  return [...w.lines, w.pending];
}

/** The number of the line at a page's offset: 1 at the file's start, else what the server counted (null while it has not). */
function lineAt(page: FilePage): number | null {
  return page.offset === 0 ? 1 : (page.firstLine ?? null);
}

/** The window's line count after a page: the newest count the server gave, for the newest size it saw. */
function linesAfter(w: LineWindow, page: FilePage): number | null {
  // the file grew: only the new count holds; an older answer (a smaller size) changes nothing
  if (page.totalBytes > w.totalBytes) return page.totalLines ?? null;
  return page.totalBytes === w.totalBytes ? (page.totalLines ?? w.totalLines) : w.totalLines;
}

/** Merge a page read from w.endOffset (or the first page of an empty window) below the window. */
export function appendPage(w: LineWindow, page: FilePage, maxLines = MAX_WINDOW_LINES): LineWindow {
  // a stale answer (the window moved on while it was in flight) would duplicate lines
  if (w.loaded && page.offset < w.endOffset) return w;
  const base: LineWindow = w.loaded ? w : { ...emptyWindow(), startOffset: page.offset, endOffset: page.offset, firstLine: lineAt(page), loaded: true };
  const cut = page.text.lastIndexOf('\n') + 1;
  const complete = page.text.slice(0, cut);
  const rest = page.text.slice(cut);
  let added = splitComplete(complete);
  let endOffset = page.offset + byteLength(complete);
  let pending = '';
  let partialLast = false;
  if (rest) {
    if (page.eof) pending = rest;
    else if (!complete) {
      // a page without a newline: a piece of a line longer than a page
      added = [rest];
      endOffset = page.nextOffset;
      partialLast = true;
    }
    // else: cut mid-line before the end; the next request starts at that line again
  }
  let lines = base.lines;
  if (base.partialLast && added.length && lines.length) {
    lines = lines.slice(0, -1);
    added[0] = base.lines[base.lines.length - 1] + added[0];
  } else if (base.partialLast && !added.length) partialLast = true;
  const next: LineWindow = {
    ...base,
    lines: added.length ? lines.concat(added) : lines,
    pending,
    endOffset: Math.max(base.endOffset, endOffset),
    partialLast,
    totalBytes: page.totalBytes,
    totalLines: linesAfter(base, page),
    eof: page.eof,
  };
  return next.lines.length > maxLines ? dropTop(next, next.lines.length - maxLines + Math.floor(maxLines / 4)) : next;
}

/** The request for the page above the window, or null at the top of the file. */
export function prevRequest(w: LineWindow, pageBytes: number): { offset: number; limit: number } | null {
  if (!w.loaded || w.startOffset <= 0) return null;
  const offset = Math.max(0, w.startOffset - pageBytes);
  return { offset, limit: w.startOffset - offset };
}

/** Merge a page asked for with prevRequest above the window. */
export function prependPage(w: LineWindow, page: FilePage, maxLines = MAX_WINDOW_LINES): LineWindow {
  if (page.offset >= w.startOffset) return w;
  let text = page.text;
  const end = page.offset + byteLength(text);
  if (end > w.startOffset) text = sliceBytes(text, 0, w.startOffset - page.offset);
  let start = page.offset;
  let dropped = 0;
  if (start > 0) {
    // the first line may begin above the page: drop it, the next page up brings it whole
    const nl = text.indexOf('\n');
    if (nl >= 0 && nl < text.length - 1) {
      start += byteLength(text.slice(0, nl + 1));
      text = text.slice(nl + 1);
      dropped = 1;
    }
  }
  const added = splitComplete(text);
  if (!text.endsWith('\n') && added.length && w.lines.length) {
    // the page ended mid-line: it continues the window's first line
    const head = added.pop() as string;
    w = { ...w, lines: [head + w.lines[0], ...w.lines.slice(1)] };
  }
  const counted = lineAt(page);
  const firstLine = start === 0 ? 1 : counted !== null ? counted + dropped : w.firstLine === null ? null : w.firstLine - added.length;
  const next: LineWindow = {
    ...w,
    lines: added.concat(w.lines),
    startOffset: start,
    firstLine,
    anchor: w.anchor - added.length,
    totalBytes: Math.max(w.totalBytes, page.totalBytes),
    totalLines: linesAfter(w, page),
  };
  return next.lines.length > maxLines ? dropBottom(next, next.lines.length - maxLines + Math.floor(maxLines / 4)) : next;
}

/** The request for the last page of a file of totalBytes. */
export function tailRequest(totalBytes: number, pageBytes: number): { offset: number; limit: number } {
  return { offset: Math.max(0, totalBytes - pageBytes), limit: pageBytes };
}

/** A new window from a page asked for with tailRequest (line numbers unknown unless it starts at 0). */
export function fromTail(page: FilePage, maxLines = MAX_WINDOW_LINES): LineWindow {
  const cut = page.text.lastIndexOf('\n') + 1;
  const complete = page.text.slice(0, cut);
  const rest = page.eof ? page.text.slice(cut) : '';
  const at = page.offset + byteLength(complete);
  const seed: LineWindow = { ...emptyWindow(), startOffset: at, endOffset: at, firstLine: null, loaded: true, totalBytes: page.totalBytes, totalLines: page.totalLines ?? null, eof: page.eof, pending: rest };
  if (!complete) return { ...seed, firstLine: lineAt(page) };
  return prependPage(seed, { ...page, text: complete, nextOffset: at }, maxLines);
}

/**
 * The index in displayLines(w) of the line that begins at byte `offset` (numbered `line`), or null when the
 * window does not hold it. By the line numbers when the window knows them, else by walking the bytes.
 */
export function lineIndexAt(w: LineWindow, offset: number, line?: number): number | null {
  if (!w.loaded || offset < w.startOffset) return null;
  const shown = w.lines.length + (w.pending && !w.partialLast ? 1 : 0);
  if (w.firstLine !== null && line !== undefined) {
    const i = line - w.firstLine;
    return i >= 0 && i < shown ? i : null;
  }
  let at = w.startOffset;
  for (let i = 0; i < w.lines.length; i++) {
    if (at === offset) return i;
    if (at > offset) return null;
    at += byteLength(w.lines[i]) + 1;
  }
  return at === offset && shown > w.lines.length ? w.lines.length : null;
}

/** Everything up to the end is loaded and nothing is above the window. */
export function isComplete(w: LineWindow): boolean {
  return w.loaded && w.eof && w.startOffset === 0;
}

/** "lines 1–38 of 300,000 · 3.4 MB" (or "of ≥ 41,212" while the server has not counted the file), or, with unknown line numbers, where the window sits in bytes. */
export function positionLabel(w: LineWindow, first: number, last: number, shown: number): string {
  if (!w.loaded) return 'loading…';
  const size = formatBytes(w.totalBytes);
  if (shown === 0) return `empty · ${size}`;
  const a = Math.max(0, Math.min(first, shown - 1));
  const b = Math.max(a, Math.min(last, shown - 1));
  if (w.firstLine === null) {
    return `${formatCount(shown)} lines loaded from the end (${formatBytes(w.startOffset)} above not loaded) · ${size}`;
  }
  const total = w.firstLine + shown - 1;
  const of = w.totalLines !== null ? formatCount(Math.max(w.totalLines, total)) : isComplete(w) ? formatCount(total) : `≥ ${formatCount(total)}`;
  return `lines ${formatCount(w.firstLine + a)}–${formatCount(w.firstLine + b)} of ${of} · ${size}`;
}

function dropTop(w: LineWindow, n: number): LineWindow {
  const dropped = w.lines.slice(0, n);
  const bytes = dropped.reduce((s, l) => s + byteLength(l) + 1, 0);
  return {
    ...w,
    lines: w.lines.slice(n),
    startOffset: w.startOffset + bytes,
    firstLine: w.firstLine === null ? null : w.firstLine + n,
    anchor: w.anchor + n,
  };
}

function dropBottom(w: LineWindow, n: number): LineWindow {
  const keep = w.lines.length - n;
  const bytes = w.lines.slice(keep).reduce((s, l) => s + byteLength(l) + 1, 0);
  return { ...w, lines: w.lines.slice(0, keep), endOffset: w.endOffset - bytes, pending: '', partialLast: false, eof: false };
}

/** The part of text between two byte offsets (used only when a server sends more than asked for). */
function sliceBytes(text: string, from: number, to: number): string {
  const bytes = new TextEncoder().encode(text);
  return new TextDecoder().decode(bytes.subarray(Math.max(0, from), Math.max(0, to)));
}
