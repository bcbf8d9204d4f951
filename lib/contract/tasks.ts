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

export type TaskEvent = TaskStartEvent | TaskOutputEvent | TaskExitEvent;

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
}
