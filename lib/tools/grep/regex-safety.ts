/**
 * A guard against regular expressions that can take exponential time (catastrophic backtracking).
 * JavaScript regexes cannot be interrupted, so one such pattern on one long line would stall the
 * whole server. The classic shape is a repeated group that itself repeats: (a+)+, (\w*)*, (x+y?){2,}.
 * This finds that shape; it does not prove a pattern safe (overlapping alternations like (a|a)+ pass).
 */

/** Whether a variable repetition starts at src[i]: + * {n,} or {n,m} with m > n (not ? and not an exact {n}). */
function repeatsAt(src: string, i: number): boolean {
  const c = src[i];
  if (c === '+' || c === '*') return true;
  if (c !== '{') return false;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
  if (!m) return false;
  if (m[2] === undefined) return false;
  return m[3] === '' || Number(m[3]) > Number(m[1]);
}

/** The first repeated group that contains a repetition, as it is written in the pattern; undefined when there is none. */
export function nestedRepetition(src: string): string | undefined {
  // each open group: where it starts, and whether something inside it repeats
  const stack: { start: number; repeats: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++; // an escaped character is a literal (or a class like \w), never a quantifier
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(') {
      stack.push({ start: i, repeats: false });
      continue;
    }
    if (c === ')') {
      const g = stack.pop();
      if (!g) continue;
      const repeated = repeatsAt(src, i + 1);
      if (repeated && g.repeats) {
        const q = /^(\+|\*|\{[\d,]*\})/.exec(src.slice(i + 1))?.[0] ?? '';
        return src.slice(g.start, i + 1) + q;
      }
      // a group that repeats, or holds a repetition, makes its parent hold one
      if ((repeated || g.repeats) && stack.length) stack[stack.length - 1].repeats = true;
      continue;
    }
    if (repeatsAt(src, i) && stack.length) stack[stack.length - 1].repeats = true;
  }
  return undefined;
}
