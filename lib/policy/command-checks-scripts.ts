/**
 * Judging awk and sed scripts: `system()`, pipes and `getline` in awk, sed's `e` and `w` commands.
 */
import { finding, q, skipOptions, type Check } from './command-check-kit';

// ——— awk and sed scripts ———

const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);
const AWK_EXEC = /\bsystem\s*\(|\|\s*&?\s*getline|"\s*\|\s*[&"]|\|&|\bprint[f]?\b[^;}]*\|/;
const AWK_WRITE = /\bprint[f]?\b[^;}]*>/;

/** awk: a program that runs commands (system(), pipes) is opaque; one that writes files is not read-only. */
export function awkCheck(c: Check): boolean {
  if (!AWK.has(c.base)) return false;
  const i = skipOptions(c.vals, ['-F', '-v', '-f', '--file', '-e', '--source', '-i', '--include', '-l', '--load']);
  const fileOpt = c.vals.slice(0, i).some((v) => v === '-f' || v.startsWith('--file') || v === '-i' || v === '-l');
  const program = c.args[i];
  const text = q(c.env.sub.text);
  c.env.sub.readOnly = false;
  if (fileOpt) finding(c, { opaque: true, reason: `${text} runs an awk program from a file` });
  else if (!program) return false;
  else if (program.value === null) finding(c, { opaque: true, reason: `${text} runs an awk program only known when it runs` });
  else if (AWK_EXEC.test(program.value)) finding(c, { opaque: true, reason: `${text} runs shell commands from its awk program` });
  else if (!AWK_WRITE.test(program.value)) c.env.sub.readOnly = true;
  return false;
}

/** sed's `e` command and `s///e` run shell commands; `w`/`W` and `s///w` write files. */
const SED_EXEC = /(^|[;\n{}]|\d|\$|\/)\s*e(\s|;|$)|s(.).*?\3.*?\3[gpiImM0-9]*e/;
const SED_WRITE = /(^|[;\n{}]|\d|\$|\/)\s*[wW]\s+\S|s(.).*?\2.*?\2[gpiImMe0-9]*w\s*\S/;

export function sedScriptCheck(c: Check): void {
  if (c.base !== 'sed' && c.base !== 'gsed') return;
  const scripts: string[] = [];
  let fromFile = false;
  let explicit = false;
  for (let i = 0; i < c.vals.length; i++) {
    const v = c.vals[i]!;
    if (v === '-e' || v === '--expression') {
      explicit = true;
      scripts.push(c.vals[++i] ?? '');
    } else if (v.startsWith('--expression=')) {
      explicit = true;
      scripts.push(v.slice(13));
    } else if (v === '-f' || v.startsWith('--file')) fromFile = true;
  }
  if (!explicit && !fromFile) {
    const first = c.vals.findIndex((v, i) => !v.startsWith('-') && c.vals[i - 1] !== '-l' && c.vals[i - 1] !== '--line-length');
    if (first >= 0) scripts.push(c.vals[first]!);
  }
  const text = q(c.env.sub.text);
  if (fromFile) finding(c, { opaque: true, reason: `${text} runs a sed script from a file` });
  if (scripts.some((s) => SED_EXEC.test(s))) finding(c, { opaque: true, reason: `${text} runs shell commands from its sed script (e)` });
  else if (scripts.some((s) => SED_WRITE.test(s))) {
    finding(c, { reason: `${text} writes files named in its sed script (w)` });
    c.env.sub.readOnly = false;
  }
}
