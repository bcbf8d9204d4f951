/**
 * The edit_file match cascade (pure functions, no I/O). Models recite old text from memory and
 * drift in predictable ways; each matcher forgives one kind of drift, strictest first, and
 * returns spans in the ORIGINAL content with new_string adapted to each span. A guard refuses a
 * loose match whose span is much larger than old_string, so forgiveness never rewrites a
 * whole function because its first and last lines matched.
 */
import { similarity, similarTextRegion, type Region } from '../common/diff';
import { escapeMatches, unescapeLiteral } from './escapes';
import { indentUnit, reindent } from './indent';

export type MatcherName = 'exact' | 'trailing-whitespace' | 'indentation' | 'tabs' | 'inner-whitespace' | 'escapes' | 'blank-lines' | 'anchors';

/** How each loose matcher is named to the model: "matched with <label> (loose matcher: <name>)". */
export const MATCHER_LABELS: Record<MatcherName, string> = {
  exact: 'an exact match',
  'trailing-whitespace': 'trailing-whitespace drift',
  indentation: 'indentation drift',
  tabs: 'tabs/spaces drift',
  'inner-whitespace': 'different runs of spaces or tabs inside lines',
  escapes: 'escaped characters written literally (\\n, \\t, \\", \\\', \\$ …)',
  'blank-lines': 'blank-line differences',
  anchors: 'first/last-line anchors and a similar middle',
};

/** One place old_string matched: [start, end) in the content, and what goes there. */
export interface Candidate {
  start: number;
  end: number;
  /** new_string as it goes into this span (re-indented or unescaped by the matcher) */
  replacement: string;
}

export interface MatchLimits {
  spanMaxRatio: number;
  slackLines: number;
  slackBytes: number;
  anchorMinSimilarity: number;
}

/** A loose match refused by the disproportion guard. */
export interface Oversized {
  matcher: MatcherName;
  startLine: number;
  endLine: number;
  spanLines: number;
  spanBytes: number;
  oldLines: number;
  oldBytes: number;
}

export type MatchOutcome =
  | { kind: 'match'; matcher: MatcherName; candidates: Candidate[]; notes: string[] }
  | { kind: 'disproportionate'; refused: Oversized }
  | { kind: 'not-found' };

interface Lines {
  lines: string[];
  starts: number[];
}

function splitLines(s: string): Lines {
  const lines = s.split('\n');
  const starts: number[] = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += l.length + 1;
  }
  return { lines, starts };
}

/** 0-based index of the line holding a character offset (binary search over line starts). */
function lineIndex(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** 1-based line numbers of character offsets in content. */
export function lineNumbersAt(content: string, offsets: number[]): number[] {
  const { starts } = splitLines(content);
  return offsets.map((o) => lineIndex(starts, o) + 1);
}

const leadOf = (l: string) => l.length - l.trimStart().length;
const isBlank = (l: string) => l.trim() === '';
/** bytes that carry meaning: each line without its surrounding whitespace */
const coreBytes = (s: string) => Buffer.byteLength(s.split('\n').map((l) => l.trim()).join('\n'), 'utf8');

/** old_string as lines; a trailing newline means the span takes the line break too. */
function oldLinesOf(old: string): { lines: string[]; trailingNl: boolean } {
  const lines = old.split('\n');
  const trailingNl = lines.length > 1 && lines[lines.length - 1] === '';
  if (trailingNl) lines.pop();
  return { lines, trailingNl };
}

function spanOf(f: Lines, first: number, last: number, trailingNl: boolean): { start: number; end: number } {
  const end = f.starts[last] + f.lines[last].length + (trailingNl && last < f.lines.length - 1 ? 1 : 0);
  return { start: f.starts[first], end };
}

/** How old_string and new_string are indented (one level), and how the file is; the file's is found once, when first asked. */
interface Units {
  old: string | null;
  file: () => string | null;
}

type WindowCheck = (i: number) => { last: number; replacement: string } | null;

/** Slide over the file; a window that passes becomes a candidate and the search resumes after it. */
function scanWindows(f: Lines, trailingNl: boolean, check: WindowCheck): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < f.lines.length; i++) {
    const hit = check(i);
    if (!hit) continue;
    out.push({ ...spanOf(f, i, hit.last, trailingNl), replacement: hit.replacement });
    i = hit.last;
  }
  return out;
}

function exactMatches(content: string, old: string, replacement: string): Candidate[] {
  const out: Candidate[] = [];
  for (let at = content.indexOf(old); at !== -1; at = content.indexOf(old, at + old.length)) {
    out.push({ start: at, end: at + old.length, replacement });
  }
  return out;
}

function trailingWhitespace(f: Lines, o: string[], nl: boolean, neu: string): Candidate[] {
  const want = o.map((l) => l.trimEnd());
  return scanWindows(f, nl, (i) => {
    if (i + o.length > f.lines.length) return null;
    for (let t = 0; t < o.length; t++) if (f.lines[i + t].trimEnd() !== want[t]) return null;
    return { last: i + o.length - 1, replacement: neu };
  });
}

function minIndent(lines: string[]): string {
  let best: string | undefined;
  for (const l of lines) {
    if (isBlank(l)) continue;
    const lead = l.slice(0, leadOf(l));
    if (best === undefined || lead.length < best.length) best = lead;
  }
  return best ?? '';
}

function indentation(f: Lines, o: string[], nl: boolean, neu: string, u: Units): Candidate[] {
  const oMin = minIndent(o);
  const want = o.map((l) => (isBlank(l) ? null : l.slice(oMin.length).trimEnd()));
  return scanWindows(f, nl, (i) => {
    if (i + o.length > f.lines.length) return null;
    const win = f.lines.slice(i, i + o.length);
    const fMin = minIndent(win);
    for (let t = 0; t < o.length; t++) {
      const w = want[t];
      if (w === null ? !isBlank(win[t]) : win[t].slice(fMin.length).trimEnd() !== w || !win[t].startsWith(fMin)) return null;
    }
    return { last: i + o.length - 1, replacement: reindent(neu, oMin, fMin, u.old, u.file()) };
  });
}

/** Indentation width in columns with tabs at width w. */
function columns(l: string, w: number): number {
  let c = 0;
  for (const ch of l.slice(0, leadOf(l))) c = ch === '\t' ? (Math.floor(c / w) + 1) * w : c + 1;
  return c;
}

function tabs(f: Lines, o: string[], nl: boolean, neu: string, content: string, old: string, u: Units): Candidate[] {
  if (!content.includes('\t') && !old.includes('\t')) return [];
  for (const w of [4, 8, 2]) {
    const oCols = o.map((l) => (isBlank(l) ? -1 : columns(l, w)));
    const oMin = Math.min(...oCols.filter((c) => c >= 0));
    const found = scanWindows(f, nl, (i) => {
      if (i + o.length > f.lines.length) return null;
      const win = f.lines.slice(i, i + o.length);
      const fCols = win.map((l) => (isBlank(l) ? -1 : columns(l, w)));
      const fMin = Math.min(...fCols.filter((c) => c >= 0));
      for (let t = 0; t < o.length; t++) {
        if ((oCols[t] < 0) !== (fCols[t] < 0)) return null;
        if (oCols[t] < 0) continue;
        if (oCols[t] - oMin !== fCols[t] - fMin || o[t].trim() !== win[t].trim()) return null;
      }
      // new_string goes in level for level, in the file's unit: tabs where the file uses tabs
      const useTabs = win.some((l) => l.slice(0, leadOf(l)).includes('\t'));
      const fileUnit = useTabs ? '\t' : (u.file() ?? ' '.repeat(w));
      const oldUnit = u.old ?? (o.some((l) => l.slice(0, leadOf(l)).includes('\t')) ? '\t' : ' '.repeat(w));
      const at = (lines: string[], cols: number[], min: number) => {
        const k = cols.indexOf(min);
        return k < 0 ? '' : lines[k].slice(0, leadOf(lines[k]));
      };
      const replacement = reindent(neu, at(o, oCols, oMin), at(win, fCols, fMin), oldUnit, fileUnit);
      return { last: i + o.length - 1, replacement };
    });
    if (found.length) return found;
  }
  return [];
}

const squeeze = (l: string) => l.trim().replace(/[ \t]+/g, ' ');

/** Runs of spaces and tabs inside lines differ ("const   x =" for "const x ="); new_string is re-indented to the file's indentation. */
function innerWhitespace(f: Lines, o: string[], nl: boolean, neu: string, u: Units): Candidate[] {
  const want = o.map(squeeze);
  const oMin = minIndent(o);
  return scanWindows(f, nl, (i) => {
    if (i + o.length > f.lines.length) return null;
    for (let t = 0; t < o.length; t++) if (squeeze(f.lines[i + t]) !== want[t]) return null;
    const win = f.lines.slice(i, i + o.length);
    return { last: i + o.length - 1, replacement: reindent(neu, oMin, minIndent(win), u.old, u.file()) };
  });
}

function blankLines(f: Lines, o: string[], nl: boolean, neu: string): Candidate[] {
  const want = o.filter((l) => !isBlank(l)).map((l) => l.trimEnd());
  if (want.length < 2) return [];
  return scanWindows(f, nl, (i) => {
    if (f.lines[i].trimEnd() !== want[0]) return null;
    let j = i;
    for (let t = 1; t < want.length; t++) {
      j++;
      while (j < f.lines.length && isBlank(f.lines[j])) j++;
      if (j >= f.lines.length || f.lines[j].trimEnd() !== want[t]) return null;
    }
    return { last: j, replacement: neu };
  });
}

interface AnchorResult {
  ok: Candidate[];
  oversized: { first: number; last: number }[];
}

function anchors(f: Lines, o: string[], nl: boolean, neu: string, lim: MatchLimits, allowedLines: number, allowedBytes: number, u: Units): AnchorResult {
  const res: AnchorResult = { ok: [], oversized: [] };
  if (o.length < 3) return res;
  const first = o[0].trim();
  const last = o[o.length - 1].trim();
  if (!first || !last) return res;
  const relLast = leadOf(o[o.length - 1]) - leadOf(o[0]);
  const oMiddle = o.slice(1, -1).map((l) => l.trim()).join('\n');
  // looking further than this cannot change the verdict: the span would be refused anyway
  const reach = Math.max(allowedLines * 10, 200);
  for (let i = 0; i < f.lines.length; i++) {
    if (f.lines[i].trim() !== first) continue;
    let j = i + 1;
    const stop = Math.min(f.lines.length, i + reach);
    while (j < stop && !(f.lines[j].trim() === last && leadOf(f.lines[j]) - leadOf(f.lines[i]) === relLast)) j++;
    if (j >= stop) continue;
    // oversized spans are kept so the guard can refuse them by name instead of "not found"
    if (j - i + 1 > allowedLines || coreBytes(f.lines.slice(i, j + 1).join('\n')) > allowedBytes) {
      res.oversized.push({ first: i, last: j });
      continue;
    }
    const fMiddle = f.lines.slice(i + 1, j).map((l) => l.trim()).join('\n');
    if (similarity(oMiddle, fMiddle) < lim.anchorMinSimilarity) continue;
    const from = o[0].slice(0, leadOf(o[0]));
    const to = f.lines[i].slice(0, leadOf(f.lines[i]));
    res.ok.push({ ...spanOf(f, i, j, nl), replacement: reindent(neu, from, to, u.old, u.file()) });
    i = j;
  }
  return res;
}

/**
 * Find old_string in content: exact first, then each loose matcher in turn. The first matcher with
 * an acceptable span wins. Loose spans far larger than old_string are refused (the guard); when
 * only refused spans were found the outcome says so. Pure; content and strings are working text (LF).
 */
export function findMatches(content: string, old: string, neu: string, lim: MatchLimits): MatchOutcome {
  const exact = exactMatches(content, old, neu);
  if (exact.length) return { kind: 'match', matcher: 'exact', candidates: exact, notes: [] };
  // whitespace-only old text would loosely match every blank stretch of the file
  if (old.trim() === '') return { kind: 'not-found' };

  const f = splitLines(content);
  const { lines: o, trailingNl: nl } = oldLinesOf(old);
  const oldLines = o.length;
  const oldBytes = coreBytes(old);
  const allowedLines = Math.floor(oldLines * lim.spanMaxRatio) + lim.slackLines;
  const allowedBytes = Math.floor(oldBytes * lim.spanMaxRatio) + lim.slackBytes;
  let refused: Oversized | undefined;
  let fileUnit: string | null | undefined;
  const units: Units = { old: indentUnit([...o, ...neu.split('\n')]), file: () => (fileUnit === undefined ? (fileUnit = indentUnit(f.lines)) : fileUnit) };

  const judge = (matcher: MatcherName, spans: { first: number; last: number; cand?: Candidate }[], notes: string[]): MatchOutcome | undefined => {
    // the escapes matcher searched for the unescaped text: measure the span against that
    const eff = matcher === 'escapes' ? unescapeLiteral(old) : old;
    const effLines = matcher === 'escapes' ? oldLinesOf(eff).lines.length : oldLines;
    const effBytes = matcher === 'escapes' ? coreBytes(eff) : oldBytes;
    const maxLines = Math.floor(effLines * lim.spanMaxRatio) + lim.slackLines;
    const maxBytes = Math.floor(effBytes * lim.spanMaxRatio) + lim.slackBytes;
    const ok: Candidate[] = [];
    for (const s of spans) {
      const spanLines = s.last - s.first + 1;
      const spanBytes = coreBytes(f.lines.slice(s.first, s.last + 1).join('\n'));
      if (s.cand && spanLines <= maxLines && spanBytes <= maxBytes) ok.push(s.cand);
      else refused ??= { matcher, startLine: s.first + 1, endLine: s.last + 1, spanLines, spanBytes, oldLines: effLines, oldBytes: effBytes };
    }
    return ok.length ? { kind: 'match', matcher, candidates: ok, notes } : undefined;
  };
  const withLines = (cands: Candidate[]) =>
    cands.map((cand) => ({ first: lineIndex(f.starts, cand.start), last: lineIndex(f.starts, Math.max(cand.start, cand.end - 1)), cand }));

  const steps: [MatcherName, (notes: string[]) => Candidate[]][] = [
    ['trailing-whitespace', () => trailingWhitespace(f, o, nl, neu)],
    ['indentation', () => indentation(f, o, nl, neu, units)],
    ['tabs', () => tabs(f, o, nl, neu, content, old, units)],
    ['inner-whitespace', () => innerWhitespace(f, o, nl, neu, units)],
    ['escapes', (notes) => escapeMatches(content, old, neu, notes)],
    ['blank-lines', () => blankLines(f, o, nl, neu)],
  ];
  for (const [name, run] of steps) {
    const notes: string[] = [];
    const hit = judge(name, withLines(run(notes)), notes);
    if (hit) return hit;
  }
  const a = anchors(f, o, nl, neu, lim, allowedLines, allowedBytes, units);
  const hit = judge('anchors', [...withLines(a.ok), ...a.oversized], []);
  if (hit) return hit;
  return refused ? { kind: 'disproportionate', refused } : { kind: 'not-found' };
}

/** Splice candidates (non-overlapping, in order) into content; replacements are inserted literally. */
export function applyCandidates(content: string, candidates: Candidate[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const c of [...candidates].sort((x, y) => x.start - y.start)) {
    parts.push(content.slice(at, c.start), c.replacement);
    at = c.end;
  }
  parts.push(content.slice(at));
  return parts.join('');
}

/** The part of content that looks most like the wanted text, for "not found" errors. */
export function closestRegion(content: string, wanted: string, maxLines: number): Region | undefined {
  return similarTextRegion(content.split('\n'), oldLinesOf(wanted).lines, maxLines);
}

