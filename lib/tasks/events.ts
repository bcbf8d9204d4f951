/**
 * The background-task event vocabulary, typed once: the task manager publishes it and the page's
 * task panel (over SSE) consumes it.
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
export type TaskEventListener = (event: TaskEvent) => void;

/** A small typed emitter; a throwing listener is isolated from the others and from the task. */
export class TaskEventEmitter {
  private readonly listeners = new Set<TaskEventListener>();

  /** Subscribe; returns the unsubscribe function. */
  on(listener: TaskEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: TaskEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // one broken subscriber (a closed SSE stream) must not stop the others
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
