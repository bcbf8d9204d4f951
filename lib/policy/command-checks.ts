/**
 * Per-command checks: what one simple command (after its wrappers) does, as findings
 * (tier 1, tier 2, opaque, or a note) on the sub-command being judged. git and find live in
 * command-checks-git-find.ts. Every check is pure: no disk, no processes.
 */
import path from 'node:path';
import type { ShellCommand, StdinText, Word } from './shell-parse';
import { literalWord } from './shell-parse';
import { judgeWritePath, placesOf, worstPlace, type PathScope, type Place } from './command-paths';
import {
  DISK_COMMANDS, DISKUTIL_ERASE, DOWNLOADERS, INTERPRETERS, POWER_COMMANDS, READ_ONLY, ROOT_COMMANDS,
  SHELLS, SYSTEMCTL_POWER, VERSION_ARGS, VERSION_QUERY, WRAPPERS,
} from './command-tables';

export interface Finding {
  tier?: 1 | 2;
  opaque?: boolean;
  /** for the person and the model: what the command would do */
  reason: string;
}

/** The verdict on one sub-command, built up by the checks. */
export interface SubJudgement {
  text: string;
  readOnly: boolean;
  findings: Finding[];
  /** rule key of the command that finally runs (wrappers removed) */
  key?: string;
  /** sub-commands of scripts it runs (sh -c, eval), for the approval UI */
  nested: string[];
  /** false for synthetic entries (a substitution) that are not a command of their own */
  display: boolean;
}

/** What a check may use and do. */
export interface CheckEnv extends PathScope {
  sub: SubJudgement;
  stdin: StdinText | null;
  /** commands in earlier stages of the same pipeline */
  upstream: readonly ShellCommand[];
  /** judge another command line as this one: its key and read-only state become this sub-command's */
  argv(words: Word[]): void;
  /** judge a command run by this one (xargs, find -exec): only its findings count */
  part(words: Word[]): void;
  /** judge a script this command runs (sh -c, eval, here-docs fed to a shell) */
  script(source: string, what: string): void;
}

export interface Check {
  /** the name as written (`/bin/rm`) and its last component (`rm`) */
  name: string;
  base: string;
  args: Word[];
  /** argument values, or their source text when only known at run time */
  vals: string[];
  /** a bare name or one in a system bin directory: trusted to be the program it is named after */
  trusted: boolean;
  env: CheckEnv;
}

/** Returns true when the check fully handled the command (its key and read-only state are set). */
type Checker = (c: Check) => boolean | void;

export const q = (text: string): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return `\`${one.length > 60 ? `${one.slice(0, 59)}…` : one}\``;
};

export const finding = (c: Check, f: Finding): void => {
  c.env.sub.findings.push(f);
};

const DOWNLOAD_IN_TEXT = new RegExp(`(^|[\\s(|;&$\`])(${[...DOWNLOADERS].join('|')})\\s`);

/** Skip leading options (with their values); returns the index of the first operand. */
export function skipOptions(vals: readonly string[], valueOpts: readonly string[], start = 0): number {
  let i = start;
  while (i < vals.length) {
    const v = vals[i]!;
    if (v === '--') return i + 1;
    if (!v.startsWith('-') || v === '-') return i;
    i++;
    if (!v.includes('=') && valueOpts.includes(v)) i++;
  }
  return i;
}

const rootCheck: Checker = (c) => {
  finding(c, { tier: 1, reason: `${q(c.env.sub.text)} runs as root (${c.base}); Clamp never runs commands with raised privileges — ask the user to run it themselves` });
};

const wrapperCheck: Checker = (c) => {
  const spec = WRAPPERS[c.base]!;
  if (c.base === 'command' && c.vals.some((v) => v === '-v' || v === '-V')) return false; // a lookup
  const start = skipOptions(c.vals, spec.valueOpts) + (spec.positional ?? 0);
  const inner = c.args.slice(start);
  if (inner.length === 0) return false;
  c.env.argv(inner);
  return true;
};

const rmCheck: Checker = (c) => {
  let recursive = false;
  let maybeRecursive = false;
  let afterDashes = false;
  const targets: Word[] = [];
  for (const a of c.args) {
    const v = a.value;
    if (v === null) maybeRecursive = true; // an expansion may carry -r
    if (!afterDashes && v === '--') afterDashes = true;
    else if (!afterDashes && v !== null && v.startsWith('-') && v !== '-') {
      if (v === '--no-preserve-root') finding(c, { tier: 1, reason: `${q(c.env.sub.text)} turns off rm's protection of /` });
      if (v === '--recursive' || (!v.startsWith('--') && /[rR]/.test(v))) recursive = true;
    } else targets.push(a);
  }
  const rec = recursive || maybeRecursive;
  const text = q(c.env.sub.text);
  for (const t of targets) {
    const place = worstPlace(placesOf(t, c.env));
    if (!place) continue;
    const f = deleteFinding(place, t.raw, rec, text);
    if (f) finding(c, f);
  }
};

function deleteFinding(place: Place, shown: string, recursive: boolean, text: string): Finding | null {
  const how = recursive ? ' recursively' : '';
  switch (place.kind) {
    case 'catastrophic':
      if (!place.contents) return { tier: 1, reason: `${text} deletes ${place.desc}` };
      return recursive
        ? { tier: 1, reason: `${text} deletes everything in ${place.desc}` }
        : { tier: 2, reason: `${text} deletes every file directly in ${place.desc}` };
    case 'device':
      return { tier: 2, reason: `${text} deletes the device node ${place.abs}` };
    case 'unknown':
      return recursive ? { tier: 2, reason: `${text} deletes ${shown}, ${place.why}, possibly recursively` } : { reason: `${text} deletes ${shown}, ${place.why}` };
    case 'outside':
      return { tier: 2, reason: `${text} deletes ${shown} outside the workspace${how}` };
    case 'git':
      return { tier: 2, reason: `${text} deletes ${shown} inside .git${how}` };
    case 'inside':
      return recursive ? { tier: 2, reason: `${text} deletes ${shown} recursively` } : { reason: `${text} deletes ${shown}` };
  }
}

/** chmod / chown / chgrp: -R on /, ~ or the workspace is tier 1; any other -R, or a target outside, tier 2. */
const modeCheck: Checker = (c) => {
  const what = c.base === 'chmod' ? 'permissions' : 'ownership';
  const flag = c.base === 'chmod' ? /^-[cfvR]+$/ : /^-[cfvhHLPR]+$/;
  const recursive = c.vals.some((v) => v === '--recursive' || (flag.test(v) && v.includes('R')));
  const operands = c.args.filter((a) => !(a.value !== null && (flag.test(a.value) || a.value.startsWith('--'))));
  const targets = c.vals.some((v) => v.startsWith('--reference')) ? operands : operands.slice(1);
  const text = q(c.env.sub.text);
  for (const t of targets) {
    const place = worstPlace(placesOf(t, c.env));
    if (!place) continue;
    if (place.kind === 'catastrophic' && recursive) finding(c, { tier: 1, reason: `${text} changes ${what} of everything in ${place.desc}` });
    else if (recursive) finding(c, { tier: 2, reason: `${text} changes ${what} recursively` });
    else if (place.kind === 'catastrophic' || place.kind === 'outside' || place.kind === 'device') finding(c, { tier: 2, reason: `${text} changes ${what} of ${t.raw} outside the workspace` });
  }
};

/** Judge writing to a path; returns true when it is a real write. */
export function writeCheck(c: Check, target: Word): boolean {
  const v = judgeWritePath(target, c.env);
  if (!v) return false;
  finding(c, { tier: v.tier, reason: `${q(c.env.sub.text)} ${v.what}` });
  return true;
}

/** A word for the part of an argument after a prefix (dd's of=, --output=). */
function suffixWord(a: Word, prefix: string): Word {
  if (a.value === null) return { ...a, raw: a.raw.slice(prefix.length) };
  const value = a.value.slice(prefix.length);
  return { ...a, value, raw: a.raw.slice(prefix.length), tilde: value.startsWith('~') };
}

const ddCheck: Checker = (c) => {
  for (const a of c.args) {
    if (a.value === null || a.value.startsWith('of=')) writeCheck(c, suffixWord(a, 'of='));
  }
};

const diskCheck: Checker = (c) => {
  if (!c.base.startsWith('mkfs') && c.vals.some((v) => v === '-l' || v === '--list')) return;
  finding(c, { tier: 1, reason: `${q(c.env.sub.text)} formats or repartitions a disk` });
};

const powerCheck: Checker = (c) => {
  const hit =
    POWER_COMMANDS.has(c.base) ||
    (c.base === 'systemctl' && c.vals.some((v) => SYSTEMCTL_POWER.has(v))) ||
    ((c.base === 'init' || c.base === 'telinit') && c.vals.some((v) => v === '0' || v === '6'));
  if (hit) finding(c, { tier: 1, reason: `${q(c.env.sub.text)} shuts down or restarts the machine` });
};

const killCheck: Checker = (c) => {
  let i = 0;
  if (c.vals[0] === '-s' || c.vals[0] === '-n') i = 2;
  else if (c.vals[0]?.startsWith('-') && c.vals[0] !== '--' && c.vals[0] !== '-1') i = 1;
  if (c.vals[i] === '--') i++;
  if (c.vals.slice(i).includes('-1')) finding(c, { tier: 2, reason: `${q(c.env.sub.text)} signals every process you own` });
};

const teeCheck: Checker = (c) => {
  let writes = false;
  for (const a of c.args) if (!(a.value !== null && a.value.startsWith('-'))) writes = writeCheck(c, a) || writes;
  c.env.sub.readOnly = !writes;
  return false;
};

/** cp / mv / ln / install / rsync: the destination is a write; mv also takes its sources away. */
const copyCheck: Checker = (c) => {
  const text = q(c.env.sub.text);
  const ops = c.args.filter((a) => !(a.value !== null && a.value.startsWith('-')));
  const targetOpt = c.args.findIndex((a) => a.value === '-t' || a.value?.startsWith('--target-directory'));
  let dest: Word | undefined;
  if (targetOpt >= 0) {
    const a = c.args[targetOpt]!;
    dest = a.value === '-t' ? c.args[targetOpt + 1] : suffixWord(a, `${a.value!.split('=')[0]}=`);
  } else if (ops.length >= 2) dest = ops[ops.length - 1];
  const remote = (w: Word) => c.base === 'rsync' && w.value !== null && /^[^/]*:/.test(w.value);
  if (dest && !remote(dest)) writeCheck(c, dest);
  if (c.base === 'rsync' && c.vals.some((v) => v.startsWith('--delete'))) finding(c, { tier: 2, reason: `${text} deletes files in the destination that the source lacks` });
  if (c.base !== 'mv') return;
  for (const src of ops.filter((w) => w !== dest)) {
    const place = worstPlace(placesOf(src, c.env));
    if (place?.kind === 'catastrophic') finding(c, { tier: place.contents ? 2 : 1, reason: `${text} moves ${place.contents ? 'everything in ' : ''}${place.desc} away` });
    else if (place?.kind === 'outside') finding(c, { tier: 2, reason: `${text} moves ${src.raw} from outside the workspace` });
  }
};

const sedCheck: Checker = (c) => {
  if (!c.vals.some((v) => v === '--in-place' || v.startsWith('--in-place=') || /^-[a-zA-Z]*i/.test(v))) return;
  const hasScriptOpt = c.vals.some((v) => v === '-e' || v === '-f' || v.startsWith('--expression') || v.startsWith('--file'));
  const files: Word[] = [];
  for (let i = 0; i < c.args.length; i++) {
    const v = c.vals[i]!;
    if (v === '-e' || v === '-f') i++;
    else if (!v.startsWith('-')) files.push(c.args[i]!);
  }
  for (const f of hasScriptOpt ? files : files.slice(1)) writeCheck(c, f);
};

const downloadCheck: Checker = (c) => {
  const flags = c.base === 'wget' ? ['-O', '--output-document'] : ['-o', '--output'];
  c.args.forEach((a, i) => {
    const v = c.vals[i]!;
    const next = c.args[i + 1];
    if (flags.includes(v) && next && next.value !== '-') writeCheck(c, next);
    else if (flags[1] && v.startsWith(`${flags[1]}=`)) writeCheck(c, suffixWord(a, `${flags[1]}=`));
  });
};

const simpleTier2 = (what: string): Checker => (c) => {
  finding(c, { tier: 2, reason: `${q(c.env.sub.text)} ${what}` });
};

const shredCheck: Checker = (c) => {
  const devices = c.args.some((a) => placesOf(a, c.env).some((p) => p.kind === 'device' && p.disk));
  finding(c, devices ? { tier: 1, reason: `${q(c.env.sub.text)} overwrites a disk device` } : { tier: 2, reason: `${q(c.env.sub.text)} destroys file contents beyond recovery` });
};

const crontabCheck: Checker = (c) => {
  if (c.vals.some((v) => /^-[a-z]*r/.test(v))) finding(c, { tier: 2, reason: `${q(c.env.sub.text)} removes all your cron jobs` });
};

const diskutilCheck: Checker = (c) => {
  if (c.vals.some((v) => DISKUTIL_ERASE.has(v))) finding(c, { tier: 1, reason: `${q(c.env.sub.text)} erases or repartitions a disk` });
};

/** Text that runs code we cannot read: a download is tier 1, anything else opaque. */
function unseenCode(c: Check, raw: string, what: string): void {
  if (DOWNLOAD_IN_TEXT.test(raw)) finding(c, { tier: 1, reason: `${q(c.env.sub.text)} runs a downloaded script without showing it` });
  else finding(c, { opaque: true, reason: `${q(c.env.sub.text)} ${what}` });
}

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
    if ((name === 'echo' || name === 'printf') && u.words.every((w) => w.value !== null)) c.env.script(u.words.slice(1).map((w) => w.value).join(' '), `what ${name} pipes into ${c.base}`);
    else if (u.stdin) c.env.script(u.stdin.text, `the here-doc piped into ${c.base}`);
  }
}

const shellCheck: Checker = (c) => {
  if (c.vals.length === 1 && VERSION_ARGS.has(c.vals[0]!)) return;
  let i = 0;
  let inline = false;
  let fromStdin = false;
  while (i < c.vals.length) {
    const v = c.vals[i]!;
    if (v === '--' || v === '-') {
      fromStdin = v === '-';
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
  const inner = c.args.slice(start);
  const shown = inner.length ? inner[0]!.raw : 'echo';
  c.env.sub.readOnly = false;
  finding(c, { opaque: true, reason: `${q(c.env.sub.text)} runs ${q(shown)} on arguments only known when it runs` });
  if (inner.length) c.env.part([...inner, { ...literalWord(''), value: null, raw: '<input>' }]);
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

const busyboxCheck: Checker = (c) => {
  if (c.args.length === 0) return;
  c.env.argv(c.args);
  return true;
};

const CHECKS: Record<string, Checker> = {
  rm: rmCheck, chmod: modeCheck, chown: modeCheck, chgrp: modeCheck, dd: ddCheck,
  shutdown: powerCheck, reboot: powerCheck, halt: powerCheck, poweroff: powerCheck, systemctl: powerCheck, init: powerCheck, telinit: powerCheck,
  kill: killCheck, tee: teeCheck, cp: copyCheck, mv: copyCheck, ln: copyCheck, install: copyCheck, rsync: copyCheck,
  sed: sedCheck, curl: downloadCheck, wget: downloadCheck, shred: shredCheck, crontab: crontabCheck, diskutil: diskutilCheck,
  truncate: simpleTier2('cuts files to a given size; what is cut is lost'),
  eval: evalCheck, source: sourceCheck, '.': sourceCheck, xargs: xargsCheck, parallel: xargsCheck, env: envCheck,
  ssh: remoteCheck, watch: stringRunner('runs a command string again and again', ['-n', '--interval', '-d', '--differences']),
  trap: stringRunner('installs a string as shell code to run on a signal', []),
  busybox: busyboxCheck,
};

/**
 * Judge one command line (name and arguments): apply its check, then — unless the check
 * handled it (a wrapper) — its read-only state and rule key. `extra` adds git and find.
 */
export function checkArgv(c: Check, extra: Record<string, Checker>, ruleKey: (vals: string[]) => string): void {
  const { base } = c;
  let handled: boolean | void = false;
  if (ROOT_COMMANDS.has(base)) handled = rootCheck(c);
  else if (WRAPPERS[base]) handled = wrapperCheck(c);
  else if (base.startsWith('mkfs') || DISK_COMMANDS.has(base)) handled = diskCheck(c);
  else if (SHELLS.has(base)) handled = shellCheck(c);
  else if (INTERPRETERS[base]) handled = interpreterCheck(c);
  else if (Object.hasOwn(extra, base)) handled = extra[base]!(c);
  else if (Object.hasOwn(CHECKS, base)) handled = CHECKS[base]!(c);
  if (handled) return;
  c.env.sub.key = ruleKey([c.name, ...c.vals]);
  if (!c.trusted) c.env.sub.readOnly = false;
  else if (c.args.length === 1 && VERSION_QUERY.has(base) && VERSION_ARGS.has(c.vals[0]!)) return;
  else if (base === 'command' && c.vals.some((v) => v === '-v' || v === '-V')) return;
  else if (base === 'tee' || base === 'env' || base === 'git' || base === 'find') return; // their checks decided
  else {
    const rule = Object.hasOwn(READ_ONLY, base) ? READ_ONLY[base] : undefined;
    if (!rule || (rule !== true && !rule(c.vals))) c.env.sub.readOnly = false;
  }
}

export type { Checker };
