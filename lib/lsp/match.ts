/**
 * Which errors a change introduced: the errors after it, less those that were there before. Errors are
 * grouped by severity, code and message; within a group the count decides how many are new (a group
 * that did not grow has no new error, wherever its errors moved), and the positions decide which:
 * an error on a line the change left alone, at that line's new number, is the same error as before.
 */
import { diffLines } from 'diff';
import type { RawDiagnostic } from './raw-diagnostic';

/** Longest time spent diffing the two texts for the line map; past it only the common head and tail map. */
const LINE_MAP_DIFF_MAX_MS = 200;

/** For each 1-based line of the old text that the change left alone, its 1-based line in the new text. */
export function lineMap(before: string, after: string): Map<number, number> {
  const map = new Map<number, number>();
  // a last line without its newline would differ from the same line with one
  const nl = (t: string) => (t.endsWith('\n') ? t : `${t}\n`);
  const changes = diffLines(nl(before), nl(after), { timeout: LINE_MAP_DIFF_MAX_MS });
  if (changes) {
    let oldLine = 1;
    let newLine = 1;
    for (const c of changes) {
      const n = c.count ?? 0;
      if (c.added) newLine += n;
      else if (c.removed) oldLine += n;
      else {
        for (let i = 0; i < n; i++) map.set(oldLine + i, newLine + i);
        oldLine += n;
        newLine += n;
      }
    }
    return map;
  }
  // the diff took too long: the lines before the first and after the last difference still map
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  for (let i = 1; i <= head; i++) map.set(i, i);
  for (let i = 0; i < tail; i++) map.set(a.length - i, b.length - i);
  return map;
}

const keyOf = (d: RawDiagnostic) => `${d.severity}\u0000${d.code ?? ''}\u0000${d.message}`;

/** The errors of `after` that `baseline` does not account for, in line order; and how many were accounted for. */
export function newErrors(baseline: RawDiagnostic[], after: RawDiagnostic[], before: string | null, afterText: string): { fresh: RawDiagnostic[]; preexisting: number } {
  const errors = (ds: RawDiagnostic[]) => ds.filter((d) => d.severity === 'error');
  const now = errors(after);
  const old = before === null ? [] : errors(baseline);
  if (old.length === 0) return { fresh: sortByLine(now), preexisting: 0 };
  const map = lineMap(before ?? '', afterText);
  const unchangedNewLines = new Set(map.values());
  const groups = new Map<string, { now: RawDiagnostic[]; old: RawDiagnostic[] }>();
  for (const d of now) (groups.get(keyOf(d)) ?? groups.set(keyOf(d), { now: [], old: [] }).get(keyOf(d))!).now.push(d);
  for (const d of old) groups.get(keyOf(d))?.old.push(d);
  const fresh: RawDiagnostic[] = [];
  let preexisting = 0;
  for (const g of groups.values()) {
    const grew = Math.max(0, g.now.length - g.old.length);
    preexisting += g.now.length - grew;
    if (grew === 0) continue;
    const free = [...g.old];
    const take = (pred: (o: RawDiagnostic) => boolean) => {
      const i = free.findIndex(pred);
      return i >= 0 ? (free.splice(i, 1), true) : false;
    };
    // the same error, moved with its unchanged line; then an error still on a line the change rewrote
    const unmatched = g.now.filter((d) => !take((o) => map.get(o.line) === d.line));
    const rest = unmatched.filter((d) => unchangedNewLines.has(d.line) || !take((o) => !map.has(o.line)));
    // of those left, the ones on changed lines are the likelier new ones
    rest.sort((x, y) => Number(unchangedNewLines.has(x.line)) - Number(unchangedNewLines.has(y.line)) || x.line - y.line);
    fresh.push(...rest.slice(0, grew));
  }
  return { fresh: sortByLine(fresh), preexisting };
}

function sortByLine(ds: RawDiagnostic[]): RawDiagnostic[] {
  return [...ds].sort((a, b) => a.line - b.line || a.column - b.column);
}
