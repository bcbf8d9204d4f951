/**
 * The escapes matcher of the edit_file cascade: old_string written with literal escape sequences
 * (backslash-n, \", \', \`, \$, \\ …) where the file has the characters themselves. Each sequence may
 * match either its escaped or its plain form, so a file that uses some escapes itself still matches.
 */
import type { Candidate } from './matchers';

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', "'": "'", '`': '`', '\\': '\\', $: '$', '/': '/' };
const ESCAPE = /\\([ntr"'`\\$/])/g;
const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`);

/** Turn literal escape sequences (backslash-n …) into the characters they stand for; only `kinds` when given. */
export function unescapeLiteral(s: string, kinds?: ReadonlySet<string>): string {
  return s.replace(ESCAPE, (m, c: string) => (!kinds || kinds.has(c) ? ESCAPES[c] : m));
}

/**
 * Spans where old_string matches with its escape sequences read as the characters they stand for.
 * new_string is unescaped the same way, per kind: a kind the span has plain is unescaped, one the
 * span writes escaped is left as typed; kinds old_string does not use are unescaped only where the
 * span has no backslash at all (the model escaped its whole argument).
 */
export function escapeMatches(content: string, old: string, neu: string, notes: string[]): Candidate[] {
  const kinds: string[] = [];
  let src = '';
  let at = 0;
  for (const m of old.matchAll(ESCAPE)) {
    kinds.push(m[1]);
    // each sequence matches its escaped or its plain form, atomically (a lookahead group, then its backreference): no backtracking
    src += `${reEscape(old.slice(at, m.index))}(?=(${reEscape(m[0])}|${reEscape(ESCAPES[m[1]])}))\\${kinds.length}`;
    at = m.index + m[0].length;
  }
  if (kinds.length === 0) return [];
  src += reEscape(old.slice(at));
  const re = new RegExp(src, 'g');
  const out: Candidate[] = [];
  let unescaped = false;
  for (let m = re.exec(content); m !== null; m = re.exec(content)) {
    const kept = new Set<string>();
    const plain = new Set<string>();
    kinds.forEach((c, i) => (m![i + 1].length === 2 ? kept : plain).add(c));
    if (plain.size === 0) continue; // written exactly as in old_string: the exact matcher's business
    const span = m[0];
    const undo = span.includes('\\')
      ? new Set([...plain].filter((c) => !kept.has(c)))
      : new Set(Object.keys(ESCAPES));
    const replacement = unescapeLiteral(neu, undo);
    if (replacement !== neu) unescaped = true;
    out.push({ start: m.index, end: m.index + span.length, replacement });
  }
  if (unescaped) notes.push('new_string was unescaped the same way');
  return out;
}
