/**
 * Indentation for the edit_file cascade: a file's indent unit, and re-indenting new_string from
 * the indentation old_string was written at to the file's, level for level (pure functions).
 */

/** Columns a tab stands for when a tab-indented line is measured in levels. */
const TAB_COLUMNS = 4;

const leadOf = (l: string) => l.length - l.trimStart().length;
const isBlank = (l: string) => l.trim() === '';
/** A block-comment continuation (" * text"): its odd space is alignment, not a level. */
const isAlignment = (l: string) => l.trimStart().startsWith('*');
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * The unit one level of indentation is written in: "\t" when most indented lines start with a
 * tab, else as many spaces as the gcd of the space widths (at least 2); null when the lines say
 * nothing (none indented, or widths that share no unit).
 */
export function indentUnit(lines: Iterable<string>): string | null {
  let tabbed = 0;
  let spaced = 0;
  let g = 0;
  for (const l of lines) {
    if (isBlank(l) || leadOf(l) === 0) continue;
    if (l[0] === '\t') {
      tabbed++;
      continue;
    }
    if (l[0] !== ' ') continue;
    const w = leadOf(l.replace(/\t/g, ' '.repeat(TAB_COLUMNS)));
    if (isAlignment(l) && w % 2 === 1) continue;
    spaced++;
    g = gcd(g, w);
  }
  if (tabbed === 0 && spaced === 0) return null;
  if (tabbed >= spaced) return '\t';
  return g >= 2 ? ' '.repeat(g) : null;
}

/** Width of a lead in columns, and the columns of one level, for a unit. */
function measure(lead: string, unit: string): { cols: number; level: number } {
  const level = unit === '\t' ? TAB_COLUMNS : unit.length;
  let cols = 0;
  for (const ch of lead) cols += ch === '\t' ? level : 1;
  return { cols, level };
}

/** A lead of `cols` columns written in `unit`: whole levels in the unit, the remainder in spaces. */
function write(cols: number, unit: string): string {
  const { level } = measure('', unit);
  return unit.repeat(Math.floor(cols / level)) + ' '.repeat(cols % level);
}

/**
 * Re-indent text written for indentation `from` so it sits at `to` (relative indentation kept).
 * With both units known and different, each line's depth below `from` is counted in levels of
 * fromUnit and written in levels of toUnit (tabs for tabs, four spaces for two …); a remainder
 * smaller than a level (the " * " of a block comment) stays spaces. Otherwise the characters after
 * `from` are kept as they are.
 */
export function reindent(text: string, from: string, to: string, fromUnit: string | null = null, toUnit: string | null = null): string {
  const convert = fromUnit !== null && toUnit !== null && fromUnit !== toUnit;
  if (from === to && !convert) return text;
  return text
    .split('\n')
    .map((line) => {
      if (isBlank(line)) return line;
      if (!convert) {
        if (line.startsWith(from)) return to + line.slice(from.length);
        if (to.length > from.length) return to.slice(0, to.length - from.length) + line;
        return line.slice(Math.min(leadOf(line), from.length - to.length));
      }
      const base = measure(from, fromUnit).cols;
      const { cols, level } = measure(line.slice(0, leadOf(line)), fromUnit);
      const rel = cols - base;
      const levels = Math.floor(Math.abs(rel) / level) * Math.sign(rel);
      const rest = Math.abs(rel) % level;
      const body = line.trimStart();
      if (rel >= 0) return to + toUnit.repeat(levels) + ' '.repeat(rest) + body;
      const target = Math.max(0, measure(to, toUnit).cols + levels * measure('', toUnit).level);
      return write(target, toUnit) + body;
    })
    .join('\n');
}
