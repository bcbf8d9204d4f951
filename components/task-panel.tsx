'use client';

import { useCallback, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { TaskSummary } from '@/lib/contract/protocol';
import { seenKey } from '@/lib/ui/seen-store';
import { upsertTask } from '@/lib/ui/task-events';
import { fetchTasks, killTask, TASKS_KEY } from '@/lib/ui/tasks-api';
import { useTaskFeed, type FeedState } from '@/lib/ui/use-task-feed';
import { OutputViewer } from './output-viewer';
import { TaskRow } from './task-row';
import { useNow } from './use-now';
import { useTaskTails } from './use-task-tails';
import { useMarkSeen, useTaskView } from './use-task-view';

/**
 * Every background task the server knows (so it survives a reload and shows tasks from earlier
 * turns), kept live by the server's event stream: status, elapsed time, exit code, a marker for
 * output not yet looked at, the last lines, Kill, and the whole log in the viewer.
 */
export function TaskPanel() {
  const qc = useQueryClient();
  const tasks = useQuery({ queryKey: TASKS_KEY, queryFn: fetchTasks });
  const list = tasks.data ?? [];
  const view = useTaskView(qc);
  const { tails, tailErrors, onEvent } = useTaskTails(qc, list, view.isExpanded);
  const feed = useTaskFeed(onEvent);
  useMarkSeen(list, view);
  const kill = useMutation({
    mutationFn: (t: TaskSummary) => killTask(t.id),
    onSuccess: (task) => qc.setQueryData<TaskSummary[]>(TASKS_KEY, (old) => upsertTask(old, task)),
  });
  const { mutate: killMutate } = kill;
  const onKill = useCallback((t: TaskSummary) => killMutate(t), [killMutate]);
  const now = useNow(list.some((t) => t.status === 'running'));

  const running = list.filter((t) => t.status === 'running').length;
  return (
    <section aria-labelledby="task-panel-title" className="flex h-full min-h-0 flex-col">
      <div className="flex items-baseline gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h2 id="task-panel-title" className="text-sm font-semibold">
          Background tasks
        </h2>
        <span className="text-xs text-zinc-500 tabular-nums dark:text-zinc-400">
          {list.length === 0 ? '' : `${running} running · ${list.length} in all`}
        </span>
        <FeedBadge state={feed} />
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <TaskListBody tasks={tasks}>
          <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {list.map((t, i) => {
              const key = seenKey(t);
              return (
                <TaskRow
                  key={key}
                  task={t}
                  tail={tails[key]}
                  tailError={tailErrors[key]}
                  expanded={view.isExpanded(t, i)}
                  unread={view.unread(t, i)}
                  now={now}
                  killing={kill.isPending && kill.variables?.id === t.id}
                  killError={kill.isError && kill.variables?.id === t.id ? kill.error.message : undefined}
                  onToggle={view.onToggle}
                  onOpen={view.onOpen}
                  onKill={onKill}
                />
              );
            })}
          </ul>
        </TaskListBody>
      </div>
      {view.viewing && <OutputViewer source={{ kind: 'task', taskId: view.viewing.id }} title={view.viewing.command} onClose={view.closeViewer} />}
    </section>
  );
}

/** The list while it loads, when it could not be loaded (with Try again), when it is empty; else `children`. */
function TaskListBody({ tasks, children }: { tasks: UseQueryResult<TaskSummary[]>; children: ReactNode }) {
  if (tasks.isPending) return <p className="p-3 text-sm text-zinc-500">Loading tasks…</p>;
  if (tasks.error) {
    return (
      <div role="alert" className="space-y-2 p-3 text-sm text-rose-700 dark:text-rose-300">
        <p>The task list could not be loaded: {tasks.error.message}</p>
        <button type="button" onClick={() => void tasks.refetch()} className="rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800">
          Try again
        </button>
      </div>
    );
  }
  if ((tasks.data ?? []).length === 0) {
    return (
      <p className="p-3 text-sm text-zinc-500 dark:text-zinc-400">
        No background tasks. When the agent starts a long-running command (a dev server, a watcher), it appears here with its live output.
      </p>
    );
  }
  return children;
}

function FeedBadge({ state }: { state: FeedState }) {
  const live = state === 'live';
  return (
    <span
      className={`ml-auto inline-flex items-center gap-1 text-[11px] ${live ? 'text-zinc-500 dark:text-zinc-400' : 'text-amber-700 dark:text-amber-400'}`}
      title={live ? 'Receiving live updates' : 'The live connection dropped; reconnecting'}
    >
      <span aria-hidden="true" className={`h-1.5 w-1.5 rounded-full ${live ? 'bg-sky-500' : 'bg-amber-500'}`} />
      {live ? 'live' : state === 'connecting' ? 'connecting…' : 'reconnecting…'}
    </span>
  );
}
