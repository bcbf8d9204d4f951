import type { TaskSummary } from '../contract/protocol';
import { getTaskManager } from '../tasks/manager';
import { HttpError, type ServerConfig } from './http';

/** Every background task of this server, for the task panel. */
export function taskList(cfg: ServerConfig): TaskSummary[] {
  return getTaskManager(cfg.dataDir).list();
}

/** One task; HttpError 404 when unknown (tasks from before a restart are gone). */
export function taskOf(cfg: ServerConfig, id: string): TaskSummary {
  const task = getTaskManager(cfg.dataDir).get(id);
  if (!task) throw new HttpError(404, `Task ${id} not found. Tasks from before a restart are gone; their logs stay in the data dir.`);
  return task;
}

/** Stop a task as the person asked: its group killed and reaped; HttpError 404 when unknown. */
export async function killTask(cfg: ServerConfig, id: string): Promise<TaskSummary> {
  const task = await getTaskManager(cfg.dataDir).kill(id, 'user');
  if (!task) throw new HttpError(404, `Task ${id} not found.`);
  return task;
}
