import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { groupAlive, signalGroup, waitGroupGone } from './group';
import { trackGroup, untrackGroup } from './leftovers';
import { LiveBatcher } from './live';
import { PipeGate } from './log-gate';
import { HeadTailCapture, type CaptureSnapshot } from './ring';

/**
 * The one command runner. Foreground run_command and background tasks both start here, so both
 * drain both pipes from the first byte (a chatty child can never block on a full pipe), both
 * bound memory per stream, both log everything to disk and both kill and reap the whole group.
 */

export type StreamName = 'stdout' | 'stderr';
/** Why Clamp stopped a command: its timeout, the user (abort or task_kill), or Clamp shutting down. */
export type KillReason = 'timeout' | 'user' | 'shutdown';

export interface RunOptions {
  command: string;
  /** absolute working directory (already confined by the caller) */
  cwd: string;
  /** directory for the three log files (created when missing) */
  logDir: string;
  /** names the log files; a random one is made when absent */
  id?: string;
  /** in-memory capture per stream (head + tail); the logs hold everything */
  captureMaxBytes: number;
  /** 0 or absent: no timeout */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace for the process group */
  killGraceMs: number;
  /** abort = "killed by the user" */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** every raw chunk, synchronously, in order (task unread buffers) */
  onData?: (stream: StreamName, chunk: Buffer) => void;
  /** live text, batched (the page) */
  onOutput?: (stream: StreamName, text: string) => void;
  progressIntervalMs?: number;
  progressMaxBytes?: number;
}

export interface RunResult {
  id: string;
  command: string;
  cwd: string;
  pid: number | undefined;
  /** null when the process died from a signal or never started */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** set when Clamp stopped it; takes precedence over exitCode when reporting */
  killedBy: KillReason | null;
  timeoutMs: number | undefined;
  startedAt: number;
  durationMs: number;
  stdout: CaptureSnapshot;
  stderr: CaptureSnapshot;
  logPaths: Record<StreamName, string>;
  /** both streams in arrival order, as a terminal shows them (the page's default view of a task) */
  combinedLogPath: string;
  /** the log could not be written (disk full …); the capture is all there is */
  logError?: string;
  /** the shell could not be started */
  spawnError?: string;
  /** processes the command left running in its group were stopped after it exited */
  leftoverStopped: boolean;
  /** a process outside the group (it called setsid) held the pipes open; Clamp stopped reading */
  pipesAbandoned: boolean;
}

export interface RunHandle {
  readonly id: string;
  /** also the process-group id */
  readonly pid: number | undefined;
  readonly startedAt: number;
  readonly logPaths: Record<StreamName, string>;
  readonly combinedLogPath: string;
  readonly done: Promise<RunResult>;
  readonly finished: boolean;
  /** Stop the whole group (SIGTERM, SIGKILL after the grace) and resolve once it is reaped. */
  kill(reason: KillReason): Promise<RunResult>;
  /** bytes seen so far per stream */
  bytes(): Record<StreamName, number>;
}

/** The shell commands run through: bash when present, else sh. */
export function shellPath(): string {
  return fs.existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

/**
 * The environment a command gets: the server's, with pagers, editors and prompts disabled so
 * nothing waits for a keypress (stdin is closed anyway), and Clamp's own access token removed
 * (a command must not be able to drive Clamp's API and approve itself).
 * FORCE_COLOR is dropped so tools see a plain pipe; NO_COLOR is not forced: the page renders ANSI.
 * CI is not set: it changes tools' behaviour (vitest and jest stop writing new snapshots).
 */
export function commandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANPAGER: 'cat',
    SYSTEMD_PAGER: '',
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_EDITOR: 'true',
    EDITOR: 'true',
    VISUAL: 'true',
    TERM: 'dumb',
    DEBIAN_FRONTEND: 'noninteractive',
  };
  delete env.FORCE_COLOR;
  delete env.CLAMP_TOKEN;
  return env;
}

/** A short unique id for a run's log files. */
export function newRunId(prefix = 'cmd'): string {
  return `${prefix}-${crypto.randomBytes(4).toString('hex')}`;
}

interface Sink {
  capture: HeadTailCapture;
  log: fs.WriteStream | null;
  live: LiveBatcher | null;
  gate: PipeGate | null;
}

/** each log's write buffer: a pipe pauses while any log it feeds holds more than this */
const LOG_HIGH_WATER_BYTES = 1024 * 1024;

/** End a log and resolve once its file descriptor is closed ('finish' comes before the close); never rejects. */
function closeLog(log: fs.WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    if (log.closed) return resolve();
    log.once('close', () => resolve());
    log.end();
  });
}

/** Start a command in its own process group. Never throws: a failure to start resolves `done` with spawnError. */
export function startCommand(o: RunOptions): RunHandle {
  const id = o.id ?? newRunId();
  const startedAt = Date.now();
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const logPaths: Record<StreamName, string> = {
    stdout: path.join(o.logDir, `${stamp}-${id}.stdout.log`),
    stderr: path.join(o.logDir, `${stamp}-${id}.stderr.log`),
  };
  const combinedLogPath = path.join(o.logDir, `${stamp}-${id}.log`);
  let logError: string | undefined;
  try {
    fs.mkdirSync(o.logDir, { recursive: true });
  } catch (err) {
    logError = err instanceof Error ? err.message : String(err);
  }

  const child = spawn(shellPath(), ['-c', o.command], {
    cwd: o.cwd,
    env: o.env ?? commandEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;

  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  let exitedAt: number | undefined;
  let killedBy: KillReason | null = null;
  let spawnError: string | undefined;
  let leftoverStopped = false;
  let pipesAbandoned = false;
  let finished = false;
  let finalizing = false;
  let timeoutTimer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  let resolveDone!: (r: RunResult) => void;
  const done = new Promise<RunResult>((r) => (resolveDone = r));

  const sinks = {} as Record<StreamName, Sink>;
  // one log with both streams, chunk by chunk as they arrive; a failure here leaves the per-stream logs (and logError) alone
  let combined: fs.WriteStream | null = null;
  if (!logError && pid !== undefined) {
    const log = fs.createWriteStream(combinedLogPath, { highWaterMark: LOG_HIGH_WATER_BYTES });
    log.on('error', () => {
      combined = null;
      for (const name of ['stdout', 'stderr'] as const) sinks[name]?.gate?.release(log); // never leave a pipe paused on a dead log
    });
    combined = log;
  }
  for (const name of ['stdout', 'stderr'] as const) {
    const pipe = child[name] as Readable | null;
    let log: fs.WriteStream | null = null;
    if (!logError && pid !== undefined) {
      log = fs.createWriteStream(logPaths[name], { highWaterMark: LOG_HIGH_WATER_BYTES });
      const own = log;
      own.on('error', (err) => {
        logError ??= err.message;
        sink.log = null;
        sink.gate?.release(own); // never leave a pipe paused on a dead log
      });
    }
    const live = o.onOutput
      ? new LiveBatcher((text) => o.onOutput!(name, text), o.progressIntervalMs ?? 50, o.progressMaxBytes ?? 16 * 1024)
      : null;
    const sink: Sink = { capture: new HeadTailCapture(o.captureMaxBytes), log, live, gate: pipe ? new PipeGate(pipe) : null };
    sinks[name] = sink;
    if (!pipe) continue;
    const gate = sink.gate!;
    pipe.on('error', () => undefined);
    pipe.on('data', (chunk: Buffer) => {
      sink.capture.push(chunk);
      sink.live?.push(chunk);
      if (o.onData) {
        try {
          o.onData(name, chunk);
        } catch {
          // a consumer's bug must not stop the draining
        }
      }
      // backpressure from the disk, not from memory: the child waits on its pipe while the logs catch up
      gate.write(sink.log, chunk);
      gate.write(combined, chunk);
    });
  }

  const armKill = () => {
    if (pid === undefined) return;
    signalGroup(pid, 'SIGTERM');
    killTimer ??= setTimeout(() => signalGroup(pid, 'SIGKILL'), o.killGraceMs);
  };

  const kill = (reason: KillReason): Promise<RunResult> => {
    if (finished || pid === undefined) return done;
    if (exitedAt === undefined) killedBy ??= reason;
    armKill();
    return done;
  };

  const onAbort = () => void kill('user');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  // the group is recorded until it is reaped, so a stopping or crashed server leaves no command behind
  if (pid !== undefined) trackGroup(pid, () => kill('shutdown'));

  const finalize = async () => {
    if (finalizing) return;
    finalizing = true;
    clearTimeout(timeoutTimer);
    clearTimeout(watchdog);
    o.signal?.removeEventListener('abort', onAbort);
    if (pid !== undefined && groupAlive(pid)) {
      // whatever is left of the group (its pipes closed, still running) goes too: no orphans
      leftoverStopped ||= exitedAt !== undefined && killedBy === null;
      armKill();
      if (!(await waitGroupGone(pid, o.killGraceMs + 1000))) signalGroup(pid, 'SIGKILL');
    }
    if (pid !== undefined) untrackGroup(pid);
    clearTimeout(killTimer);
    await Promise.all(
      (['stdout', 'stderr'] as const).map(async (name) => {
        const s = sinks[name];
        s.live?.end();
        const log = s.log;
        if (log) await closeLog(log);
      }),
    );
    if (combined) await closeLog(combined);
    finished = true;
    resolveDone({
      id,
      command: o.command,
      cwd: o.cwd,
      pid,
      exitCode,
      signal: exitSignal,
      killedBy,
      timeoutMs: o.timeoutMs || undefined,
      startedAt,
      durationMs: (exitedAt ?? Date.now()) - startedAt,
      stdout: sinks.stdout.capture.snapshot(),
      stderr: sinks.stderr.capture.snapshot(),
      logPaths,
      combinedLogPath,
      ...(logError ? { logError } : {}),
      ...(spawnError ? { spawnError } : {}),
      leftoverStopped,
      pipesAbandoned,
    });
  };

  child.on('error', (err) => {
    if (pid === undefined) {
      spawnError = err.message;
      void finalize();
    }
  });
  child.on('exit', (code, sig) => {
    exitedAt = Date.now();
    exitCode = code;
    exitSignal = sig;
    clearTimeout(timeoutTimer);
    if (pid === undefined) return;
    if (groupAlive(pid)) {
      // the shell is gone but something it started still runs (and may hold our pipes): stop it
      if (killedBy === null) leftoverStopped = true;
      armKill();
    }
    // a process that left the group (setsid) may keep the pipes open forever: stop waiting for it
    watchdog = setTimeout(() => {
      pipesAbandoned = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
      void finalize();
    }, o.killGraceMs + 1000);
  });
  child.on('close', () => void finalize());

  if (pid !== undefined) {
    if (o.timeoutMs && o.timeoutMs > 0) timeoutTimer = setTimeout(() => void kill('timeout'), o.timeoutMs);
    if (o.signal?.aborted) void kill('user');
  }

  return {
    id,
    pid,
    startedAt,
    logPaths,
    combinedLogPath,
    done,
    get finished() {
      return finished;
    },
    kill,
    bytes: () => ({ stdout: sinks.stdout.capture.totalBytes, stderr: sinks.stderr.capture.totalBytes }),
  };
}

/** Run a command to the end (the foreground path: start + await). Never throws. */
export function runCommand(o: RunOptions): Promise<RunResult> {
  return startCommand(o).done;
}
