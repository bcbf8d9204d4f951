/**
 * Command safety: parse a shell command with a real parser (shell-parse.ts), judge every
 * sub-command it can run — across lists, pipelines, subshells, substitutions, functions and
 * the scripts it hands to `sh -c` or `eval` — and fold the verdicts into one decision:
 *
 *   tier 1 (catastrophic)  → deny, always
 *   tier 2 (dangerous)     → ask, tier 2
 *   opaque (cannot be seen)→ ask, opaque, never a rule key
 *   all read-only          → allow
 *   anything else          → ask, with the rule key an "always allow" would save
 *
 * Rule keys: each sub-command that is not read-only contributes one key (subRuleKeys): its
 * prefix by arity (`npm run test`, `git commit`) or, when it is tier 2, its exact text, so a
 * rule saved for `git push` never covers `git push --force`. `ruleKey` joins them with " && ".
 * A later rules feature allows a command when every subRuleKey matches a saved rule.
 */
import os from 'node:os';
import path from 'node:path';
import type { PolicyDecision } from '../contract/types';
import { isWriteOp, loadShellParser, type ShellCommand, type ShellParser, type Word } from './shell-parse';
import { finding, q, writeCheck, type Check, type CheckEnv, type Finding, type SubJudgement } from './command-check-kit';
import { checkArgv } from './command-checks';
import { printedBy } from './command-checks-exec';
import { SYSTEM_BIN_DIRS } from './command-tables';
import { placesOf } from './command-paths';
import { SENDERS, isSecretPath } from './command-checks-more';
import { judgeEvaluation, varFacts, wordEvaluation, type VarFacts } from './command-evaluations';
import { judgeEnv, unknownEnvNote } from './command-env';
import { BUILTIN_CHECKS, declareCheck } from './command-checks-builtins';

export interface CommandAssessment extends PolicyDecision {
  /** each sub-command's text, in order, including those of scripts it runs (for the approval UI) */
  subcommands: string[];
  /** one key per sub-command that is not read-only; empty when opaque, tier 1, or all read-only */
  subRuleKeys: string[];
}

export interface AssessOptions {
  /** realpath of the workspace root */
  workspace: string;
  /** the home directory `~` and $HOME expand to (default: os.homedir()) */
  home?: string;
  /** the directory the command starts in (default: the workspace root) */
  cwd?: string;
}

interface JudgeCtx {
  parser: ShellParser;
  workspace: string;
  home: string;
  /** nesting of scripts run by scripts (sh -c 'eval …') */
  depth: number;
}

const MAX_NESTING = 4;
const MAX_REASONS = 3;

/**
 * Judge a shell command before it runs. Never throws: text that does not parse is "ask, opaque"
 * (fail closed) unless a catastrophic command is still visible in it, and so is every command
 * when the parser itself cannot load.
 */
export async function assessCommand(command: string, opts: AssessOptions): Promise<CommandAssessment> {
  let parser: ShellParser;
  try {
    parser = await loadShellParser();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { action: 'ask', opaque: true, reason: `The shell parser could not load (${why}), so the command cannot be checked`, subcommands: [command], subRuleKeys: [] };
  }
  const workspace = path.resolve(opts.workspace);
  const ctx: JudgeCtx = { parser, workspace, home: path.resolve(opts.home ?? os.homedir()), depth: 0 };
  const { subs, error } = judgeScript(command, ctx, [opts.cwd ? path.resolve(workspace, opts.cwd) : workspace]);
  return combine(subs, error);
}

/** The rule keys a command needs (one per sub-command that is not read-only); [] when it can never be saved. */
export async function ruleKeysFor(command: string, opts: AssessOptions): Promise<string[]> {
  return (await assessCommand(command, opts)).subRuleKeys;
}

function judgeScript(source: string, ctx: JudgeCtx, startCwds: (string | null)[]): { subs: SubJudgement[]; error: string | null } {
  const parsed = ctx.parser.parse(source);
  const subs: SubJudgement[] = [];
  // every directory a command may run in: a `cd` that can fail leaves both; `cd x && y` runs y in x
  const cwds = new Set(startCwds);
  // variables the script itself sets to a literal (`a=rm; $a -rf ~`): their uses are judged as what they hold
  const known = new Map<string, Word | null>();
  const afterCd = new Map<number, (string | null)[]>();
  // files this line writes, and what it writes into them when that is known: running one later is judged by its content
  const written = new Map<string, WrittenFile>();
  // every value the line gives each variable, for the texts bash evaluates again (arithmetic, names, prompts)
  const facts = varFacts(parsed);
  parsed.commands.forEach((cmd, index) => {
    const guard = [...cmd.guards].reverse().find((g) => afterCd.has(g));
    const here = guard !== undefined ? afterCd.get(guard)! : [...cwds];
    const sub = judgeCommand(cmd, parsed.commands, here, ctx, known, facts);
    subs.push(sub);
    runsWrittenFile(cmd, sub, written, subs, ctx, here);
    learnWrites(cmd, written);
    learnAssignments(cmd, known, source);
    const moved = cdTargets(cmd, here, ctx.home);
    if (moved) {
      afterCd.set(index, moved);
      for (const d of moved) cwds.add(d);
    }
  });
  for (const f of parsed.functions) {
    if (f.recursive && f.spawns) {
      subs.push({ text: f.text, readOnly: false, nested: [], display: true, findings: [{ tier: 1, reason: `${q(f.text)} is a fork bomb: it copies itself until the machine stops responding` }] });
    }
  }
  // a substitution is opaque unless what it runs is itself read-only and nothing its output could reach
  // does more than read: `for i in $(seq 1 9); do npm test; done` runs, `rm $(ls)` and `$(echo rm) x` still ask
  const reachesWrite = parsed.commands.some((cmd, i) => !subs[i]!.readOnly && cmd.words.some((w) => w.value === null));
  for (const s of parsed.substitutions) {
    if (!reachesWrite && substitutionReadOnly(s, ctx, startCwds)) continue;
    subs.push({
      text: s, readOnly: false, nested: [], display: false,
      findings: [{ opaque: true, reason: `${q(s)} puts a command's output into the command line, which is only known when it runs` }],
    });
  }
  return { subs, error: parsed.error };
}

interface WrittenFile {
  /** the script text, when a literal echo/printf wrote it; null when only the run knows */
  text: string | null;
  downloaded: boolean;
}

const SCRIPT_RUNNERS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'source', '.', 'python', 'python3', 'node', 'perl', 'ruby']);
const normFile = (v: string): string => path.posix.normalize(v.replace(/^\.\//, ''));

/** What a static `echo …`/`printf …` prints, escapes decoded. */
function printedText(cmd: ShellCommand): string | null {
  const [name, ...args] = cmd.words.map((w) => w.value);
  if ((name !== 'echo' && name !== 'printf') || args.some((a) => a === null)) return null;
  return printedBy(name, args as string[]);
}

/** Record the files a command writes: by a redirect (with the text when echo/printf wrote it), or a download's -o/-O. */
function learnWrites(cmd: ShellCommand, written: Map<string, WrittenFile>): void {
  const name = cmd.words[0]?.value;
  const downloader = name === 'curl' || name === 'wget';
  for (const r of cmd.redirects) {
    if (r.target?.value && isWriteOp(r.op)) {
      // appending adds to what the file already held, which only the run knows
      written.set(normFile(r.target.value), { text: r.op === '>>' || downloader ? null : printedText(cmd), downloaded: downloader });
    }
  }
  if (downloader) {
    const vals = cmd.words.slice(1).map((w) => w.value);
    vals.forEach((v, i) => {
      if (v === null) return;
      const attached = name === 'curl' ? /^-[a-zA-Z]*o(.+)$/.exec(v) ?? /^--output=(.+)$/.exec(v) : /^-[a-zA-Z]*O(.+)$/.exec(v) ?? /^--output-document=(.+)$/.exec(v);
      const separate = (name === 'curl' ? /^(-[a-zA-Z]*o|--output)$/ : /^(-[a-zA-Z]*O|--output-document)$/).test(v) ? vals[i + 1] : undefined;
      const file = attached?.[1] ?? separate;
      if (file && file !== '-') written.set(normFile(file), { text: null, downloaded: true });
    });
  }
}

/**
 * A command that runs a file this line wrote before it (`echo 'rm -rf ~' > x.sh && sh x.sh`,
 * `curl -o i.sh … && bash i.sh`, `./x.sh` after `chmod +x`): judged by the text written when it is
 * known, tier 1 when it was downloaded, opaque otherwise.
 */
function runsWrittenFile(cmd: ShellCommand, sub: SubJudgement, written: Map<string, WrittenFile>, subs: SubJudgement[], ctx: JudgeCtx, here: (string | null)[]): void {
  if (written.size === 0 || cmd.kind !== 'command') return;
  const vals = cmd.words.map((w) => w.value);
  const name = vals[0];
  if (!name) return;
  let file: string | undefined;
  if (written.has(normFile(name)) && name.includes('/')) file = normFile(name);
  else if (SCRIPT_RUNNERS.has(path.posix.basename(name))) {
    const operand = vals.slice(1).find((v) => v === null || !v.startsWith('-'));
    if (operand && written.has(normFile(operand))) file = normFile(operand);
  }
  if (!file) return;
  const w = written.get(file)!;
  sub.readOnly = false;
  if (w.downloaded) {
    sub.findings.push({ tier: 1, reason: `${q(cmd.text)} runs ${file}, downloaded just before, without showing it` });
  } else if (w.text !== null && ctx.depth < MAX_NESTING) {
    const inner = judgeScript(w.text, { ...ctx, depth: ctx.depth + 1 }, here);
    if (inner.error) sub.findings.push({ opaque: true, reason: `${q(cmd.text)} runs ${file}, which this line writes just before` });
    for (const s of inner.subs) subs.push({ ...s, display: false });
    sub.nested.push(...inner.subs.filter((s) => s.display).map((s) => s.text));
  } else {
    sub.findings.push({ opaque: true, reason: `${q(cmd.text)} runs ${file}, which this line writes just before, so what it runs cannot be checked` });
  }
}

/** The commands inside `$(…)` / backticks are all read-only, with nothing to ask about. */
function substitutionReadOnly(text: string, ctx: JudgeCtx, cwds: (string | null)[]): boolean {
  const inner = text.startsWith('$(') && text.endsWith(')') ? text.slice(2, -1) : text.startsWith('`') && text.endsWith('`') ? text.slice(1, -1) : null;
  if (inner === null || inner.trim() === '' || ctx.depth >= MAX_NESTING) return false;
  const judged = judgeScript(inner, { ...ctx, depth: ctx.depth + 1 }, cwds);
  return !judged.error && judged.subs.every((x) => x.readOnly && x.findings.length === 0);
}

/** Where `cd`/`pushd`/`popd` leaves the shell, for each directory it may start in; null when not a cd. */
function cdTargets(cmd: ShellCommand, here: (string | null)[], home: string): (string | null)[] | null {
  const words = cmd.words[0]?.value === 'builtin' ? cmd.words.slice(1) : cmd.words;
  const name = words[0]?.value;
  if (cmd.kind !== 'command' || (name !== 'cd' && name !== 'pushd' && name !== 'popd')) return null;
  if (name === 'popd') return [null];
  const target: Word | undefined = words.slice(1).find((w) => !(w.value?.startsWith('-') && w.value !== '-'));
  if (!target) return [home];
  return placesOf(target, { workspace: '/', home, cwds: here }).map((p) => ('abs' in p ? p.abs : null));
}

/** Record `name=literal` (a null entry once a name is set to something unknown or to two values). */
function learnAssignments(cmd: ShellCommand, known: Map<string, Word | null>, source: string): void {
  if (cmd.kind !== 'assign' && cmd.kind !== 'declare') return;
  for (const a of cmd.assignments) {
    const v = a.value && a.value.value !== null && !a.value.glob && !a.value.brace && !boundElsewhere(source, a.name) ? a.value : null;
    known.set(a.name, known.has(a.name) && known.get(a.name)?.value !== v?.value ? null : v);
  }
}

/**
 * Whether the script may give a variable another value than its one plain assignment: a loop, read,
 * getopts, let, declare/export/local, printf -v, ${x:=…}, ((x…)), x+=, a second assignment, or
 * eval/source anywhere (which can set anything). Then its uses stay unknown.
 */
function boundElsewhere(source: string, name: string): boolean {
  if (!/^\w+$/.test(name)) return true;
  const n = `\\b${name}\\b`;
  const other = new RegExp(
    `\\bfor\\s+${name}\\b|\\b(read|getopts|mapfile|readarray|let|declare|typeset|local|export|readonly|printf)\\b[^;&|\\n]*${n}|\\$\\{${name}:?[=?]|\\(\\([^)]*${n}|\\b${name}(\\[[^\\]]*\\])?\\+?=\\(|\\b${name}\\+=|\\b(eval|source|alias)\\b|(^|[;&|(\\s])\\.\\s`,
  );
  const assigns = source.match(new RegExp(`(^|[^\\w$])${name}=`, 'g'))?.length ?? 0;
  return assigns !== 1 || other.test(source);
}

/** `of=$p`, `$d/build`: one variable inside plain characters */
const PART_WORD = /^([\w./=:@%+,-]*)("?)\$(?:\{(\w+)\}|(\w+))\2([\w./:@%+,-]*)$/;
const VAR_WORD = /^("?)\$(?:\{(\w+)\}|(\w+))\1$/;
const ECHO_SUBST = /^("?)(?:\$\(\s*(?:echo|printf)\s+(?:'([^']*)'|"([^"$`\\]*)"|([\w./~-]+))\s*\)|`\s*echo\s+([\w./~-]+)\s*`)\1$/;

/** Words whose value the script makes known statically: a variable it set to a literal, `$(echo literal)`. */
function resolveWords(words: readonly Word[], known: Map<string, Word | null>): Word[] {
  return words.flatMap((w) => {
    if (w.value !== null) return [w];
    const part = PART_WORD.exec(w.raw);
    if (part) {
      const inner = known.get(part[3] ?? part[4]!);
      if (inner?.value != null && !/\s/.test(inner.value)) return [{ ...w, value: `${part[1]}${inner.value}${part[5]}`, tilde: part[1] === '' && inner.tilde }];
    }
    const m = VAR_WORD.exec(w.raw);
    const held = m ? known.get(m[2] ?? m[3]!) : undefined;
    const e = held ? null : ECHO_SUBST.exec(w.raw);
    const text = held?.value ?? (e ? (e[2] ?? e[3] ?? e[4] ?? e[5]) : undefined);
    if (text === undefined || text === null) return [w];
    const quoted = (m?.[1] ?? e?.[1]) === '"';
    const parts = quoted ? [text] : text.split(/\s+/).filter(Boolean);
    // a variable's ~ was expanded when it was assigned (x=~), quoted or not at its use; echo's word expands unquoted
    return parts.map((p, i) => ({ ...w, value: p, raw: w.raw, tilde: held ? held.tilde && i === 0 : !quoted && p.startsWith('~') }));
  });
}

function judgeCommand(cmd: ShellCommand, all: readonly ShellCommand[], cwds: (string | null)[], ctx: JudgeCtx, known: Map<string, Word | null>, facts: VarFacts): SubJudgement {
  const sub: SubJudgement = { text: cmd.text, readOnly: true, findings: [], nested: [], display: true };
  const env = makeEnv(sub, cmd, all, cwds, ctx, facts);
  const self: Check = { name: '', base: '', args: [], vals: [], trusted: true, env };
  const keyword = cmd.kind === 'declare' ? cmd.words[0]?.value ?? '' : '';
  const flags = cmd.words.slice(1).map((w) => w.value ?? '');
  // unset and export -n take a variable away; a bare name is only exported (export X) or declared
  const removes = keyword === 'unset' || (keyword === 'export' && flags.some((f) => /^-[a-zA-Z]*n/.test(f)));
  const exported = keyword === 'export' || (keyword !== '' && flags.some((f) => /^-[a-zA-Z]*x/.test(f)));
  const use = cmd.kind === 'command' ? 'prefix' : exported ? 'export' : 'assign';
  const unknownEnv: string[] = [];
  for (const a of cmd.assignments) {
    const name = a.name.replace(/\[.*$/s, '');
    if (removes || (a.value === null && use !== 'export')) continue;
    if (judgeEnv(self, name, a.value, use)) unknownEnv.push(name);
    // declare -i: the value is evaluated as arithmetic; declare -n: it is a variable name
    if (a.value && facts.integer.has(name)) env.evaluate(wordEvaluation(a.value, 'arith', cmd.text));
    if (a.value && facts.nameref.has(name)) env.evaluate(wordEvaluation(a.value, 'name', cmd.text));
  }
  for (const ev of cmd.evaluations) env.evaluate(ev);
  for (const r of cmd.redirects) {
    if (r.target && isWriteOp(r.op) && writeCheck(self, r.target)) sub.readOnly = false;
    // `nc host port < ~/.ssh/id_rsa`: a secret fed to a program that sends it away
    const name = cmd.words[0]?.value;
    if (r.target && r.op === '<' && name && SENDERS.has(path.posix.basename(name)) && isSecretPath(r.target, self)) {
      finding(self, { tier: 2, reason: `${q(cmd.text)} sends ${q(r.target.raw)} (a secret: keys, tokens, credentials) to another machine` });
    }
  }
  if (cmd.kind === 'command') env.argv(resolveWords(cmd.words, known));
  else if (cmd.kind === 'declare') (BUILTIN_CHECKS[keyword] ?? declareCheck)({ ...self, name: keyword, base: keyword, args: cmd.words.slice(1), vals: cmd.words.slice(1).map((w) => w.value ?? w.raw) });
  else if (cmd.kind === 'redirect' && !sub.readOnly) sub.key = exactKey(cmd.text);
  // a variable handed to a program that Clamp does not know: a read-only command asks
  if (unknownEnv.length && sub.readOnly) unknownEnvNote(self, unknownEnv);
  return sub;
}

function makeEnv(sub: SubJudgement, cmd: ShellCommand | null, all: readonly ShellCommand[], cwds: (string | null)[], ctx: JudgeCtx, facts: VarFacts): CheckEnv {
  const env: CheckEnv = {
    workspace: ctx.workspace,
    home: ctx.home,
    cwds,
    sub,
    stdin: cmd?.stdin ?? null,
    upstream: cmd ? cmd.upstream.map((i) => all[i]!) : [],
    argv: (words) => judgeArgv(words, env),
    part: (words) => {
      const scratch: SubJudgement = { text: sub.text, readOnly: true, findings: [], nested: [], display: false };
      judgeArgv(words, { ...env, sub: scratch, stdin: null, upstream: [] });
      sub.findings.push(...scratch.findings.filter((f) => f.tier || f.opaque));
      sub.nested.push(...scratch.nested);
    },
    // a method, so a copy of the environment with its own sub-command (part) judges into that one
    evaluate(ev) {
      judgeEvaluation(ev, facts, this, cmd ? all.indexOf(cmd) : -1);
    },
    script: (source, what) => {
      if (ctx.depth >= MAX_NESTING) {
        sub.findings.push({ opaque: true, reason: `${q(sub.text)} nests scripts too deeply to check` });
        return;
      }
      const inner = judgeScript(source, { ...ctx, depth: ctx.depth + 1 }, cwds);
      if (inner.error) sub.findings.push({ opaque: true, reason: `${what} could not be parsed (${inner.error}), so it cannot be checked` });
      for (const s of inner.subs) {
        sub.findings.push(...s.findings.filter((f) => f.tier || f.opaque));
        if (s.display) sub.nested.push(s.text, ...s.nested);
      }
    },
  };
  return env;
}

function judgeArgv(words: Word[], env: CheckEnv): void {
  const head = words[0];
  if (!head) return;
  if (head.value === null || head.glob) {
    env.sub.readOnly = false;
    env.sub.findings.push({ opaque: true, reason: `${q(env.sub.text)} takes its command name from ${q(head.raw)}, so what runs is only known when it runs` });
    return;
  }
  const name = head.value;
  const slash = name.includes('/');
  const args = words.slice(1);
  checkArgv({
    name,
    base: slash ? path.posix.basename(name) : name,
    args,
    vals: args.map((a) => a.value ?? a.raw),
    trusted: !slash || SYSTEM_BIN_DIRS.has(path.posix.dirname(name)),
    env,
  });
}

function exactKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function joinReasons(findings: readonly Finding[]): string {
  const reasons = [...new Set(findings.map((f) => f.reason))];
  const shown = reasons.slice(0, MAX_REASONS).join('; ');
  return reasons.length > MAX_REASONS ? `${shown}; and ${reasons.length - MAX_REASONS} more` : shown;
}

function combine(subs: SubJudgement[], error: string | null): CommandAssessment {
  const visible = subs.filter((s) => s.display);
  const subcommands = [...new Set(visible.flatMap((s) => [exactKey(s.text), ...s.nested.map(exactKey)]))];
  const findings = subs.flatMap((s) => s.findings);
  const tier1 = findings.filter((f) => f.tier === 1);
  if (tier1.length) return { action: 'deny', tier: 1, reason: joinReasons(tier1), subcommands, subRuleKeys: [] };
  if (error) {
    return { action: 'ask', opaque: true, reason: `The command could not be parsed as shell (${error}), so it cannot be checked`, subcommands, subRuleKeys: [] };
  }
  const tier2 = findings.filter((f) => f.tier === 2);
  const opaque = findings.filter((f) => f.opaque);
  const tier = tier2.length ? (2 as const) : undefined;
  if (opaque.length) return { action: 'ask', tier, opaque: true, reason: joinReasons([...tier2, ...opaque]), subcommands, subRuleKeys: [] };
  const needRule = subs.filter((s) => !s.readOnly || s.findings.some((f) => f.tier === 2));
  const exact = (s: SubJudgement) => s.findings.some((f) => f.tier === 2 || f.exactKey) || !s.key;
  if (needRule.length === 0) {
    const names = visible.length ? visible.map((s) => q(s.text)).slice(0, MAX_REASONS).join(', ') : 'nothing';
    return { action: 'allow', reason: `read-only: ${names}`, subcommands, subRuleKeys: [] };
  }
  const subRuleKeys = [...new Set(needRule.map((s) => (exact(s) ? exactKey(s.text) : s.key!)))];
  const notes = needRule.flatMap((s) => {
    const own = s.findings.filter((f) => !f.tier && !f.opaque);
    return own.length ? own : [{ reason: `${q(s.text)} is not a known read-only command` }];
  });
  const reason = joinReasons(tier2.length ? tier2 : notes);
  return { action: 'ask', tier, reason, ruleKey: subRuleKeys.join(' && '), subRuleKeys, subcommands };
}
