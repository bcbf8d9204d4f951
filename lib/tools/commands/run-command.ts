import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { clipLine, formatBytes, formatCount, formatDuration } from '../../contract/text';
import { confinedPath } from '../../contract/paths';
import { assessCommand } from '../../policy/command-safety';
import { callRunPrefix, commandEnv, loadRunner, newRunId, runCommand } from '../../exec/runner';
import { sandboxNote } from '../../exec/sandbox-note';
import type { SandboxSpec } from '../../exec/sandbox';
import { sandboxChoice, sandboxSpecFor, savedSandboxSettings, withApprovedNetwork, withSandbox, type SandboxChoice } from './sandbox-policy';
import { formatRun } from '../../exec/format';
import { tasksFor } from '../../tasks/manager';
import { spawnTurn } from '../../exec/spawn-turn';
import { egressNote } from '../../exec/egress-note';
import type { NetJoin } from '../../exec/sandbox-net';
import { parseHostPattern } from '../../contract/hosts';
import { hostsToGrant, joinSessionNet, sessionHosts } from './net-join';
import { withHostGrant } from './host-grant';

const schema = z.strictObject({
  command: z.string().describe('Command line for bash -c.'),
  cwd: z.string().optional().describe('Working directory inside the workspace (default: its root).'),
  timeout_ms: z
    .number()
    .int()
    .optional()
    .describe('Milliseconds before the command is killed.'),
  background: z.boolean().optional().describe('Start a background task and return its id at once.'),
  sandbox: z
    .enum(['network', 'off'])
    .optional()
    .describe('Only after a failure the sandbox caused: "network" to reach the network, "off" to run outside the sandbox. The person must approve it.'),
  sandbox_reason: z.string().optional().describe('Why this command needs more than the sandbox gives (shown to the person).'),
  allow_hosts: z
    .array(z.string().refine((h) => !('error' in parseHostPattern(h)), { error: (i) => `${JSON.stringify(i.input)} is not a host: pass a host name (packages.example.org), *.name for every name below it, or an IP address, optionally with :port` }))
    .max(20)
    .optional()
    .describe('Only after a result said the sandbox\'s proxy refused them: the hosts this command must reach (a package registry …). The person must approve; they stay allowed for the rest of the session. Give sandbox_reason.'),
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
  const { abs, rel } = confinedPath(ctx, input.cwd ?? '.');
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

const PROXY_ONLY =
  'Inside, the network is reached only through Clamp\'s proxy (HTTP_PROXY, HTTPS_PROXY and npm\'s and pip\'s proxy settings point at it), for the hosts the person allows: a program that ignores those variables cannot connect, and names do not resolve inside.';

/** What the result says about where the command ran, when it is not the ordinary sandbox. */
function sandboxNotes(choice: SandboxChoice): string[] {
  if (choice.unavailable) return [`it ran WITHOUT the sandbox, approved by the person: ${choice.unavailable}.`];
  if (choice.escalation === 'off') return ['it ran outside the sandbox (approved by the person for this command only).'];
  if (choice.escalation === 'network' || choice.approvedNetwork) return ['it ran with network access (approved by the person for this command only).'];
  return [];
}

function startBackground(input: Input, ctx: ToolContext, cwd: { abs: string; rel: string }, timeoutMs: number | undefined, notes: string[], sandbox: SandboxSpec | undefined, net: NetJoin | undefined): ToolOutput<RunCommandMeta> {
  const b = ctx.budget;
  let info;
  try {
    info = tasksFor(ctx).start({ command: input.command, cwd: cwd.abs, sessionId: ctx.sessionId, timeoutMs, budget: b, ...(sandbox ? { sandbox } : {}), ...(net ? { net } : {}) });
  } catch (err) {
    net?.release();
    throw new ToolError(err instanceof Error ? err.message : String(err));
  }
  const ends = timeoutMs
    ? `It runs until it exits, is stopped with task_kill, Clamp shuts down, or ${formatDuration(timeoutMs)} pass (timeout_ms).`
    : 'It has no timeout: it runs until it exits, is stopped with task_kill, or Clamp shuts down.';
  const output = [
    `Started background task ${info.id} (pid ${info.pid ?? 'unknown'}) in ${cwd.rel}: ${clipLine(input.command, b.COMMAND_SHOWN_MAX_BYTES)}`,
    ...notes.map((n) => `note: ${n}`),
    ends,
    `Read its output with task_output(id: "${info.id}"); pass wait_ms (at most ${formatCount(b.TASK_WAIT_MAX_MS)}) to wait for new output or its exit instead of polling. ` +
      `task_list shows every task; task_kill(id: "${info.id}") stops it.`,
    `Logs (everything it prints): stdout ${info.logPaths.stdout}, stderr ${info.logPaths.stderr}.`,
    ...(net ? ['A port it listens on is forwarded to this machine\'s 127.0.0.1 (the same number when free there); task_output and task_list give the address, and the person sees it as a link.'] : []),
  ].join('\n');
  return {
    output,
    meta: { taskId: info.id, pid: info.pid, background: true, timeoutMs: timeoutMs ?? null, logPaths: info.logPaths, cwd: cwd.rel, command: input.command },
  };
}

/** Where and how a call runs: its folder, timeout, sandbox and network, and the notes on what is out of the ordinary. */
interface Launch {
  cwd: { abs: string; rel: string };
  timeoutMs: number | undefined;
  sandbox: SandboxSpec | undefined;
  net?: NetJoin;
  /** why the session's network could not start */
  noNet?: string;
  notes: string[];
}

/** Resolve the folder, the timeout and the sandbox; allow the approved hosts for the session; join the session's network. */
async function prepareLaunch(input: Input, ctx: ToolContext): Promise<Launch> {
  const cwd = workingDir(input, ctx);
  const { timeoutMs, note } = resolveTimeout(input.timeout_ms, ctx.budget, input.background === true);
  const choice = withApprovedNetwork(sandboxChoice(ctx.mode, input.sandbox, process.env, savedSandboxSettings(ctx)), ctx);
  const sandbox = sandboxSpecFor(choice, ctx);
  const notes = [...(note ? [note] : []), ...sandboxNotes(choice), ...(sandbox?.notes ?? [])];
  // the call got here with its allow_hosts approved (or already allowed): they stay allowed for the session
  const granted = sandbox && !sandbox.network ? hostsToGrant(input.allow_hosts ?? [], ctx) : [];
  if (granted.length) {
    sessionHosts(ctx).grant(granted);
    notes.push(`the sandbox's proxy allows ${granted.join(', ')} for the rest of this session (approved by the person).`);
  }
  const { join: net, problem: noNet } = sandbox ? await joinSessionNet(ctx, sandbox) : {};
  // a background task starts synchronously (tasksFor(ctx).start): the runner is loaded before
  await loadRunner();
  if (noNet && input.allow_hosts?.length) notes.push(`no host can be reached: ${noNet}.`);
  return { cwd, timeoutMs, sandbox, net, noNet, notes };
}

/** Run the command in the foreground, its output streamed to the page as it comes. */
function runForeground(input: Input, ctx: ToolContext, l: Launch): ReturnType<typeof runCommand> {
  const b = ctx.budget;
  const progress = ctx.onProgress;
  return runCommand({
    command: input.command,
    cwd: l.cwd.abs,
    logDir: path.join(ctx.dataDir, 'logs'),
    // named after the call, so a restart finds what it printed
    ...(ctx.callId ? { id: newRunId(callRunPrefix(ctx.callId)) } : {}),
    captureMaxBytes: b.COMMAND_CAPTURE_MAX_BYTES,
    timeoutMs: l.timeoutMs,
    killGraceMs: b.COMMAND_KILL_GRACE_MS,
    signal: ctx.signal,
    env: commandEnv(),
    progressIntervalMs: b.COMMAND_PROGRESS_INTERVAL_MS,
    progressMaxBytes: b.COMMAND_PROGRESS_MAX_BYTES,
    ...(l.sandbox ? { sandbox: l.sandbox } : {}),
    ...(l.net ? { net: l.net } : {}),
    ...(progress ? { onOutput: (stream: 'stdout' | 'stderr', text: string) => progress({ kind: 'output', stream, text }) } : {}),
  });
}

/** How a foreground command ended, with its output, every note (the proxy's refusals, a failure the sandbox caused) and the meta. */
function foregroundResult(input: Input, ctx: ToolContext, l: Launch, r: Awaited<ReturnType<typeof runCommand>>): ToolOutput<RunCommandMeta> {
  const b = ctx.budget;
  const { sandbox, net, noNet } = l;
  const refused = net?.refused() ?? [];
  const proxy = egressNote(refused);
  let blamed = sandbox ? sandboxNote(r, sandbox) : undefined;
  // no network of its own, but the proxy: a program that ignored it, or a name it tried to resolve itself
  if (blamed && net && !proxy && /has no network/.test(blamed)) blamed += ` ${PROXY_ONLY}`;
  else if (blamed && noNet && /has no network/.test(blamed)) blamed += ` Its network cannot start here: ${noNet}.`;
  const f = formatRun(r, {
    maxBytes: b.TOOL_OUTPUT_MAX_BYTES,
    notes: [...l.notes, ...(proxy ? [proxy] : []), ...(blamed ? [blamed] : [])],
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
      timeoutMs: l.timeoutMs ?? null,
      logPath: r.logPaths.stdout,
      logPaths: r.logPaths,
      stdoutBytes: r.stdout.totalBytes,
      stderrBytes: r.stderr.totalBytes,
      cwd: l.cwd.rel,
      command: input.command,
      sandbox: sandbox ? { level: sandbox.level, network: sandbox.network } : null,
      ...(blamed || proxy ? { sandboxBlamed: true } : {}),
      ...(refused.length ? { proxyRefused: [...new Set(refused.map((e) => e.host))] } : {}),
    },
  };
}

/** What run_command tells the page: how a foreground command ended, or the task a background one started. */
export interface RunCommandMeta {
  command: string;
  /** the working directory, relative to the workspace */
  cwd: string;
  pid?: number | null;
  timeoutMs: number | null;
  logPaths: { stdout: string; stderr: string };
  /** foreground: how it ended */
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  killedByUser?: boolean;
  durationMs?: number;
  /** foreground: the stdout log (the page's "Open full log") */
  logPath?: string;
  stdoutBytes?: number;
  stderrBytes?: number;
  /** foreground: the sandbox it ran in (null: none), and whether a failure looks like the sandbox's doing */
  sandbox?: { level: SandboxSpec['level']; network: SandboxSpec['network'] } | null;
  sandboxBlamed?: true;
  /** hosts the sandbox's proxy refused or could not reach while it ran */
  proxyRefused?: string[];
  /** background: the task it started */
  taskId?: string;
  background?: true;
}

export const runCommandTool = defineTool({
  name: 'run_command',
  effect: 'system',
  traits: { cardOpen: true, command: true, hookAs: { name: 'Bash' } },
  schema,
  nonEmpty: ['command'],
  summary: (input, r?: ToolResult<RunCommandMeta>) => {
    const extra = [
      input.cwd && input.cwd !== '.' ? `(in ${input.cwd})` : '',
      input.background ? '(background)' : '',
      input.allow_hosts?.length ? `(reaching ${input.allow_hosts.join(', ')})` : '',
      r?.meta?.taskId ? `→ ${r.meta.taskId}` : '',
    ];
    return [r?.meta?.editedCommand ?? input.command, ...extra.filter(Boolean)].join(' ');
  },
  paths: (input) => [{ path: input.cwd ?? '.', access: 'read', field: 'cwd' }],
  // every sub-command is judged before anything runs: tier 1 is refused, tier 2 and opaque ask, read-only runs
  policy: async (input, ctx) => {
    const choice = sandboxChoice(ctx.mode, input.sandbox, process.env, savedSandboxSettings(ctx));
    const d = withSandbox(await assessCommand(input.command, { workspace: ctx.workspace, cwd: input.cwd }), choice, ctx.mode, input.sandbox_reason);
    // hosts matter only where the proxy is the way out: not with the network open or outside the sandbox
    const proxied = !choice.network && choice.level !== 'off' && choice.escalation !== 'off' && !choice.unavailable;
    return proxied ? withHostGrant(d, hostsToGrant(input.allow_hosts ?? [], ctx), input.sandbox_reason) : d;
  },
  describe: (b) =>
    [
      'Run a shell command (bash -c) in the workspace root or cwd. Returns how it ended (exit code N, timed out, or killed by the user), its duration, stdout and stderr.',
      'stdin is closed and pagers, editors and prompts are disabled: pass non-interactive flags (-y, --no-edit, git --no-pager).',
      `Timeout: ${formatDuration(b.COMMAND_TIMEOUT_DEFAULT_MS)} by default, at most ${formatDuration(b.COMMAND_TIMEOUT_MAX_MS)} (timeout_ms; out-of-range values are clamped); then the whole process group is killed.`,
      `Output over ${formatBytes(b.TOOL_OUTPUT_MAX_BYTES)} keeps each stream's end (and start, for failures) and says what was cut; full logs are saved at the paths given: read them with read_file or grep.`,
      'Processes left running are stopped when it exits. For servers, watchers and long builds pass background: true to get a task id at once, then use task_output, task_list, task_kill; a background task has no timeout unless timeout_ms is given.',
      'It runs in a sandbox: only the workspace (not .git/hooks or .git/config), a private /tmp and $CLAMP_SCRATCH are writable; of HOME only what toolchains read is visible, secrets are hidden, the environment holds only what builds need; no network but Clamp\'s proxy, no unix sockets; limits on processes, memory and file size stop a runaway. A failure the sandbox caused says so; only then retry with sandbox: "network" or "off" and a sandbox_reason, which the person must approve.',
      'Network: only through Clamp\'s proxy (HTTP_PROXY/HTTPS_PROXY are set), to the hosts the person allows; a host it refused is named in the result: only then retry with allow_hosts (those hosts) and a sandbox_reason, which the person must approve for the session. The session\'s sandboxed commands share one network: a server a background task listens on is reached from later commands at localhost:<port>, and is forwarded to this machine\'s 127.0.0.1 for the person.',
      'For files use read_file, glob, grep (the tool) and edit_file, not cat, find, shell grep or sed.',
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<RunCommandMeta>> {
    const launch = await prepareLaunch(input, ctx);
    if (input.background === true) {
      await spawnTurn();
      return startBackground(input, ctx, launch.cwd, launch.timeoutMs, launch.notes, launch.sandbox, launch.net);
    }
    return foregroundResult(input, ctx, launch, await runForeground(input, ctx, launch));
  },
});
