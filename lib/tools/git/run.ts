import path from 'node:path';
import { ToolError, type ToolContext } from '../../contract/types';
import { cutHeadTail, decodeCut } from '../../contract/text';
import { commandEnv, newRunId, runCommand, type RunResult } from '../../exec/runner';
import { findProgram } from '../../exec/programs';
import type { SandboxSpec } from '../../exec/sandbox';
import { statusLine } from '../../exec/format';

/**
 * The git tools' one way to run git: through the command runner (both pipes drained, capture
 * capped, logs on disk, abort and timeout kill the group), with every argument single-quoted, and
 * inside the sandbox. git runs programs the repository names — hooks, filters, fsmonitor, pagers,
 * textconv, gpg, credential helpers, from its config, an included file, `commondir` or `info/attributes` —
 * and a sandboxed command can write every one of them, so git itself runs confined: read-only for a look,
 * workspace-write for a commit, no network, its own pid namespace (nothing it starts outlives the call).
 * Only a sandbox turned off explicitly (CLAMP_SANDBOX=off, the settings page) lets it run on the host.
 */

/** Quote one argument for bash -c: single quotes, each ' written as '\'' (nothing inside is special). */
export function shellQuote(arg: string): string {
  if (arg.includes('\0')) throw new ToolError('An argument contains a NUL byte, which git cannot take. Remove it and call the tool again.');
  return `'${arg.split("'").join("'\\''")}'`;
}

/** The text of a run's stdout and stderr, with whether stdout was kept whole in memory. */
export interface GitRun {
  r: RunResult;
  stdout: string;
  stderr: string;
  /** false when the middle of stdout was only written to the log (the head is still exact) */
  stdoutWhole: boolean;
}

// Options that keep git's output plain and stop it from starting helper programs the repository configures.
const PLAIN = ['--no-pager', '-c', 'color.ui=never', '-c', 'core.quotepath=false', '-c', 'core.fsmonitor=false'];

/** The variables that choose which configuration files git reads, passed from the server's environment into the sandbox. */
const CONFIG_VARS = ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM'] as const;

/** `git status --short` as a person would type it (arguments quoted only where the shell needs it). */
export function gitCommandText(args: readonly string[]): string {
  return ['git', ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : shellQuote(a)))].join(' ');
}

/**
 * The arguments with the sandbox's excluding pathspecs (what the permission rules hide) after `--`: the paths given
 * there become `:(literal)…`, since pathspec magic is then on. Unchanged when nothing is excluded.
 */
export function withExcludes(args: readonly string[], excludes: readonly string[] | undefined): { args: string[]; magic: boolean } {
  if (!excludes?.length) return { args: [...args], magic: false };
  const dash = args.indexOf('--');
  const head = dash === -1 ? args : args.slice(0, dash);
  const paths = dash === -1 ? [] : args.slice(dash + 1).map((p) => `:(literal)${p}`);
  return { args: [...head, '--', ...paths, ...excludes], magic: true };
}

/**
 * Run `git <args>` in the workspace, confined by `sandbox` (from gitSandbox; absent only when the sandbox is
 * off). Never throws for git's own failures (see r.exitCode); readOnly runs take no optional locks, so a status
 * never fights the user's own git for index.lock. `exclude`: the sandbox's excluding pathspecs are added (a diff,
 * a status or a commit leaves out what the permission rules hide).
 */
export async function runGit(args: readonly string[], ctx: ToolContext, opts: { readOnly: boolean; sandbox: SandboxSpec | undefined; exclude?: boolean }): Promise<GitRun> {
  const b = ctx.budget;
  const ex = withExcludes(args, opts.exclude ? opts.sandbox?.gitExcludes : undefined);
  args = ex.args;
  // set in the script, not the environment, so they hold inside the sandbox whatever environment it passes:
  // git's messages in English (the checks below read them; the user's LANG stays for hooks), the repository
  // found above the workspace as on the host (the workspace is a mount of its own inside the sandbox), a path
  // argument is a file name (never a glob or pathspec magic: `:(literal)` when Clamp's excludes need magic), and a
  // look takes no optional locks
  // the person's choice of configuration files (the server's environment) holds there too
  const chosen = CONFIG_VARS.filter((k) => process.env[k] !== undefined).map((k) => `${k}=${shellQuote(process.env[k]!)}`);
  const vars = ['LC_MESSAGES=C', 'GIT_DISCOVERY_ACROSS_FILESYSTEM=1', 'LANGUAGE=C', ...(ex.magic ? [] : ['GIT_LITERAL_PATHSPECS=1']), ...(opts.readOnly ? ['GIT_OPTIONAL_LOCKS=0'] : []), ...chosen];
  // an absolute git, so a PATH entry relative to the workspace (`.`) cannot name the workspace's own `git`
  const git = findProgram('git') ?? 'git';
  const r = await runCommand({
    command: `unset LC_ALL; export ${vars.join(' ')}; exec ${[git, ...PLAIN, ...args].map(shellQuote).join(' ')}`,
    cwd: ctx.workspace,
    logDir: path.join(ctx.dataDir, 'logs'),
    id: newRunId(`git-${args[0]}`),
    captureMaxBytes: b.COMMAND_CAPTURE_MAX_BYTES,
    timeoutMs: b.GIT_TIMEOUT_MS,
    killGraceMs: b.COMMAND_KILL_GRACE_MS,
    signal: ctx.signal,
    env: commandEnv(),
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
  });
  const text = (s: RunResult['stdout']) => Buffer.concat([s.head, s.tail]).toString('utf8');
  return {
    r,
    stdout: r.stdout.gapBytes === 0 ? text(r.stdout) : decodeCut(r.stdout.head, { end: true }),
    stderr: text(r.stderr),
    stdoutWhole: r.stdout.gapBytes === 0,
  };
}

/** True when git ran and exited 0. */
export function gitOk(g: GitRun): boolean {
  return g.r.exitCode === 0 && g.r.killedBy === null && !g.r.spawnError;
}

/** The next step for a failure git described on stderr, when Clamp knows one. */
function knownNextStep(tool: string, stderr: string): string | undefined {
  if (/not a git repository/i.test(stderr)) {
    return 'Run `git init` with run_command to start a repository here, or ask the user where the repository is.';
  }
  if (/detected dubious ownership/i.test(stderr)) {
    return 'Git refuses this repository because another user owns it; ask the user to run the `git config --global --add safe.directory` command git suggests.';
  }
  if (/does not have any commits yet|unknown revision or path not in the working tree|bad default revision 'HEAD'/i.test(stderr)) {
    return 'There are no commits yet: stage files with run_command (git add <paths>) and create the first commit with git_commit.';
  }
  if (/please tell me who you are|empty ident|unable to auto-detect email/i.test(stderr)) {
    return `Git has no author identity: ask the user which name and email to use, set them with run_command (git config user.name "…" and git config user.email "…"), then call ${tool} again.`;
  }
  if (/Read-only file system/i.test(stderr)) {
    return `The sandbox ${tool} runs git in keeps this repository's git directory read-only: it lies outside the workspace (a worktree, or a workspace inside a bigger repository), or the sandbox level is read-only. Ask the user to run the git command themselves, or run it with run_command with sandbox: "off" and a sandbox_reason (the person must approve it).`;
  }
  if (/index\.lock/i.test(stderr)) {
    return `Another git process is running (or crashed and left .git/index.lock): wait and call ${tool} again; if it persists, ask the user before removing the lock file.`;
  }
  return undefined;
}

/**
 * gitFailure for git diff: outside a repository `git diff` turns into `diff --no-index` and prints
 * its usage, so ask git where the repository is and report that instead.
 */
export async function diffFailure(tool: string, what: string, g: GitRun, ctx: ToolContext, nextStep: string): Promise<ToolError> {
  const repo = g.r.killedBy === null ? await runGit(['rev-parse', '--git-dir'], ctx, { readOnly: true, sandbox: g.r.sandbox }) : g;
  return gitFailure(tool, what, gitOk(repo) ? g : repo, ctx, nextStep);
}

/** What a failed git run's error tells the page (every git tool's meta may carry it). */
export type GitFailureMeta = {
  exitCode?: number | null;
  killedBy?: RunResult['killedBy'];
  logPaths?: RunResult['logPaths'];
};

/**
 * The error a failed git run becomes: what failed, git's own words (stderr, and stdout when
 * git spoke there), and the next step.
 */
export function gitFailure(tool: string, what: string, g: GitRun, ctx: ToolContext, nextStep: string): ToolError {
  const { r } = g;
  const meta: GitFailureMeta = { exitCode: r.exitCode, killedBy: r.killedBy, logPaths: r.logPaths };
  if (r.killedBy === 'user') return new ToolError(`${what} was stopped by the user before it finished.`, undefined, meta);
  if (r.killedBy || r.spawnError) {
    const step = r.killedBy === 'timeout' ? `Call ${tool} again; if git keeps hanging, run it with run_command to see why.` : nextStep;
    return new ToolError(`${what} did not finish (${statusLine(r)}).\n${step}`, step, meta);
  }
  if (r.exitCode === 127 && /git: (command )?not found|git: No such file/i.test(g.stderr)) {
    const step = 'git is not installed or not on PATH; ask the user to install it.';
    return new ToolError(`${what} failed: ${step}`, step, meta);
  }
  const maxWords = Math.floor(ctx.budget.TOOL_OUTPUT_MAX_BYTES / 4);
  const said = [g.stderr.trim(), g.stdout.trim()].filter(Boolean).join('\n');
  const words = said ? cutHeadTail(said, maxWords).text.trimEnd() : `(git printed nothing; its logs: ${r.logPaths.stderr})`;
  const step = knownNextStep(tool, said) ?? nextStep;
  const where = /not a git repository/i.test(said) ? ` — the workspace ${ctx.workspace} is not inside a git repository` : '';
  return new ToolError(`${what} failed (exit code ${r.exitCode})${where}:\n${words}\n${step}`, step, meta);
}
