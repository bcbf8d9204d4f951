import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './registry';
import { ToolError, type ToolContext } from './types';
import type { Budget } from './budget';
import { clipLine, formatBytes, formatCount } from './text';
import { resolveInWorkspace } from '../policy/workspace';
import { assessCommand } from '../policy/command-safety';
import { commandEnv, runCommand } from '../exec/runner';
import { formatRun, formatSeconds } from '../exec/format';
import { tasksFor } from '../tasks/manager';

const schema = z.strictObject({
  command: z.string().describe('The command line, run with bash -c. Use non-interactive flags: stdin is closed.'),
  cwd: z.string().optional().describe('Working directory relative to the workspace root (must stay inside it). Default: the workspace root.'),
  timeout_ms: z
    .number()
    .int()
    .optional()
    .describe('Kill the command after this many milliseconds. Foreground default applies when absent; background tasks have no timeout unless given.'),
  background: z.boolean().optional().describe('Start it as a background task and return its id at once (servers, watchers, long builds).'),
});

type Input = z.infer<typeof schema>;

/**
 * The timeout to use and, when the model's value was out of range, the note saying so.
 * A background task without timeout_ms gets none (undefined).
 */
export function resolveTimeout(value: number | undefined, b: Budget, background: boolean): { timeoutMs: number | undefined; note?: string } {
  if (value === undefined) return { timeoutMs: background ? undefined : b.COMMAND_TIMEOUT_DEFAULT_MS };
  if (value > b.COMMAND_TIMEOUT_MAX_MS) {
    return {
      timeoutMs: b.COMMAND_TIMEOUT_MAX_MS,
      note: `timeout_ms ${formatCount(value)} is above the maximum of ${formatCount(b.COMMAND_TIMEOUT_MAX_MS)}; it was clamped to ${formatCount(b.COMMAND_TIMEOUT_MAX_MS)} ms.`,
    };
  }
  if (value < b.COMMAND_TIMEOUT_MIN_MS) {
    return {
      timeoutMs: b.COMMAND_TIMEOUT_MIN_MS,
      note: `timeout_ms ${formatCount(value)} is below the minimum of ${formatCount(b.COMMAND_TIMEOUT_MIN_MS)}; it was raised to ${formatCount(b.COMMAND_TIMEOUT_MIN_MS)} ms.`,
    };
  }
  return { timeoutMs: value };
}

/** The working directory as an existing directory inside the workspace, or a ToolError with the next step. */
function workingDir(input: Input, ctx: ToolContext): { abs: string; rel: string } {
  const { abs, rel } = resolveInWorkspace(ctx.workspace, input.cwd ?? '.', 'read');
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new ToolError(`Working directory not found: ${rel}. Pass an existing directory relative to the workspace root (check with list_dir), or leave cwd out to run in the root.`);
  }
  if (!st.isDirectory()) {
    throw new ToolError(`cwd is not a directory: ${rel}. Pass a directory relative to the workspace root, or leave cwd out to run in the root.`);
  }
  return { abs, rel };
}

function startBackground(input: Input, ctx: ToolContext, cwd: { abs: string; rel: string }, timeoutMs: number | undefined, note?: string) {
  const b = ctx.budget;
  let info;
  try {
    info = tasksFor(ctx).start({ command: input.command, cwd: cwd.abs, sessionId: ctx.sessionId, timeoutMs, budget: b });
  } catch (err) {
    throw new ToolError(err instanceof Error ? err.message : String(err));
  }
  const ends = timeoutMs
    ? `It runs until it exits, is stopped with task_kill, Clamp shuts down, or ${formatSeconds(timeoutMs)} pass (timeout_ms).`
    : 'It has no timeout: it runs until it exits, is stopped with task_kill, or Clamp shuts down.';
  const output = [
    `Started background task ${info.id} (pid ${info.pid ?? 'unknown'}) in ${cwd.rel}: ${clipLine(input.command, 200)}`,
    ...(note ? [`note: ${note}`] : []),
    ends,
    `Read its output with task_output(id: "${info.id}"); pass wait_ms (at most ${formatCount(b.TASK_WAIT_MAX_MS)}) to wait for new output or its exit instead of polling. ` +
      `task_list shows every task; task_kill(id: "${info.id}") stops it.`,
    `Logs (everything it prints): stdout ${info.logPaths.stdout}, stderr ${info.logPaths.stderr}.`,
  ].join('\n');
  return {
    output,
    meta: { taskId: info.id, pid: info.pid, background: true, timeoutMs: timeoutMs ?? null, logPaths: info.logPaths, cwd: cwd.rel, command: input.command },
  };
}

export const runCommandTool = defineTool({
  name: 'run_command',
  effect: 'system',
  schema,
  nonEmpty: ['command'],
  paths: (input) => (input.cwd !== undefined ? [{ path: input.cwd, access: 'read' as const, field: 'cwd' }] : []),
  // every sub-command is judged before anything runs: tier 1 is refused, tier 2 and opaque ask, read-only runs
  policy: (input, ctx) => assessCommand(input.command, { workspace: ctx.workspace, cwd: input.cwd }),
  describe: (b) =>
    [
      'Run a shell command (bash -c) in the workspace root, or in cwd, and return how it ended ("exit code N", or "killed: timed out after N s", or "killed by the user"), its duration, and its stdout and stderr sections.',
      'stdin is closed and pagers, editors and prompts are disabled, so pass non-interactive flags (-y, --no-edit, git --no-pager); a command that waits for input fails or hangs until its timeout.',
      `Timeout: ${formatSeconds(b.COMMAND_TIMEOUT_DEFAULT_MS)} by default, at most ${formatSeconds(b.COMMAND_TIMEOUT_MAX_MS)} (timeout_ms, in milliseconds; values out of range are clamped and the result says so). On timeout the whole process group is killed.`,
      `Output: the result holds at most ${formatBytes(b.TOOL_OUTPUT_MAX_BYTES)}. Past that each stream keeps its end (and its start when it looks like a failure) and says how many bytes and lines were cut; everything is saved to log files whose paths the result gives — read them with read_file (offset/limit) or search them with grep.`,
      'Processes a foreground command leaves running are stopped when it exits. For servers, watchers and long builds pass background: true: it returns a task id at once; then read new output with task_output (it can wait for output), list tasks with task_list, stop one with task_kill. Background tasks have no timeout unless you pass timeout_ms.',
      'To read files use read_file, to find files use glob, to search contents use grep, to change files use edit_file — not cat, find, grep or sed through this tool.',
    ].join('\n'),
  async run(input, ctx) {
    const b = ctx.budget;
    const cwd = workingDir(input, ctx);
    const background = input.background === true;
    const { timeoutMs, note } = resolveTimeout(input.timeout_ms, b, background);
    if (background) return startBackground(input, ctx, cwd, timeoutMs, note);

    const progress = ctx.onProgress;
    const r = await runCommand({
      command: input.command,
      cwd: cwd.abs,
      logDir: path.join(ctx.dataDir, 'logs'),
      captureMaxBytes: b.COMMAND_CAPTURE_MAX_BYTES,
      timeoutMs,
      killGraceMs: b.COMMAND_KILL_GRACE_MS,
      signal: ctx.signal,
      env: commandEnv(),
      progressIntervalMs: b.COMMAND_PROGRESS_INTERVAL_MS,
      progressMaxBytes: b.COMMAND_PROGRESS_MAX_BYTES,
      ...(progress ? { onOutput: (stream: 'stdout' | 'stderr', text: string) => progress({ kind: 'output', stream, text }) } : {}),
    });
    const f = formatRun(r, {
      maxBytes: ctx.outputMaxBytes ?? b.TOOL_OUTPUT_MAX_BYTES,
      notes: note ? [note] : [],
      timeoutMaxMs: b.COMMAND_TIMEOUT_MAX_MS,
    });
    const ok = r.exitCode === 0 && r.killedBy === null && !r.spawnError;
    return {
      output: f.text,
      status: ok ? 'ok' : 'error',
      truncation: f.truncation,
      ...(f.hint ? { hint: f.hint } : {}),
      meta: {
        pid: r.pid,
        exitCode: r.exitCode,
        signal: r.signal,
        timedOut: r.killedBy === 'timeout',
        killedByUser: r.killedBy === 'user',
        durationMs: r.durationMs,
        timeoutMs: timeoutMs ?? null,
        logPath: r.logPaths.stdout,
        logPaths: r.logPaths,
        stdoutBytes: r.stdout.totalBytes,
        stderrBytes: r.stderr.totalBytes,
        cwd: cwd.rel,
        command: input.command,
      },
    };
  },
});
