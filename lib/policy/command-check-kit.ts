/**
 * What the per-command checks share: the shape of a verdict (findings on a sub-command), the
 * environment a check may use, and small helpers (quoting for reasons, option skipping, judging
 * a written path, code that cannot be read).
 */
import type { Evaluation, ShellCommand, StdinText, Word } from './shell-parse';
import { judgeWritePath, type PathScope } from './command-paths';
import { DOWNLOADERS } from './command-tables';

export interface Finding {
  tier?: 1 | 2;
  opaque?: boolean;
  /** for the person and the model: what the command would do */
  reason: string;
  /** the ask depends on the exact text (a variable handed over, a value evaluated): a rule must match it exactly */
  exactKey?: boolean;
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
  /** judge a text bash evaluates again (an arithmetic expression, a variable name, a prompt) */
  evaluate(ev: Evaluation): void;
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
export type Checker = (c: Check) => boolean | void;

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

/** Judge writing to a path; returns true when it is a real write. */
export function writeCheck(c: Check, target: Word): boolean {
  const v = judgeWritePath(target, c.env);
  if (!v) return false;
  finding(c, { tier: v.tier, reason: `${q(c.env.sub.text)} ${v.what}` });
  return true;
}

/** A word for the part of an argument after a prefix (dd's of=, --output=). */
export function suffixWord(a: Word, prefix: string): Word {
  if (a.value === null) return { ...a, raw: a.raw.slice(prefix.length) };
  const value = a.value.slice(prefix.length);
  return { ...a, value, raw: a.raw.slice(prefix.length), tilde: value.startsWith('~') };
}

/** Text that runs code we cannot read: a download is tier 1, anything else opaque. */
export function unseenCode(c: Check, raw: string, what: string): void {
  if (DOWNLOAD_IN_TEXT.test(raw)) finding(c, { tier: 1, reason: `${q(c.env.sub.text)} runs a downloaded script without showing it` });
  else finding(c, { opaque: true, reason: `${q(c.env.sub.text)} ${what}` });
}
