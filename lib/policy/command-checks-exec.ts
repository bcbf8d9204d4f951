/**
 * Checks for commands that run other code: shells (`sh -c`, here-docs, pipes into a shell),
 * interpreters (`python -c`), eval, source, xargs, env, ssh, watch, trap, alias. Code that can
 * be read is parsed and judged like the outer command; code that cannot is opaque, and a
 * download piped into an interpreter is tier 1.
 */
import path from 'node:path';
import type { Word } from './shell-parse';
import { literalWord } from './shell-parse';
import { DOWNLOADERS, INTERPRETERS, VERSION_ARGS } from './command-tables';
import { ANY_ARGS_READ_ONLY, XARGS_PLAIN_OPTS } from './command-listing';
import { finding, q, skipOptions, suffixWord, unseenCode, type Check, type Checker } from './command-check-kit';
import { judgeEnv, unknownEnvNote } from './command-env';

/** An interpreter reading its program from stdin: a here-doc, a here-string or a pipe. */
function stdinProgram(c: Check, shell: boolean): void {
  const { stdin, upstream } = c.env;
  if (stdin) {
    const kind = stdin.kind === 'heredoc' ? 'a here-doc' : 'a here-string';
    finding(c, { opaque: true, reason: `${q(c.env.sub.text)} feeds ${kind} to ${c.base}, which runs it as code` });
    if (shell) c.env.script(stdin.text, `the ${kind.slice(2)} fed to ${c.base}`);
    return;
  }
  const download = upstream.find((u) => u.kind === 'command' && DOWNLOADERS.has(path.posix.basename(u.words[0]?.value ?? '')));
  if (download) {
    finding(c, { tier: 1, reason: `${q(`${download.text} | ${c.base}`)} runs a downloaded script without showing it` });
    return;
  }
  if (upstream.length === 0) {
    finding(c, { opaque: true, reason: `${q(c.env.sub.text)} reads the code it runs from stdin` });
    return;
  }
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs code read from a pipe` });
  if (!shell) return;
  for (const u of upstream) {
    const name = u.words[0]?.value;
    if ((name === 'echo' || name === 'printf') && u.words.every((w) => w.value !== null)) {
      const printed = printedBy(name, u.words.slice(1).map((w) => w.value!));
      if (printed !== null) c.env.script(printed, `what ${name} pipes into ${c.base}`);
    }
    else if (u.stdin) c.env.script(u.stdin.text, `the here-doc piped into ${c.base}`);
  }
}

/** Backslash escapes as printf and `echo -e` read them (\\xHH, \\0NNN / \\NNN, \\n, \\t …). */
export function decodeEscapes(text: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', e: '\x1b', '\\': '\\' };
  return text.replace(/\\(x[0-9a-fA-F]{1,2}|0?[0-7]{1,3}|.)/g, (all, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return simple[e] ?? all;
  });
}

/** What echo or printf prints for these (static) arguments; null when it cannot be told. */
export function printedBy(name: string, args: readonly string[]): string | null {
  if (name === 'echo') {
    let i = 0;
    let escapes = false;
    for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) for (const f of args[i]!.slice(1)) escapes = f === 'e' ? true : f === 'E' ? false : escapes;
    const rest = args.slice(i).join(' ');
    return escapes ? decodeEscapes(rest) : rest;
  }
  const [format, ...rest] = args;
  if (format === undefined) return '';
  // %s and %b fill in the arguments in turn (%b decoding them too); other conversions are left unknown
  if (/%[^sb%]/.test(format)) return null;
  let k = 0;
  const filled = decodeEscapes(format.replace(/%%/g, '\u0000')).replace(/%([sb])/g, (_m, t: string) => {
    const a = rest[k++] ?? '';
    return t === 'b' ? decodeEscapes(a) : a;
  }).replace(/\u0000/g, '%');
  return k >= rest.length ? filled : null;
}

const shellCheck: Checker = (c) => {
  if (c.vals.length === 1 && VERSION_ARGS.has(c.vals[0]!)) return;
  let i = 0;
  let inline = false;
  let fromStdin = false;
  while (i < c.vals.length) {
    const v = c.vals[i]!;
    if (v === '--' || v === '-') {
      if (v === '-') fromStdin = true;
      i++;
      break;
    }
    if (!(v.startsWith('-') || v.startsWith('+')) || v.length < 2) break;
    i++;
    if (v.startsWith('--')) {
      if (v === '--rcfile' || v === '--init-file') i++;
    } else {
      if (v.includes('c')) inline = true;
      if (v.includes('s')) fromStdin = true;
      if (/[oO]/.test(v)) i++;
    }
  }
  const operand = c.args[i];
  c.env.sub.readOnly = false;
  if (inline) {
    if (!operand) return;
    if (operand.value === null) return unseenCode(c, operand.raw, `runs a shell script built at run time`);
    finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs a string as a shell script` });
    c.env.script(operand.value, `the script passed to ${c.base} -c`);
    return;
  }
  if (operand && !fromStdin) {
    if (operand.value === null) unseenCode(c, operand.raw, 'runs a script whose path is only known when it runs');
    return;
  }
  stdinProgram(c, true);
};

const interpreterCheck: Checker = (c) => {
  const spec = INTERPRETERS[c.base]!;
  if (c.vals.length === 1 && VERSION_ARGS.has(c.vals[0]!)) return;
  const letters = spec.inline.filter((f) => /^-[a-zA-Z]$/.test(f)).map((f) => f[1]!);
  c.env.sub.readOnly = false;
  for (let i = 0; i < c.args.length; i++) {
    const v = c.vals[i]!;
    const cluster = /^-[a-zA-Z]+$/.test(v) && letters.some((l) => v.includes(l));
    const inline = spec.inline.includes(v) || cluster || letters.some((l) => v.startsWith(`-${l}`) && !v.startsWith('--'));
    if (inline) return unseenCode(c, c.args.slice(i).map((a) => a.raw).join(' '), `runs inline ${c.base} code, which cannot be checked`);
    if (v === '-') break;
    if (!v.startsWith('-')) {
      const script = c.args[i]!;
      if (script.value === null) unseenCode(c, script.raw, 'runs a program whose path is only known when it runs');
      return;
    }
    if (v === '-m') return; // python -m module: judged by its rule key
    if (spec.valueOpts.includes(v)) i++;
  }
  stdinProgram(c, false);
};

const evalCheck: Checker = (c) => {
  c.env.sub.readOnly = false;
  if (c.args.length === 0) return;
  if (c.args.some((a) => a.value === null)) return unseenCode(c, c.args.map((a) => a.raw).join(' '), 'runs a string built at run time as shell code, so it cannot be checked');
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs a string as shell code` });
  c.env.script(c.vals.join(' '), 'the string passed to eval');
};

const sourceCheck: Checker = (c) => {
  c.env.sub.readOnly = false;
  unseenCode(c, c.args.map((a) => a.raw).join(' '), 'runs a script inside the current shell');
};

const xargsCheck: Checker = (c) => {
  const start = skipOptions(c.vals, ['-a', '--arg-file', '-d', '--delimiter', '-E', '-e', '-I', '-L', '-l', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var']);
  // -I R / -IR / -i / --replace: input replaces R inside the arguments instead of being appended
  let replace: string | null = null;
  c.vals.slice(0, start).forEach((v, i) => {
    if (v === '-I') replace = c.vals[i + 1] ?? null;
    else if (v.startsWith('-I')) replace = v.slice(2);
    else if (v === '-i' || v === '--replace') replace = '{}';
    else if (v.startsWith('--replace=') || (v.startsWith('-i') && !v.startsWith('--'))) replace = v.slice(v.startsWith('-i') ? 2 : 10);
  });
  const inner = c.args.slice(start);
  const r = replace as string | null;
  // a command read-only with any arguments, named as written (no placeholder in its name), under plain options:
  // what the input adds cannot change what it does (`git ls-files -z | xargs -0 wc -l`)
  const head = inner[0]?.value;
  const plainOpts = c.vals.slice(0, start).every((v, i, all) => XARGS_PLAIN_OPTS.test(v) || /^-[nLPsdEeIa]$/.test(all[i - 1] ?? ''));
  if (c.base === 'xargs' && plainOpts && (!head || (ANY_ARGS_READ_ONLY.has(head) && !(r && head.includes(r))))) {
    if (head) c.env.argv(r ? inner : [...inner, { ...literalWord(''), value: null, raw: '<input>' }]);
    return true;
  }
  const shown = inner.length ? inner[0]!.raw : 'echo';
  c.env.sub.readOnly = false;
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs ${q(shown)} on arguments only known when it runs` });
  if (!inner.length) return;
  const input: Word = { ...literalWord(''), value: null, raw: '<input>' };
  if (r) c.env.part(inner.map((a, i) => (i > 0 && a.value?.includes(r) ? { ...a, value: null } : a)));
  else c.env.part([...inner, input]);
};

const envCheck: Checker = (c) => {
  let i = 0;
  for (; i < c.vals.length; i++) {
    const v = c.vals[i]!;
    if (v === '-u' || v === '-C' || v === '--unset' || v === '--chdir') i++;
    else if (v === '-S' || v.startsWith('--split-string')) {
      const s = v === '-S' ? c.args[i + 1] : suffixWord(c.args[i]!, `${v.split('=')[0]}=`);
      c.env.sub.readOnly = false;
      finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs a command through env` });
      if (s?.value != null) c.env.script(s.value, 'the string passed to env -S');
      return;
    } else if (!(v.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(v))) break;
  }
  if (i >= c.args.length) return; // plain `env` prints the environment
  // only assignments, -i and -u before the command: judged as X=v prefixes, and the command as itself
  const before = c.vals.slice(0, i);
  if (before.every((v, k) => /^[A-Za-z_]\w*=/.test(v) || /^(-i|--ignore-environment|-u|--unset(=.*)?)$/.test(v) || /^(-u|--unset)$/.test(before[k - 1] ?? ''))) {
    const unknown = before.flatMap((v, k) => {
      const m = /^([A-Za-z_]\w*)=/.exec(v);
      if (!m || /^(-u|--unset)$/.test(before[k - 1] ?? '')) return [];
      return judgeEnv(c, m[1]!, suffixWord(c.args[k]!, m[0]), 'prefix') ? [m[1]!] : [];
    });
    c.env.argv(c.args.slice(i));
    if (unknown.length && c.env.sub.readOnly) unknownEnvNote(c, unknown);
    return true;
  }
  c.env.sub.readOnly = false;
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs a command through env, which can change what runs` });
  c.env.part(c.args.slice(i));
};

const remoteCheck: Checker = (c) => {
  // ssh [options] host [command …]
  const start = skipOptions(c.vals, ['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w', '-B']);
  const command = c.args.slice(start + 1);
  if (command.length === 0) return;
  c.env.sub.readOnly = false;
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs a command on another machine` });
  if (command.every((a) => a.value !== null)) c.env.script(command.map((a) => a.value).join(' '), 'the remote command');
};

const stringRunner = (what: string, valueOpts: string[]): Checker => (c) => {
  const start = skipOptions(c.vals, valueOpts);
  const rest = c.args.slice(start);
  if (rest.length === 0 || (c.base === 'trap' && rest.length < 2)) return;
  c.env.sub.readOnly = false;
  const code = c.base === 'trap' ? rest.slice(0, 1) : rest;
  if (code.some((a) => a.value === null)) return unseenCode(c, code.map((a) => a.raw).join(' '), `${what} built at run time`);
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} ${what}` });
  c.env.script(code.map((a) => a.value).join(' '), `the command given to ${c.base}`);
};

/** alias NAME=VALUE: the value runs whenever NAME is used, so it is judged as a script. */
const aliasCheck: Checker = (c) => {
  for (const a of c.args) {
    const eq = a.value?.indexOf('=') ?? -1;
    if (a.value && eq > 0) c.env.script(a.value.slice(eq + 1), `the alias ${a.value.slice(0, eq)}`);
  }
};

const busyboxCheck: Checker = (c) => {
  if (c.args.length === 0) return;
  c.env.argv(c.args);
  return true;
};

/** Checks by command name; shells and interpreters are matched by their tables in checkArgv. */
export const EXEC_CHECKS: Record<string, Checker> = {
  eval: evalCheck, source: sourceCheck, '.': sourceCheck, xargs: xargsCheck, parallel: xargsCheck, env: envCheck,
  ssh: remoteCheck, watch: stringRunner('runs a command string again and again', ['-n', '--interval', '-d', '--differences']),
  trap: stringRunner('installs a string as shell code to run on a signal', []),
  busybox: busyboxCheck, alias: aliasCheck,
};

export { shellCheck, interpreterCheck };
