import path from 'node:path';
import type { TaskSummary } from '../contract/protocol';
import { openDb } from '../store/db';
import { sessionHome } from '../store/worktrees';
import { getTaskManager } from '../tasks/manager';
import { HttpError, type ServerConfig } from './http';

/**
 * Whether a task belongs to the workspace: started by one of its sessions (in the session's worktree or not), or
 * without a session in a folder of it. Never throws.
 */
export function taskOfWorkspace(cfg: ServerConfig): (t: Pick<TaskSummary, 'sessionId' | 'cwd'>) => boolean {
  const db = openDb(cfg.dataDir);
  const homes = new Map<string, string | undefined>();
  return (t) => {
    if (!t.sessionId) return t.cwd === cfg.workspace || t.cwd.startsWith(cfg.workspace + path.sep);
    if (!homes.has(t.sessionId)) homes.set(t.sessionId, sessionHome(db, t.sessionId));
    return homes.get(t.sessionId) === cfg.workspace;
  };
}

/** The background tasks of the request's workspace (of one session when sessionId is given), for the task panel. */
export function taskList(cfg: ServerConfig, sessionId?: string): TaskSummary[] {
  const mine = taskOfWorkspace(cfg);
  return getTaskManager(cfg.dataDir).list(sessionId).filter(mine);
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
