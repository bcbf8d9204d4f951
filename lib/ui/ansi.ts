import Anser from 'anser';

/**
 * ANSI SGR colours to styled text runs, for the log viewer and the task tails. Pure (no React):
 * the component in components/ansi-line.tsx renders the runs as spans. Each line is parsed on
 * its own, so a colour left open at the end of one line does not carry into the next.
 */

export interface AnsiStyle {
  color?: string;
  backgroundColor?: string;
  fontWeight?: number;
  fontStyle?: 'italic';
  textDecoration?: string;
  opacity?: number;
  visibility?: 'hidden';
}

export interface AnsiSpan {
  text: string;
  /** absent for plain text */
  style?: AnsiStyle;
}

const ESC = '\u001b';
/** OSC sequences (window titles, hyperlinks), ended by BEL or ST; anser leaves them in the text */
const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

const rgb = (v: string | null | undefined): string | undefined => (v ? `rgb(${v})` : undefined);

/** Split one line into styled runs; text without an escape comes back as a single plain run. Never throws. */
export function ansiSpans(line: string): AnsiSpan[] {
  if (!line.includes(ESC)) return line ? [{ text: line }] : [];
  let entries: Anser.AnserJsonEntry[];
  try {
    entries = Anser.ansiToJson(line.replace(OSC, () => ''), { json: true, remove_empty: true });
  } catch {
    return [{ text: stripAnsi(line) }];
  }
  const spans: AnsiSpan[] = [];
  for (const e of entries) {
    if (!e.content) continue;
    const style = styleOf(e);
    const prev = spans[spans.length - 1];
    // adjacent runs with the same style merge, so a line is as few spans as possible
    if (prev && sameStyle(prev.style, style)) prev.text += e.content;
    else spans.push(style ? { text: e.content, style } : { text: e.content });
  }
  return spans;
}

/** The visible text of a line, without escape sequences. */
export function stripAnsi(line: string): string {
  if (!line.includes(ESC)) return line;
  // OSC first (its body may hold '['), then CSI sequences and two-byte escapes
  return line.replace(OSC, () => '').replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g, () => '');
}

function styleOf(e: Anser.AnserJsonEntry): AnsiStyle | undefined {
  const s: AnsiStyle = {};
  // anser applies `reverse` itself (it swaps fg and bg and drops the decoration)
  const fg = rgb(e.fg_truecolor) ?? rgb(e.fg);
  const bg = rgb(e.bg_truecolor) ?? rgb(e.bg);
  const decorations = e.decorations ?? [];
  if (fg) s.color = fg;
  if (bg) s.backgroundColor = bg;
  if (decorations.includes('bold')) s.fontWeight = 600;
  if (decorations.includes('dim')) s.opacity = 0.7;
  if (decorations.includes('italic')) s.fontStyle = 'italic';
  const lines = [decorations.includes('underline') && 'underline', decorations.includes('strikethrough') && 'line-through'].filter(Boolean);
  if (lines.length) s.textDecoration = lines.join(' ');
  if (decorations.includes('hidden')) s.visibility = 'hidden';
  return Object.keys(s).length ? s : undefined;
}

function sameStyle(a: AnsiStyle | undefined, b: AnsiStyle | undefined): boolean {
  if (!a || !b) return a === b;
  const ka = Object.keys(a) as (keyof AnsiStyle)[];
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
