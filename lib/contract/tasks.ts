/**
 * The background-task vocabulary, typed once: the task manager publishes it, the tools read it
 * and the page's task panel (over SSE) consumes it.
 */

export type TaskStream = 'stdout' | 'stderr';

/** running; exited on its own (any exit code); killed (by the user, by shutdown or by a signal); timed out; failed to start. */
export type TaskStatus = 'running' | 'exited' | 'killed' | 'timed out' | 'failed';

export interface TaskStartEvent {
  type: 'start';
  taskId: string;
  sessionId?: string;
  command: string;
  /** absolute working directory */
  cwd: string;
  pid?: number;
  startedAt: number;
  logPaths: Record<TaskStream, string>;
}

export interface TaskOutputEvent {
  type: 'output';
  taskId: string;
  sessionId?: string;
  stream: TaskStream;
  /** live text, batched; may end with a "[… N not shown live …]" marker when the task floods */
  text: string;
}

export interface TaskExitEvent {
  type: 'exit';
  taskId: string;
  sessionId?: string;
  status: Exclude<TaskStatus, 'running'>;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  /** the words the model reads ("exit code 0", "killed by the user" …) */
  statusText: string;
}

/** A port a sandboxed command listens on, forwarded to this machine's loopback (lib/exec/port-forward.ts). */
export interface ForwardedPort {
  /** the port the command listens on, inside the sandbox */
  port: number;
  /** where it is reachable on this machine: 127.0.0.1 (::1 for a server on ::1 only), never another interface */
  hostAddress: string;
  /** the same number as port when it was free on this machine, else another */
  hostPort: number;
  /** http://127.0.0.1:<hostPort>/ */
  url: string;
}

/** The ports a running task listens on changed (forwarded to this machine's loopback, or gone). */
export interface TaskPortsEvent {
  type: 'ports';
  taskId: string;
  sessionId?: string;
  ports: ForwardedPort[];
}

export type TaskEvent = TaskStartEvent | TaskOutputEvent | TaskExitEvent | TaskPortsEvent;

/** A task as the tools and the page see it. */
export interface TaskInfo {
  id: string;
  command: string;
  cwd: string;
  sessionId?: string;
  pid?: number;
  status: TaskStatus;
  /** "running", "exit code 0", "killed: timed out after 2 s" … */
  statusText: string;
  exitCode: number | null;
  signal: string | null;
  startedAt: number;
  /** so far, for a running task */
  durationMs: number;
  unreadBytes: Record<TaskStream, number>;
  totalBytes: Record<TaskStream, number>;
  logPaths: Record<TaskStream, string>;
  /** both streams in arrival order (the page's default view of the log) */
  combinedLogPath: string;
  /** the ports it listens on now, each forwarded to this machine's loopback (a sandboxed task in the session's network) */
  ports?: ForwardedPort[];
}
