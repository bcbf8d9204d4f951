import path from 'node:path';
import { ToolError, type ToolContext } from '../../contract/types';
import { cutHeadTail, decodeCut } from '../../contract/text';
import { commandEnv, newRunId, runCommand, type RunResult } from '../../exec/runner';
import { statusLine } from '../../exec/format';

/**
 * The git tools' one way to run git: through the command runner (both pipes drained, capture
 * capped, logs on disk, abort and timeout kill the group), with every argument single-quoted.
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

/**
 * Run `git <args>` in the workspace. Never throws for git's own failures (see r.exitCode);
 * readOnly runs take no optional locks, so a status never fights the user's own git for index.lock.
 */
export async function runGit(args: readonly string[], ctx: ToolContext, opts: { readOnly: boolean }): Promise<GitRun> {
  const b = ctx.budget;
  const env = commandEnv();
  // git's messages in English, so the checks below can read them; the user's LANG stays for hooks
  delete env.LC_ALL;
  env.LC_MESSAGES = 'C';
  env.LANGUAGE = 'C';
  // a path argument is a file name, never a glob or pathspec magic
  env.GIT_LITERAL_PATHSPECS = '1';
  if (opts.readOnly) env.GIT_OPTIONAL_LOCKS = '0';
  const r = await runCommand({
    command: ['git', ...PLAIN, ...args].map((a, i) => (i === 0 ? a : shellQuote(a))).join(' '),
    cwd: ctx.workspace,
    logDir: path.join(ctx.dataDir, 'logs'),
    id: newRunId(`git-${args[0]}`),
    captureMaxBytes: b.COMMAND_CAPTURE_MAX_BYTES,
    timeoutMs: b.GIT_TIMEOUT_MS,
    killGraceMs: b.COMMAND_KILL_GRACE_MS,
    signal: ctx.signal,
    env,
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
  const repo = g.r.killedBy === null ? await runGit(['rev-parse', '--git-dir'], ctx, { readOnly: true }) : g;
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
