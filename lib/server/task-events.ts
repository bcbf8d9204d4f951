import type { TaskStreamEvent, TaskSummary } from '../contract/protocol';
import { getTaskManager } from '../tasks/manager';
import { eventStream } from './sse';

/** The task manager's events as server-sent events, one JSON object each, with a ping comment every 15 s; only tasks `wanted` keeps. */
export function taskEventStream(dataDir: string, signal: AbortSignal, wanted: (t: TaskSummary) => boolean = () => true): Response {
  const tasks = getTaskManager(dataDir);
  return eventStream(signal, (send) =>
    tasks.on((event) => {
      const task = tasks.get(event.taskId);
      if (!task || !wanted(task)) return;
      const e: TaskStreamEvent = { ...event, task };
      send(`data: ${JSON.stringify(e)}\n\n`);
    }),
  );
}
