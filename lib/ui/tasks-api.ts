import type { TaskSummary } from '@/lib/contract/protocol';
import type { TaskAnswer } from '@/lib/contract/rest';
import { fetchPage, responseMessage, type PageSource } from './file-page';
import { readTaskList } from './task-events';
import { withWorkspace } from './workspace';

/** The page's calls to the task routes. Each throws an Error with the server's message on failure. */

/** The React Query key of the task list, shared by the panel, the viewer and the SSE feed. */
export const TASKS_KEY = ['tasks'] as const;

/** GET /api/tasks: the tasks of the page's workspace, newest first. */
export async function fetchTasks(): Promise<TaskSummary[]> {
  const res = await fetch(withWorkspace('/api/tasks'), { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(await responseMessage(res));
  return readTaskList(await res.json());
}

/** DELETE /api/tasks/:id: kill the task's process group; resolves to the task after the kill. */
export async function killTask(id: string): Promise<TaskSummary> {
  const res = await fetch(`/api/tasks/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(await responseMessage(res));
  const body = (await res.json()) as Partial<TaskAnswer>;
  if (!body.task) throw new Error('The server did not say what became of the task.');
  return body.task;
}

/** bytes of log read to fill a live tail after a reload */
const TAIL_FETCH_BYTES = 16 * 1024;

/**
 * The last lines of a task's log (to fill the live tail of a task started before this page loaded).
 * approxBytes is a guess at the log's size; a second request follows when the log was bigger.
 */
export async function fetchLogTail(taskId: string, approxBytes: number, signal?: AbortSignal): Promise<string> {
  const source: PageSource = { kind: 'task', taskId };
  let page = await fetchPage(source, Math.max(0, approxBytes - TAIL_FETCH_BYTES), TAIL_FETCH_BYTES, signal);
  if (!page.eof) page = await fetchPage(source, Math.max(0, page.totalBytes - TAIL_FETCH_BYTES), TAIL_FETCH_BYTES, signal);
  return page.text;
}
