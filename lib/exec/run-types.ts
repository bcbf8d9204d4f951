import type { CaptureSnapshot } from './ring';
import type { SandboxSpec } from './sandbox';
import type { SandboxLimits } from './limits';
import type { NetJoin } from './sandbox-net';

/** The shapes of the command runner: what a caller passes, what it gets back, and the handle of a run. */

export type StreamName = 'stdout' | 'stderr';
/** Why Clamp stopped a command: its timeout, the user (abort or task_kill), Clamp shutting down, or the sandbox's process limit (a runaway). */
export type KillReason = 'timeout' | 'user' | 'shutdown' | 'limit';

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
  /** every raw chunk, synchronously, in order (task unread buffers); valid only during the call: copy what you keep */
  onData?: (stream: StreamName, chunk: Buffer) => void;
  /** live text, batched (the page) */
  onOutput?: (stream: StreamName, text: string) => void;
  progressIntervalMs?: number;
  progressMaxBytes?: number;
  /** confine the command with bubblewrap (absent: it runs unconfined); it fails to start when bwrap cannot */
  sandbox?: SandboxSpec;
  /** run it in the session's network (its proxy, its forwarded ports) instead of a namespace of its own with none; ignored when the sandbox's network is open */
  net?: NetJoin;
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
  /** the shell could not be started (or the sandbox around it) */
  spawnError?: string;
  /** the sandbox it ran in; absent when it ran unconfined */
  sandbox?: SandboxSpec;
  /** the sandbox's limits it ran under */
  limits?: SandboxLimits;
  /** a limit its cgroup saw it hit: a fork refused at the process limit (then Clamp stopped it), a process the kernel killed for memory */
  limitHit?: 'processes' | 'memory';
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
