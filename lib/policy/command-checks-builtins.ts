/**
 * Bash builtins that run code, and those that evaluate their arguments. Running: `hash -p` (a later name runs
 * the program it names), `mapfile -C` and `compgen`/`complete -C` (a callback command), `-F` (a function),
 * `enable -f` (a shared object loaded into the shell), `bind -x`, `fc` (history re-run or an editor). Evaluating:
 * `printf -v`, `read`, `mapfile`, `getopts`, `wait -p` and `declare`/`local`/`export`/… take variable names,
 * `unset` and `test -v` read them, `let` takes arithmetic — an array subscript in any of them runs the code in it.
 */
import { literalWord, type Word } from './shell-parse';
import { finding, q, skipOptions, writeCheck, type Check, type Checker } from './command-check-kit';
import { wordEvaluation } from './command-evaluations';
import { judgeEnv, unknownEnvNote } from './command-env';

/** A variable name this builtin assigns: judged as a name (its subscript) and as an environment name. */
function assignsName(c: Check, w: Word, exported = false): void {
  c.env.evaluate(wordEvaluation(w, 'name', c.env.sub.text));
  const base = w.value?.replace(/\[.*$/s, '');
  if (base && /^[A-Za-z_]\w*$/.test(base) && judgeEnv(c, base, null, exported ? 'export' : 'assign')) unknownEnvNote(c, [base]);
}

/** The words given to single-letter options that take a value, in any spelling (-a x, -ax, -ra x). */
function optionValues(c: Check, letters: string): { letter: string; word: Word }[] {
  const out: { letter: string; word: Word }[] = [];
  for (let i = 0; i < c.args.length; i++) {
    const v = c.vals[i]!;
    if (v === '--' || !v.startsWith('-') || v.length < 2) break;
    for (let k = 1; k < v.length; k++) {
      if (!letters.includes(v[k]!)) continue;
      const attached = v.slice(k + 1);
      const word = attached ? { ...c.args[i]!, value: c.args[i]!.value === null ? null : attached } : c.args[++i];
      if (word) out.push({ letter: v[k]!, word });
      break;
    }
  }
  return out;
}

/** The operands after options whose values are the letters given. */
function operandsAfter(c: Check, valueLetters: string): Word[] {
  let i = 0;
  for (; i < c.args.length; i++) {
    const v = c.vals[i]!;
    if (v === '--') return c.args.slice(i + 1);
    if (!v.startsWith('-') || v.length < 2) break;
    const at = [...v.slice(1)].findIndex((l) => valueLetters.includes(l));
    if (at >= 0 && at === v.length - 2) i++;
  }
  return c.args.slice(i);
}

const code = (c: Check, word: Word | undefined, what: string): void => {
  c.env.sub.readOnly = false;
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} ${what}` });
  if (word?.value) c.env.script(`${word.value} 0 x`, `the command given to ${c.base}`);
};

const printfCheck: Checker = (c) => {
  for (const { word } of optionValues(c, 'v')) assignsName(c, word);
};

const readCheck: Checker = (c) => {
  for (const { letter, word } of optionValues(c, 'adinNptu')) if (letter === 'a') assignsName(c, word);
  for (const w of operandsAfter(c, 'adinNptu')) assignsName(c, w);
};

const mapfileCheck: Checker = (c) => {
  for (const { letter, word } of optionValues(c, 'dnOsuCc')) {
    if (letter === 'C') code(c, word, 'runs a callback command for the lines it reads');
  }
  for (const w of operandsAfter(c, 'dnOsuCc')) assignsName(c, w);
};

const getoptsCheck: Checker = (c) => {
  const name = c.args[1];
  if (name) assignsName(c, name);
};

const waitCheck: Checker = (c) => {
  for (const { word } of optionValues(c, 'p')) assignsName(c, word);
};

const unsetCheck: Checker = (c) => {
  if (c.vals.some((v) => /^-[a-z]*f/.test(v))) return;
  for (const w of operandsAfter(c, '')) c.env.evaluate(wordEvaluation(w, 'name', c.env.sub.text));
};

const letCheck: Checker = (c) => {
  for (const w of c.args) c.env.evaluate(wordEvaluation(w, 'arith', c.env.sub.text));
};

/** test -v NAME / [ -v NAME ]: the name is read, subscript and all. */
const testCheck: Checker = (c) => {
  c.vals.forEach((v, i) => {
    const w = c.args[i + 1];
    if ((v === '-v' || v === '-R') && w) c.env.evaluate(wordEvaluation(w, 'name', c.env.sub.text));
  });
};

/**
 * declare, typeset, local, export, readonly: each name (with `=value` when quoted past the parser) is assigned;
 * -x and export hand it to programs. The assignments the parser saw are judged with the command's own.
 */
export const declareCheck: Checker = (c) => {
  const exported = c.base === 'export' || c.vals.some((v) => /^-[a-zA-Z]*x/.test(v));
  // +x, +i …: attributes taken away
  for (const w of operandsAfter(c, '').filter((o) => !o.value?.startsWith('+'))) {
    if (w.value === null) {
      c.env.evaluate(wordEvaluation(w, 'name', c.env.sub.text));
      continue;
    }
    const eq = w.value.indexOf('=');
    assignsName(c, eq < 0 ? w : literalWord(w.value.slice(0, eq).replace(/\+$/, '')), exported);
  }
};

const hashCheck: Checker = (c) => {
  if (optionValues(c, 'p').length) code(c, undefined, 'makes a later command name run the program it names (hash -p)');
};

/** compgen, complete, compopt: -C runs a command, -F a shell function, to make completions. */
const completionCheck: Checker = (c) => {
  for (const { letter, word } of optionValues(c, 'ACFGWXPSo')) {
    if (letter === 'C') code(c, word, 'runs a command to make completions (-C)');
    if (letter === 'F') code(c, undefined, `runs the shell function ${q(word.raw)} to make completions (-F)`);
  }
  if (c.base !== 'compgen' && !c.vals.every((v) => v === '-p' || v === '-r')) c.env.sub.readOnly = false;
};

const enableCheck: Checker = (c) => {
  if (optionValues(c, 'f').length) code(c, undefined, 'loads a shared library into the shell (enable -f)');
  else if (c.vals.some((v) => /^-[a-z]*[nd]/.test(v))) c.env.sub.readOnly = false;
};

const bindCheck: Checker = (c) => {
  if (optionValues(c, 'x').length) code(c, undefined, 'binds a key to a shell command (bind -x)');
  c.env.sub.readOnly = false;
};

const fcCheck: Checker = (c) => {
  if (c.vals.some((v) => /^-[a-z]*l/.test(v)) && !c.vals.some((v) => v === '-e' || v === '-s')) return;
  code(c, undefined, 're-runs commands from the history or opens them in an editor (fc)');
};

/** history lists; -a/-w write the history file (the one named, else $HISTFILE), -r/-n read it, -s/-d/-c change the list. */
const historyCheck: Checker = (c) => {
  if (c.vals.length === 0 || (c.vals.length === 1 && /^\d+$/.test(c.vals[0]!))) return;
  c.env.sub.readOnly = false;
  const file = c.args.find((a, i) => i > 0 && !c.vals[i]!.startsWith('-'));
  if (file && c.vals.some((v) => /^-[a-z]*[aw]/.test(v))) writeCheck(c, file);
};

/** set -a exports every later assignment; set -o history records commands. */
const setCheck: Checker = (c) => {
  const opts = c.vals.slice(0, skipOptions(c.vals, ['-o', '+o']));
  const named = c.vals.flatMap((v, i) => (/^-[a-zA-Z]*o$/.test(v) ? [c.vals[i + 1] ?? ''] : []));
  if (opts.some((v) => /^-[a-zA-Z]*a/.test(v)) || named.some((n) => n === 'allexport' || n === 'history')) {
    c.env.sub.readOnly = false;
    finding(c, { reason: `${q(c.env.sub.text)} exports later assignments or records commands` });
  }
};

export const BUILTIN_CHECKS: Record<string, Checker> = {
  printf: printfCheck, read: readCheck, mapfile: mapfileCheck, readarray: mapfileCheck, getopts: getoptsCheck, wait: waitCheck,
  unset: unsetCheck, let: letCheck, test: testCheck, '[': testCheck,
  declare: declareCheck, typeset: declareCheck, local: declareCheck, export: declareCheck, readonly: declareCheck,
  hash: hashCheck, compgen: completionCheck, complete: completionCheck, compopt: completionCheck,
  enable: enableCheck, bind: bindCheck, fc: fcCheck, history: historyCheck, set: setCheck,
};
