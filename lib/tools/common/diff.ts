/**
 * Comparing texts for the write tools. Unified diffs: the full diff goes to the page (meta), a
 * copy cut to DIFF_MAX_BYTES goes to the model with a note saying how much was left out.
 * Similarity: how alike two texts are, and which region of a file is closest to a wanted text
 * (for "not found" errors and the anchor matcher).
 */
import { structuredPatch, formatPatch, FILE_HEADERS_ONLY } from 'diff';
import type { Truncation } from '../../contract/types';
import { cutHead, formatBytes, formatCount } from '../../contract/text';

/** A file's change as a unified diff plus its line counts. */
export interface FileDiff {
  /** the full unified diff ('' when nothing changed) */
  diff: string;
  added: number;
  removed: number;
  /** false when the minimal diff took too long and one coarse hunk (true, but not minimal) was given instead */
  exact: boolean;
}

/** Lines with their terminators, so "no newline at end of file" survives the comparison. */
function tokens(s: string): string[] {
  return s.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function hunkLines(prefix: string, lines: string[]): string[] {
  return lines.flatMap((l) => (l.endsWith('\n') ? [prefix + l.slice(0, -1)] : [prefix + l, '\\ No newline at end of file']));
}

/**
 * One hunk replacing everything between the common leading and trailing lines. It is a correct
 * diff, only not a minimal one; used when Myers' O(N·D) search runs out of time on a rewrite.
 */
function coarseDiff(oldPath: string, newPath: string, before: string, after: string): FileDiff {
  const a = tokens(before);
  const b = tokens(after);
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let q = 0;
  while (q < a.length - p && q < b.length - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++;
  const c0 = Math.max(0, p - 3);
  const c1 = Math.min(a.length, a.length - q + 3);
  const removed = a.slice(p, a.length - q);
  const added = b.slice(p, b.length - q);
  const oldLen = c1 - c0;
  const newLen = oldLen - removed.length + added.length;
  const at = (len: number) => (len === 0 ? c0 : c0 + 1);
  const body = [
    ...hunkLines(' ', a.slice(c0, p)),
    ...hunkLines('-', removed),
    ...hunkLines('+', added),
    ...hunkLines(' ', a.slice(a.length - q, c1)),
  ];
  const diff = [`--- a/${oldPath}`, `+++ b/${newPath}`, `@@ -${at(oldLen)},${oldLen} +${at(newLen)},${newLen} @@`, ...body].join('\n');
  return { diff: `${diff}\n`, added: added.length, removed: removed.length, exact: false };
}

/** Diff two versions of a file (working text, LF); a minimal diff within maxMs, else a coarse one. Never throws. */
export function diffFiles(oldPath: string, newPath: string, before: string, after: string, maxMs: number): FileDiff {
  if (before === after) return { diff: '', added: 0, removed: 0, exact: true };
  const patch = structuredPatch(`a/${oldPath}`, `b/${newPath}`, before, after, undefined, undefined, { context: 3, timeout: maxMs });
  if (!patch) return coarseDiff(oldPath, newPath, before, after);
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  }
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), added, removed, exact: true };
}

/** "+3 −1 lines" (U+2212 minus, like the page shows it). */
export function diffSummary(added: number, removed: number): string {
  return `+${formatCount(added)} \u2212${formatCount(removed)} lines`;
}

/** The diff as the model sees it: cut to maxBytes on a line, with a note and a truncation record. */
export function diffForModel(diff: string, maxBytes: number): { text: string; truncation: Truncation | null; note?: string } {
  const c = cutHead(diff, maxBytes);
  if (!c.cut) return { text: diff, truncation: null };
  const omittedLines = c.totalLines - c.shownLines;
  const note =
    `[Diff cut at ${formatBytes(c.shownBytes)} of ${formatBytes(c.totalBytes)} (${formatCount(omittedLines)} lines omitted). ` +
    'The change was applied in full; read_file the file to see the rest.]';
  const body = c.text.endsWith('\n') ? c.text : `${c.text}\n`;
  return {
    text: `${body}${note}`,
    note,
    truncation: { unit: 'bytes', shown: c.shownBytes, total: c.totalBytes, omittedLines, by: 'tool' },
  };
}

/** A stretch of the file shown when old text was not found (1-based, inclusive). */
export interface Region {
  startLine: number;
  endLine: number;
  lines: string[];
  /** 0–1, how alike the region and the wanted text are */
  score: number;
}

function levenshtein<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

// a character-level Levenshtein table of this many cells takes tens of milliseconds; bigger
// texts are compared line by line, then by shared character pairs
const LEVENSHTEIN_MAX_CELLS = 4_000_000;

/** Levenshtein similarity ratio (1 = identical, 0 = nothing alike). */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  if (a.length * b.length <= LEVENSHTEIN_MAX_CELLS) return 1 - levenshtein(a, b) / Math.max(a.length, b.length);
  const la = a.split('\n');
  const lb = b.split('\n');
  if (la.length * lb.length <= LEVENSHTEIN_MAX_CELLS) return 1 - levenshtein(la, lb) / Math.max(la.length, lb.length);
  return dice(bigrams(a), b);
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Dice coefficient over character pairs: cheap enough to score every line of a large file. */
function dice(a: Map<string, number>, b: string): number {
  let aTotal = 0;
  for (const n of a.values()) aTotal += n;
  if (aTotal === 0 || b.length < 2) return 0;
  const left = new Map(a);
  let shared = 0;
  for (let i = 0; i + 1 < b.length; i++) {
    const g = b.slice(i, i + 2);
    const n = left.get(g);
    if (n) {
      shared++;
      left.set(g, n - 1);
    }
  }
  return (2 * shared) / (aTotal + b.length - 1);
}

function lineLikeness(a: string, b: string): number {
  if (a === b) return 1;
  if (!a || !b) return 0;
  return dice(bigrams(a), b);
}

/**
 * The window of file lines most like the wanted lines: probe with the first few non-blank wanted
 * lines, then score each candidate window line by line. undefined when nothing is alike.
 */
export function similarTextRegion(file: string[], want: string[], maxLines: number): Region | undefined {
  const probes = want.map((l, i) => ({ text: l.trim(), i })).filter((p) => p.text.length >= 2).slice(0, 3);
  const starts = new Set<number>();
  for (const p of probes) {
    const g = bigrams(p.text);
    const scored = file.map((l, idx) => ({ idx, s: dice(g, l.trim()) })).filter((x) => x.s > 0);
    scored.sort((x, y) => y.s - x.s || x.idx - y.idx);
    for (const x of scored.slice(0, 3)) starts.add(Math.max(0, x.idx - p.i));
  }
  const span = Math.min(want.length, 20);
  let best: { start: number; score: number } | undefined;
  for (const start of [...starts].sort((x, y) => x - y)) {
    let sum = 0;
    for (let t = 0; t < span; t++) sum += lineLikeness(want[t].trim(), (file[start + t] ?? '').trim());
    const score = sum / Math.max(1, span);
    if (!best || score > best.score) best = { start, score };
  }
  if (!best || best.score < 0.3) return undefined;
  const end = Math.min(file.length, best.start + Math.max(1, Math.min(want.length, maxLines)));
  return { startLine: best.start + 1, endLine: end, lines: file.slice(best.start, end), score: best.score };
}
