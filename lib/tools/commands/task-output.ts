import { z } from 'zod';
import { defineTool } from '../../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type Truncation } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { clipLine, fitWithNote, formatBytes, formatCount, formatDuration } from '../../contract/text';
import type { UnreadSlice } from '../../exec/ring';
import { tasksFor, type TaskInfo, type TaskManager, type TaskRead } from '../../tasks/manager';
import type { TaskStream } from '../../tasks/events';
import { egressNote } from '../../exec/egress-note';
import { removedNote } from '../../store/retention-journal';

/** "task t1 · status: exited · exit code 0 · ran 1.2 s": how a task stands, in one line. */
export function taskHeadline(t: TaskInfo): string {
  if (t.status === 'running') return `task ${t.id} · status: running · ${formatDuration(t.durationMs)} so far`;
  return `task ${t.id} · status: ${t.status} · ${t.statusText} · ran ${formatDuration(t.durationMs)}`;
}

/** "listening: 3000 (on this machine: http://127.0.0.1:3000/)": a task's forwarded ports, in one line. */
export function portsLine(ports: NonNullable<TaskInfo['ports']>): string {
  return `listening: ${ports.map((p) => `${p.port} (on this machine: ${p.url})`).join(', ')}; from other commands of this session: localhost:<port>`;
}

/** The task with this id visible to this call (a session sees its own tasks), or a ToolError listing the known ids. */
export function findTask(mgr: TaskManager, id: string, ctx: Pick<ToolContext, 'sessionId'>): TaskInfo {
  const visible = mgr.list(ctx.sessionId);
  const t = visible.find((x) => x.id === id);
  if (t) return t;
  if (visible.length === 0) {
    throw new ToolError(`Unknown task id "${id}": there are no background tasks. Start one with run_command(background: true).`);
  }
  const known = visible.map((x) => `${x.id} (${x.status})`).join(', ');
  throw new ToolError(`Unknown task id "${id}". Known tasks: ${known}. Pass one of those ids; task_list shows them with their commands.`);
}

const schema = z.strictObject({
  id: z.string().describe('Task id from run_command, e.g. "t1".'),
  wait_ms: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Milliseconds to wait for new output or the exit (default 0).'),
});

/** One stream's section: what was dropped, the new text, and what is left to read. */
function section(name: TaskStream, s: UnreadSlice, logPath: string, captureMax: number, removed?: string): string {
  const lines = [`${name} (new since the last read):`];
  if (s.droppedBytes > 0) {
    const range = s.droppedLines ? ` (lines ${formatCount(s.droppedLines.from)}–${formatCount(s.droppedLines.to)})` : '';
    const offset = s.droppedLines ? ` (offset ${s.droppedLines.from})` : '';
    lines.push(
      `[${formatCount(s.droppedBytes)} bytes of ${name}${range} were dropped from memory before this read: more than ${formatBytes(captureMax)} was unread. ` +
        (removed ? `The log file had them, but ${removed[0]!.toLowerCase()}${removed.slice(1)}]` : `The log file has them: ${logPath} — read them with read_file${offset} or search with grep.]`),
    );
  }
  lines.push(s.bytes > 0 ? (s.text.endsWith('\n') ? s.text.slice(0, -1) : s.text) : '(no new output)');
  if (s.remainingBytes > 0) lines.push(`[${formatCount(s.remainingBytes)} more bytes of unread ${name}; call task_output again to continue.]`);
  return lines.join('\n');
}

/** What task_output tells the page: the task's state after the read and how much was read, left and dropped. */
export interface TaskOutputMeta {
  taskId: string;
  status: TaskInfo['status'];
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  logPaths: TaskInfo['logPaths'];
  stdoutBytes: number;
  stderrBytes: number;
  remainingBytes: number;
  droppedBytes: number;
  waitedMs: number;
}

/** The notes above the streams: a wait above the maximum, a wait that brought nothing, what the network proxy saw. */
function readNotes(read: TaskRead, requested: number, waitMs: number, b: Budget): string[] {
  const notes: string[] = [];
  if (requested > b.TASK_WAIT_MAX_MS) {
    notes.push(`note: wait_ms ${formatCount(requested)} is above the maximum of ${formatCount(b.TASK_WAIT_MAX_MS)}; it waited at most ${formatCount(b.TASK_WAIT_MAX_MS)} ms.`);
  }
  const gotNothing = read.stdout.bytes + read.stderr.bytes + read.stdout.droppedBytes + read.stderr.droppedBytes === 0;
  if (waitMs > 0 && gotNothing && read.task.status === 'running') notes.push(`note: no new output within ${formatDuration(read.waitedMs)}.`);
  const proxy = egressNote(read.proxy);
  if (proxy) notes.push(`note: ${proxy}`);
  return notes;
}

/** The whole result text for a read: headline, notes, both streams' sections, next step. */
function renderRead(read: TaskRead, requested: number, waitMs: number, b: Budget, dataDir: string): string {
  const t = read.task;
  const remaining = read.stdout.remainingBytes + read.stderr.remainingBytes;
  const next =
    t.status === 'running'
      ? `Still running: call task_output again for more (wait_ms up to ${formatCount(b.TASK_WAIT_MAX_MS)} waits for it), or stop it with task_kill.`
      : remaining > 0
        ? 'It has finished; call task_output again to read the rest.'
        : 'It has finished and all its output has been read.';
  return [
    taskHeadline(t),
    `command: ${clipLine(t.command, b.COMMAND_SHOWN_MAX_BYTES)}`,
    ...(t.ports?.length ? [portsLine(t.ports)] : []),
    ...readNotes(read, requested, waitMs, b),
    // a finished task's log that retention removed says so (a running task's never is)
    section('stdout', read.stdout, t.logPaths.stdout, b.TASK_CAPTURE_MAX_BYTES, read.stdout.droppedBytes > 0 ? removedNote(dataDir, t.logPaths.stdout) : undefined),
    section('stderr', read.stderr, t.logPaths.stderr, b.TASK_CAPTURE_MAX_BYTES, read.stderr.droppedBytes > 0 ? removedNote(dataDir, t.logPaths.stderr) : undefined),
    next,
  ].join('\n');
}

/**
 * The bytes per stream a read takes so that both streams and the notes fit under the exit clamp: the notes
 * are measured on what a read of that size would return, before anything is taken.
 */
function perStreamBytes(peek: (n: number) => TaskRead, render: (read: TaskRead) => string, b: Budget): number {
  return fitWithNote(
    b.TOOL_OUTPUT_MAX_BYTES,
    (room) => {
      const n = Math.max(1, Math.min(b.TASK_OUTPUT_MAX_BYTES, Math.floor(room / 2)));
      const v = peek(n);
      return { n, read: v, text: v.stdout.text + v.stderr.text };
    },
    (c) => render(c.read),
  ).cut.n;
}

/** A read's result: its text, what is still unread or was dropped (and where the logs keep it), the task's state for the page. */
function readResult(read: TaskRead, output: string): ToolOutput<TaskOutputMeta> {
  const t = read.task;
  const remaining = read.stdout.remainingBytes + read.stderr.remainingBytes;
  const dropped = read.stdout.droppedBytes + read.stderr.droppedBytes;
  let truncation: Truncation | null = null;
  if (remaining > 0 || dropped > 0) {
    const shown = read.stdout.bytes + read.stderr.bytes;
    const cutStream: TaskStream = read.stdout.remainingBytes + read.stdout.droppedBytes > 0 ? 'stdout' : 'stderr';
    truncation = { unit: 'bytes', shown, total: shown + remaining + dropped, spillPath: t.logPaths[cutStream], by: 'tool' };
  }
  const hint =
    remaining > 0
      ? `${formatCount(remaining)} bytes are still unread: call task_output(id: "${t.id}") again to continue.`
      : dropped > 0
        ? `Dropped output is in the logs: stdout ${t.logPaths.stdout}, stderr ${t.logPaths.stderr}.`
        : undefined;
  return {
    output,
    truncation,
    ...(hint ? { hint } : {}),
    meta: {
      taskId: t.id,
      status: t.status,
      exitCode: t.exitCode,
      signal: t.signal,
      durationMs: t.durationMs,
      logPaths: t.logPaths,
      stdoutBytes: read.stdout.bytes,
      stderrBytes: read.stderr.bytes,
      remainingBytes: remaining,
      droppedBytes: dropped,
      waitedMs: read.waitedMs,
    },
  };
}

export const taskOutputTool = defineTool({
  name: 'task_output',
  effect: 'read',
  schema,
  nonEmpty: ['id'],
  summary: (input) => (input.wait_ms ? `${input.id} (wait ${formatDuration(input.wait_ms)})` : input.id),
  describe: (b) =>
    [
      'Read what a background task (run_command with background: true) printed since the last read, with its status (running, exited, killed, timed out) and exit code.',
      `Each read returns at most ${formatBytes(b.TASK_OUTPUT_MAX_BYTES)} of new stdout and as much of stderr; the result says how much is left, and the next call continues. ` +
        `Past ${formatBytes(b.TASK_CAPTURE_MAX_BYTES)} unread, the oldest is dropped from memory (counted; the log file keeps it).`,
      `wait_ms (at most ${formatCount(b.TASK_WAIT_MAX_MS)}) returns as soon as new output or the exit comes: use it instead of polling.`,
      'To see every task use task_list; to stop one use task_kill; for a short command use run_command without background.',
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<TaskOutputMeta>> {
    const b = ctx.budget;
    const mgr = tasksFor(ctx);
    findTask(mgr, input.id, ctx);
    const requested = input.wait_ms ?? 0;
    const waitMs = Math.min(requested, b.TASK_WAIT_MAX_MS);
    const render = (r: TaskRead) => renderRead(r, requested, waitMs, b, ctx.dataDir);
    const read = (await mgr.read(input.id, { maxBytes: (peek) => perStreamBytes(peek, render, b), waitMs, signal: ctx.signal }))!;
    return readResult(read, render(read));
  },
});
