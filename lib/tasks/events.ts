import type { TaskEvent } from '../contract/tasks';

export type { TaskStream, TaskStatus, TaskStartEvent, TaskOutputEvent, TaskExitEvent, TaskEvent } from '../contract/tasks';
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
