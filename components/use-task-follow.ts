'use client';

import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { PageSource } from '@/lib/ui/file-page';
import { outputBytes } from '@/lib/ui/task-events';
import { fetchTasks, TASKS_KEY } from '@/lib/ui/tasks-api';

/** how often a running task's log is checked for new output when no event says so */
const FOLLOW_POLL_MS = 2000;

/**
 * The viewer of a task's log follows the task: new output (or the exit) announced by the task feed loads
 * the page below (`loadDown(true)`) once the window has reached the end, and a slow poll covers a missed
 * event while the task runs. The task's state comes from the shared list (kept live by the task panel's feed).
 */
export function useTaskFollow(source: PageSource, eof: boolean, loadDown: (force?: boolean) => void) {
  const isTask = source.kind === 'task';
  const tasks = useQuery({ queryKey: TASKS_KEY, queryFn: fetchTasks, enabled: isTask });
  const task = isTask ? tasks.data?.find((t) => t.id === source.taskId) : undefined;
  const running = task?.status === 'running';
  const taskBytes = task ? outputBytes(task) : 0;

  useEffect(() => {
    if (isTask && eof) loadDown(true);
    // eof is read, not followed: a page arriving must not ask again by itself
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isTask, taskBytes, task?.status, loadDown]);
  useEffect(() => {
    if (!isTask || !running) return;
    const t = setInterval(() => loadDown(true), FOLLOW_POLL_MS);
    return () => clearInterval(t);
  }, [isTask, running, loadDown]);

  return { task, running };
}
