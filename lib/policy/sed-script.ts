/**
 * Reading a sed script command by command (GNU syntax), so that `e` and `s///e` (run a command) and
 * `w`/`W`/`s///w` (write a file) are found behind any address, negation or grouping. A script that
 * cannot be read to its end says why (the caller asks).
 */
import { q } from './command-check-kit';

export interface SedEffects {
  exec: boolean;
  /** files a w/W command or s///w flag writes */
  writes: string[];
  /** why the script could not be read to its end */
  unreadable: string | null;
}

/** Commands without an argument that matters here ('l' takes a line length). */
const PLAIN = 'dDgGhHxnNpPzFl';

/** A cursor over one script; each method reads one piece of the grammar from `i` on. */
class SedReader {
  i = 0;
  private readonly n: number;

  constructor(private readonly script: string) {
    this.n = script.length;
  }

  /** Past separators and comments to the next command; false at the end of the script. */
  nextCommand(): boolean {
    const { script, n } = this;
    for (;;) {
      while (this.i < n && /[\s;}]/.test(script[this.i]!)) this.i++;
      if (this.i >= n) return false;
      if (script[this.i] !== '#') return true;
      this.line();
    }
  }

  /** The command's addresses (one, or a range) and any `!`; the reason when a range cannot be read. */
  addresses(): string | null {
    const { script, n } = this;
    if (this.address()) {
      this.blanks();
      if (script[this.i] === ',') {
        this.i++;
        this.blanks();
        if (script[this.i] === '+' || script[this.i] === '~') for (this.i++; this.i < n && /[0-9]/.test(script[this.i]!); ) this.i++;
        else if (!this.address()) return 'an address range it cannot read';
      }
    }
    this.blanks();
    while (script[this.i] === '!') {
      this.i++;
      this.blanks();
    }
    return null;
  }

  /** One command and its arguments, adding what it runs or writes to `out`; the reason when it cannot be read. */
  command(out: SedEffects): string | null {
    const { script, n } = this;
    const cmd = script[this.i++];
    if (cmd === '{' || cmd === '=' || (cmd !== undefined && PLAIN.includes(cmd))) {
      if (cmd === 'l') while (this.i < n && /[0-9]/.test(script[this.i]!)) this.i++;
      return null;
    }
    switch (cmd) {
      case 's':
        return this.substitute(out);
      case 'y': {
        const d = script[this.i++];
        return !d || !this.upTo(d) || !this.upTo(d) ? 'a y command it cannot read' : null;
      }
      case 'a': case 'i': case 'c':
        // text to the end of the line; a backslash-newline continues it
        while (this.i < n && script[this.i] !== '\n') this.i += script[this.i] === '\\' ? 2 : 1;
        return null;
      case 'r': case 'R':
        this.line();
        return null;
      case 'w': case 'W':
        out.writes.push(this.line());
        return null;
      case 'e':
        out.exec = true;
        this.line();
        return null;
      case 'b': case 't': case 'T': case ':': case 'v':
        while (this.i < n && script[this.i] !== ';' && script[this.i] !== '\n') this.i++;
        return null;
      case 'q': case 'Q': case 'L':
        while (this.i < n && /[0-9 ]/.test(script[this.i]!)) this.i++;
        return null;
      default:
        return `the command ${q(cmd ?? '')} it does not know`;
    }
  }

  /** `s/re/text/flags`: the e flag runs the pattern space, w writes a file. */
  private substitute(out: SedEffects): string | null {
    const { script, n } = this;
    const d = script[this.i++];
    if (!d || d === '\n' || d === '\\' || !this.upTo(d) || !this.upTo(d)) return 'an s command it cannot read';
    while (this.i < n && /[gpiImMe0-9]/.test(script[this.i]!)) if (script[this.i++] === 'e') out.exec = true;
    if (script[this.i] === 'w') {
      this.i++;
      out.writes.push(this.line());
    }
    return null;
  }

  /** One address: a line number, `$`, a step, or a regex with its flags; false when there is none (or it does not end). */
  private address(): boolean {
    const { script, n } = this;
    this.blanks();
    const ch = script[this.i];
    if (ch !== undefined && /[0-9$]/.test(ch)) {
      this.i++;
      while (this.i < n && /[0-9~]/.test(script[this.i]!)) this.i++;
      return true;
    }
    if (ch === '/' || ch === '\\') {
      const d = ch === '/' ? '/' : script[++this.i];
      this.i++;
      if (!d || !this.upTo(d)) return false;
      while (this.i < n && /[IM]/.test(script[this.i]!)) this.i++;
      return true;
    }
    return false;
  }

  private blanks(): void {
    while (this.i < this.n && (this.script[this.i] === ' ' || this.script[this.i] === '\t')) this.i++;
  }

  /** The rest of the line, trimmed (a file name, a label, a comment). */
  private line(): string {
    const start = this.i;
    while (this.i < this.n && this.script[this.i] !== '\n') this.i++;
    return this.script.slice(start, this.i).trim();
  }

  /** Up to the unescaped delimiter; false when the script ends first. */
  private upTo(d: string): boolean {
    while (this.i < this.n) {
      if (this.script[this.i] === '\\') this.i += 2;
      else if (this.script[this.i++] === d) return true;
    }
    return false;
  }
}

/** Read a sed script command by command (GNU syntax): what it runs and what it writes. */
export function sedEffects(script: string): SedEffects {
  const out: SedEffects = { exec: false, writes: [], unreadable: null };
  const r = new SedReader(script);
  while (r.nextCommand()) {
    const why = r.addresses() ?? r.command(out);
    if (why) return { ...out, unreadable: why };
  }
  return out;
}
