/**
 * Judging awk and sed programs. awk: `system()`, pipes, `getline` from a command, gawk's `@load`/`@include` and
 * indirect calls run code; `print > file` writes; options can name a program file (-f, -E, -i), a library (-l),
 * a program text (-e/--source) or a file to write (-d, -o, -p). sed: the script is read command by command
 * (sed-script.ts), so `e` and `s///e` (run a command) and `w`/`W`/`s///w` (write a file) are found behind any
 * address, negation or grouping; a script that cannot be read asks.
 */
import { literalWord } from './shell-parse';
import { finding, q, writeCheck, type Check } from './command-check-kit';
import { usesLong } from './command-checks-more';
import { sedEffects } from './sed-script';

// ——— awk ———

const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);
const AWK_EXEC = /\bsystem\s*\(|\|\s*&?\s*getline|"\s*\|\s*[&"]|\|&|\bprint[f]?\b[^;}]*\||@(load|include)\b|@\w+\s*\(/;
const AWK_WRITE = /\bprint[f]?\b[^;}]*>/;

/** gawk's long options: what each does with its value. */
const AWK_LONG: Readonly<Record<string, 'file' | 'source' | 'write' | 'value' | 'debug'>> = {
  file: 'file', exec: 'file', include: 'file', load: 'file', source: 'source', 'dump-variables': 'write', 'pretty-print': 'write',
  profile: 'write', debug: 'debug', assign: 'value', 'field-separator': 'value',
};

/** awk: a program that runs commands, or comes from a file, is opaque; one that writes files is not read-only. */
export function awkCheck(c: Check): boolean {
  if (!AWK.has(c.base)) return false;
  const text = q(c.env.sub.text);
  const programs: (string | null)[] = [];
  const hidden: string[] = [];
  let writes = false;
  let i = 0;
  for (; i < c.args.length; i++) {
    const v = c.vals[i]!;
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-') || v === '-') break;
    if (v.startsWith('--')) {
      const long = usesLong([v], Object.keys(AWK_LONG))?.slice(2);
      const kind = long ? AWK_LONG[long] : undefined;
      const value = v.includes('=') ? v.slice(v.indexOf('=') + 1) : undefined;
      if (kind === 'source') programs.push(value ?? c.args[++i]?.value ?? null);
      else if (kind === 'file' || kind === 'debug') hidden.push(`--${long}`);
      else if (kind === 'write') writes = true;
      if ((kind === 'file' || kind === 'value') && value === undefined) i++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const l = v[k]!;
      const rest = v.slice(k + 1);
      if (l === 'F' || l === 'v') {
        if (!rest) i++;
        break;
      }
      if ('fEilD'.includes(l) || l === 'W') {
        // -W is mawk's and gawk's spelling of long options (-W exec file, -W source=…): the program is elsewhere
        hidden.push(`-${l}`);
        if (!rest && l !== 'D') i++;
        break;
      }
      if (l === 'e') {
        programs.push(rest || (c.args[++i]?.value ?? null));
        break;
      }
      if ('dop'.includes(l)) {
        writes = true;
        break;
      }
    }
  }
  if (programs.length === 0 && hidden.length === 0) {
    const program = c.args[i];
    if (!program) return false;
    programs.push(program.value);
  }
  c.env.sub.readOnly = false;
  if (hidden.length) finding(c, { opaque: true, reason: `${text} runs an awk program or library from a file (${hidden[0]})` });
  else if (programs.some((p) => p === null)) finding(c, { opaque: true, reason: `${text} runs an awk program only known when it runs` });
  else if (programs.some((p) => AWK_EXEC.test(p!))) finding(c, { opaque: true, reason: `${text} runs shell commands from its awk program` });
  else if (!writes && !programs.some((p) => AWK_WRITE.test(p!))) c.env.sub.readOnly = true;
  return false;
}

// ——— sed ———

/** sed: `e` and `s///e` run commands (opaque); `w` files are judged as writes; a script from a file is opaque. */
export function sedScriptCheck(c: Check): void {
  if (c.base !== 'sed' && c.base !== 'gsed') return;
  const scripts: string[] = [];
  let fromFile = false;
  let explicit = false;
  let first = -1;
  for (let i = 0; i < c.vals.length; i++) {
    const v = c.vals[i]!;
    if (v === '--') {
      first = i + 1 < c.vals.length ? i + 1 : -1;
      break;
    }
    if (v.startsWith('--')) {
      const [name, value] = [v.slice(2).split('=')[0]!, v.includes('=') ? v.slice(v.indexOf('=') + 1) : undefined];
      if ('expression'.startsWith(name) && name.length >= 3) {
        explicit = true;
        scripts.push(value ?? c.vals[++i] ?? '');
      } else if ('file'.startsWith(name) && name.length >= 2) fromFile = true;
      else if ('line-length'.startsWith(name) && name.length >= 2 && value === undefined) i++;
      continue;
    }
    if (!v.startsWith('-') || v === '-') {
      if (first < 0) first = i;
      continue;
    }
    // a short cluster: -e and -f take the rest or the next word, -l a number, -i an attached suffix
    for (let k = 1; k < v.length; k++) {
      const l = v[k]!;
      const rest = v.slice(k + 1);
      if (l === 'e' || l === 'f' || l === 'l') {
        const value = rest || c.vals[++i] || '';
        if (l === 'e') {
          explicit = true;
          scripts.push(value);
        } else if (l === 'f') fromFile = true;
        break;
      }
      if (l === 'i') break;
    }
  }
  if (!explicit && !fromFile && first >= 0) scripts.push(c.vals[first]!);
  const text = q(c.env.sub.text);
  if (fromFile) finding(c, { opaque: true, reason: `${text} runs a sed script from a file` });
  const effects = scripts.map(sedEffects);
  if (effects.some((e) => e.exec)) finding(c, { opaque: true, reason: `${text} runs shell commands from its sed script (e)` });
  const unreadable = effects.find((e) => e.unreadable)?.unreadable;
  if (unreadable) {
    c.env.sub.readOnly = false;
    finding(c, { reason: `${text} has a sed script Clamp cannot read (${unreadable})` });
  }
  // w /dev/stdout writes nothing: writeCheck says so
  for (const file of effects.flatMap((e) => e.writes)) {
    if (!file || writeCheck(c, literalWord(file))) c.env.sub.readOnly = false;
  }
}
