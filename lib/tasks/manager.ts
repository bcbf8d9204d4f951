import crypto from 'node:crypto';
import path from 'node:path';
import { BUDGET, type Budget } from '../contract/budget';
import type { ToolContext } from '../contract/types';
import { statusLine } from '../exec/format';
import { formatDuration } from '../contract/text';
import { UnreadQueue, type UnreadSlice } from '../exec/ring';
import { commandEnv, startCommand, type KillReason, type RunHandle, type RunResult } from '../exec/runner';
import type { SandboxSpec } from '../exec/sandbox';
import type { NetJoin } from '../exec/sandbox-net';
import type { ProxyEvent } from '../exec/egress-proxy';
import type { ForwardedPort } from '../contract/tasks';
import { onShutdown } from '../contract/shutdown';
import { TaskEventEmitter, type TaskEventListener, type TaskStatus, type TaskStream } from './events';
import type { TaskInfo } from '../contract/tasks';
export type { TaskInfo } from '../contract/tasks';

/**
 * Background tasks: commands started with run_command(background: true). Each runs through the
 * same runner as a foreground command; the manager adds what the model reads incrementally
 * (bounded unread buffers per stream), the list, kill, shutdown and the live events.
 * Background tasks have no timeout unless one is passed: they are servers and watchers. They end
 * when they exit, on task_kill, or when Clamp shuts down.
 */

export interface TaskStartOptions {
  command: string;
  /** absolute working directory, already confined to the workspace */
  cwd: string;
  sessionId?: string;
  /** absent or 0: no timeout */
  timeoutMs?: number;
  budget?: Budget;
  /** the sandbox it runs in (absent: unconfined) */
  sandbox?: SandboxSpec;
  /** the session's network it runs in (its ports are forwarded to this machine's loopback and shown with the task) */
  net?: NetJoin;
}


export interface TaskRead {
  task: TaskInfo;
  stdout: UnreadSlice;
  stderr: UnreadSlice;
  /** how long the read waited for output or exit */
  waitedMs: number;
  /** what the sandbox's proxy refused it since the last read */
  proxy: ProxyEvent[];
}

interface TaskRecord {
  id: string;
  command: string;
  cwd: string;
  sessionId?: string;
  handle: RunHandle;
  result?: RunResult;
  unread: Record<TaskStream, UnreadQueue>;
  waiters: Set<() => void>;
  ports?: ForwardedPort[];
  net?: NetJoin;
  /** proxy events already told by a read */
  proxySeen: number;
}

function statusOf(r: RunResult | undefined): TaskStatus {
  if (!r) return 'running';
  if (r.spawnError) return 'failed';
  if (r.killedBy === 'timeout') return 'timed out';
  if (r.killedBy) return 'killed';
  return r.exitCode !== null ? 'exited' : 'killed';
}

/** One process-wide registry of background tasks. */
export class TaskManager {
  private readonly emitter = new TaskEventEmitter();
  private readonly tasks = new Map<string, TaskRecord>();
  private seq = 0;
  private closing = false;

  constructor(readonly dataDir: string) {}

  /** where task logs go */
  get logDir(): string {
    return path.join(this.dataDir, 'logs');
  }

  /** Subscribe to start / output / exit events; returns the unsubscribe function. */
  on(listener: TaskEventListener): () => void {
    return this.emitter.on(listener);
  }

  /** Start a task. Throws (with the next step in the message) past TASK_MAX_RUNNING or while shutting down. */
  start(o: TaskStartOptions): TaskInfo {
    const b = o.budget ?? { ...BUDGET };
    this.admit(b);
    this.prune(b.TASK_MAX_KEPT);
    const id = `t${++this.seq}`;
    const unread = { stdout: new UnreadQueue(b.TASK_CAPTURE_MAX_BYTES), stderr: new UnreadQueue(b.TASK_CAPTURE_MAX_BYTES) };
    const waiters = new Set<() => void>();
    const wake = () => {
      for (const w of [...waiters]) w();
    };
    const handle = this.spawn(id, o, b, unread, wake);
    const rec: TaskRecord = { id, command: o.command, cwd: o.cwd, sessionId: o.sessionId, handle, unread, waiters, ...(o.net ? { net: o.net } : {}), proxySeen: 0 };
    this.tasks.set(id, rec);
    this.follow(rec, wake);
    return this.info(rec);
  }

  /** Throws while Clamp shuts down or when TASK_MAX_RUNNING tasks already run. */
  private admit(b: Budget): void {
    if (this.closing) throw new Error('Clamp is shutting down; no new background task can start.');
    const running = [...this.tasks.values()].filter((t) => !t.result).length;
    if (running >= b.TASK_MAX_RUNNING) {
      throw new Error(
        `${running} background tasks are already running (the limit is ${b.TASK_MAX_RUNNING}). Stop one with task_kill (see task_list), then start this one again.`,
      );
    }
  }

  /** The task's command on the runner: its output kept unread for task_output and sent to listeners as it comes. */
  private spawn(id: string, o: TaskStartOptions, b: Budget, unread: TaskRecord['unread'], wake: () => void): RunHandle {
    return startCommand({
      id: `task-${id}-${crypto.randomBytes(3).toString('hex')}`,
      command: o.command,
      cwd: o.cwd,
      logDir: this.logDir,
      captureMaxBytes: b.TASK_OUTPUT_MAX_BYTES,
      timeoutMs: o.timeoutMs || undefined,
      killGraceMs: b.COMMAND_KILL_GRACE_MS,
      env: commandEnv(),
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      ...(o.net ? { net: o.net } : {}),
      progressIntervalMs: b.COMMAND_PROGRESS_INTERVAL_MS,
      progressMaxBytes: b.COMMAND_PROGRESS_MAX_BYTES,
      onData: (stream, chunk) => unread[stream].push(chunk),
      onOutput: (stream, text) => {
        this.emitter.emit({ type: 'output', taskId: id, sessionId: o.sessionId, stream, text });
        wake();
      },
    });
  }

  /** Tell listeners the task started, each change of its forwarded ports, and how it ended. */
  private follow(rec: TaskRecord, wake: () => void): void {
    const { id: taskId, sessionId, handle } = rec;
    rec.net?.listen((ports) => {
      rec.ports = ports;
      this.emitter.emit({ type: 'ports', taskId, sessionId, ports });
    });
    this.emitter.emit({ type: 'start', taskId, sessionId, command: rec.command, cwd: rec.cwd, pid: handle.pid, startedAt: handle.startedAt, logPaths: handle.logPaths });
    void handle.done.then((r) => {
      rec.result = r;
      this.emitter.emit({
        type: 'exit',
        taskId,
        sessionId,
        status: statusOf(r) as Exclude<TaskStatus, 'running'>,
        exitCode: r.exitCode,
        signal: r.signal,
        durationMs: r.durationMs,
        statusText: statusLine(r),
      });
      wake();
    });
  }

  /** A task by id, or undefined. */
  get(id: string): TaskInfo | undefined {
    const rec = this.tasks.get(id);
    return rec ? this.info(rec) : undefined;
  }

  /** Every task (of one session when sessionId is given), oldest first. */
  list(sessionId?: string): TaskInfo[] {
    return [...this.tasks.values()].filter((t) => sessionId === undefined || t.sessionId === sessionId).map((t) => this.info(t));
  }

  /**
   * What is new since the last read, up to maxBytes per stream. With waitMs, waits that long at most
   * for new output or the exit, returning as soon as either comes (or the signal aborts).
   * maxBytes may be chosen after the wait: a function gets peek (what a read of n bytes per stream
   * would return, taking nothing) and returns the n to take. undefined for an unknown id.
   */
  async read(id: string, o: { maxBytes: number | ((peek: (perStreamBytes: number) => TaskRead) => number); waitMs?: number; signal?: AbortSignal }): Promise<TaskRead | undefined> {
    const rec = this.tasks.get(id);
    if (!rec) return undefined;
    const t0 = Date.now();
    const nothingNew = () =>
      rec.unread.stdout.unreadBytes + rec.unread.stderr.unreadBytes + rec.unread.stdout.pendingDroppedBytes + rec.unread.stderr.pendingDroppedBytes === 0;
    if (o.waitMs && o.waitMs > 0 && !rec.result && nothingNew() && !o.signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          rec.waiters.delete(done);
          o.signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, o.waitMs);
        rec.waiters.add(done);
        o.signal?.addEventListener('abort', done, { once: true });
      });
    }
    const task = this.info(rec);
    const waitedMs = Date.now() - t0;
    const events = rec.net?.refused() ?? [];
    const proxy = events.slice(rec.proxySeen);
    const max =
      typeof o.maxBytes === 'number'
        ? o.maxBytes
        : o.maxBytes((n) => ({ task, stdout: rec.unread.stdout.peek(n), stderr: rec.unread.stderr.peek(n), waitedMs, proxy }));
    rec.proxySeen = events.length;
    return { task, stdout: rec.unread.stdout.take(max), stderr: rec.unread.stderr.take(max), waitedMs, proxy };
  }

  /** Kill a task's whole process group and wait until it is reaped; undefined for an unknown id. */
  async kill(id: string, reason: KillReason = 'user'): Promise<TaskInfo | undefined> {
    const rec = this.tasks.get(id);
    if (!rec) return undefined;
    rec.result = await rec.handle.kill(reason);
    return this.info(rec);
  }

  /** Kill every running task and wait for all of them; refuses new tasks from then on. Idempotent. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.tasks.values()].filter((t) => !t.handle.finished).map((t) => t.handle.kill('shutdown')));
  }

  /** Forget the oldest finished tasks so at most max - 1 remain before a new one (their logs stay). */
  private prune(max: number): void {
    for (const [id, t] of this.tasks) {
      if (this.tasks.size < max) break;
      if (t.result) this.tasks.delete(id);
    }
  }

  private info(rec: TaskRecord): TaskInfo {
    const r = rec.result;
    const bytes = rec.handle.bytes();
    return {
      id: rec.id,
      command: rec.command,
      cwd: rec.cwd,
      ...(rec.sessionId !== undefined ? { sessionId: rec.sessionId } : {}),
      pid: rec.handle.pid,
      status: statusOf(r),
      statusText: r ? statusLine(r) : `running for ${formatDuration(Date.now() - rec.handle.startedAt)}`,
      exitCode: r?.exitCode ?? null,
      signal: r?.signal ?? null,
      startedAt: rec.handle.startedAt,
      durationMs: r ? r.durationMs : Date.now() - rec.handle.startedAt,
      unreadBytes: { stdout: rec.unread.stdout.unreadBytes, stderr: rec.unread.stderr.unreadBytes },
      totalBytes: bytes,
      logPaths: rec.handle.logPaths,
      combinedLogPath: rec.handle.combinedLogPath,
      // a task that ended listens on nothing
      ...(rec.ports?.length && !r ? { ports: rec.ports } : {}),
    };
  }
}

const KEY = Symbol.for('clamp.tasks');

/**
 * The process-wide task manager, kept on globalThis so a Next.js route bundle and the launcher
 * share one instance (the first caller's dataDir wins). It is registered with the launcher's
 * shutdown hooks; nothing here listens to process signals.
 */
export function getTaskManager(dataDir: string): TaskManager {
  const g = globalThis as unknown as Record<symbol, TaskManager | undefined>;
  let m = g[KEY];
  if (!m) {
    m = new TaskManager(dataDir);
    g[KEY] = m;
    const mgr = m;
    onShutdown(() => mgr.shutdown());
  }
  return m;
}

/** Kill every task of the process-wide manager, if one was made (the launcher calls this on SIGINT/SIGTERM). */
export async function shutdownTasks(): Promise<void> {
  const m = (globalThis as unknown as Record<symbol, TaskManager | undefined>)[KEY];
  if (m) await m.shutdown();
}

function isTaskManager(v: unknown): v is TaskManager {
  const m = v as TaskManager | null;
  return typeof m === 'object' && m !== null && typeof m.start === 'function' && typeof m.read === 'function' && typeof m.kill === 'function';
}

/** The task manager for a tool call: ctx.services.tasks when the host injected one, else the process-wide one. */
export function tasksFor(ctx: Pick<ToolContext, 'services' | 'dataDir'>): TaskManager {
  const s = ctx.services.tasks;
  return isTaskManager(s) ? s : getTaskManager(ctx.dataDir);
}
