'use client';

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TaskStreamEvent, TaskSummary } from '@/lib/contract/protocol';
import { markSeen, seenKey, seenServerSnapshot, seenSnapshot, subscribeSeen } from '@/lib/ui/seen-store';
import { appendTail, outputBytes, upsertTask } from '@/lib/ui/task-events';
import { fetchLogTail, fetchTasks, killTask, TASKS_KEY } from '@/lib/ui/tasks-api';
import { useTaskFeed, type FeedState } from '@/lib/ui/use-task-feed';
import { OutputViewer } from './output-viewer';
import { TaskRow } from './task-row';

/** A clock that ticks once a second while active (for running tasks' elapsed time). */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * Every background task the server knows (so it survives a reload and shows tasks from earlier
 * turns), kept live by the server's event stream: status, elapsed time, exit code, a marker for
 * output not yet looked at, the last lines, Kill, and the whole log in the viewer.
 */
export function TaskPanel() {
  const qc = useQueryClient();
  const tasks = useQuery({ queryKey: TASKS_KEY, queryFn: fetchTasks });
  // tails by seenKey: task ids restart with the server, the start time tells two t1s apart
  const [tails, setTails] = useState<Record<string, string>>({});
  const [tailErrors, setTailErrors] = useState<Record<string, string>>({});
  const [expanded, setExpanded] = useState<Record<string, boolean>>({});
  const [viewing, setViewing] = useState<{ id: string; key: string; command: string } | null>(null);
  const seen = useSyncExternalStore(subscribeSeen, seenSnapshot, seenServerSnapshot);

  // when the live feed skipped output (a flood), the tail is read again from the log, which has it all
  const refresh = useRef(new Map<string, { timer?: ReturnType<typeof setTimeout>; events: number }>());
  const refreshTail = useCallback(
    (id: string, key: string) => {
      const r = refresh.current.get(key) ?? { events: 0 };
      refresh.current.set(key, r);
      const schedule = () => {
        r.timer = setTimeout(() => {
          const seenEvents = r.events;
          const task = qc.getQueryData<TaskSummary[]>(TASKS_KEY)?.find((t) => t.id === id);
          fetchLogTail(id, task ? outputBytes(task) : 0)
            .then((text) => {
              setTails((prev) => ({ ...prev, [key]: appendTail('', text) }));
              // output that came while the log was read may be missing from it: read once more
              if (r.events !== seenEvents) schedule();
              else r.timer = undefined;
            })
            .catch(() => {
              r.timer = undefined;
            });
        }, 1000);
      };
      if (!r.timer) schedule();
    },
    [qc],
  );
  useEffect(() => {
    const timers = refresh.current;
    return () => timers.forEach((r) => clearTimeout(r.timer));
  }, []);

  const onEvent = useCallback(
    (e: TaskStreamEvent) => {
      const key = seenKey(e.task);
      if (e.type === 'start') setTails((prev) => (key in prev ? prev : { ...prev, [key]: '' }));
      if (e.type !== 'output') return;
      // a task whose tail was not started here gets its tail from the log (which holds this text too)
      setTails((prev) => (key in prev ? { ...prev, [key]: appendTail(prev[key], e.text) } : prev));
      const r = refresh.current.get(key);
      if (r) r.events++;
      if (e.text.includes('not shown live')) refreshTail(e.taskId, key);
    },
    [refreshTail],
  );
  const feed = useTaskFeed(onEvent);

  const kill = useMutation({
    mutationFn: (t: TaskSummary) => killTask(t.id),
    onSuccess: (task) => qc.setQueryData<TaskSummary[]>(TASKS_KEY, (old) => upsertTask(old, task)),
  });

  const list = tasks.data ?? [];
  const now = useNow(list.some((t) => t.status === 'running'));
  const isExpanded = (t: TaskSummary, i: number) => expanded[seenKey(t)] ?? (t.status === 'running' || i === 0);

  // a shown tail with nothing in it yet (a task from before this page loaded): read the end of its log
  const asked = useRef(new Set<string>());
  const shownKeys = list.filter(isExpanded).map(seenKey).join(' ');
  useEffect(() => {
    for (const t of list) {
      const key = seenKey(t);
      if (!shownKeys.split(' ').includes(key) || asked.current.has(key)) continue;
      asked.current.add(key);
      fetchLogTail(t.id, outputBytes(t))
        .then((text) => setTails((prev) => (key in prev ? prev : { ...prev, [key]: appendTail('', text) })))
        .catch((err: unknown) => setTailErrors((prev) => ({ ...prev, [key]: err instanceof Error ? err.message : String(err) })));
    }
    // list is read for the tasks behind shownKeys; the keys are what matter
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shownKeys]);

  // what is on screen counts as looked at: an open tail, the open viewer
  useEffect(() => {
    list.forEach((t, i) => {
      const key = seenKey(t);
      if (isExpanded(t, i) || viewing?.key === key) markSeen(key, outputBytes(t));
    });
  });

  const onToggle = useCallback(
    (t: TaskSummary) => {
      const key = seenKey(t);
      const i = (qc.getQueryData<TaskSummary[]>(TASKS_KEY) ?? []).findIndex((x) => x.id === t.id);
      setExpanded((prev) => ({ ...prev, [key]: !(prev[key] ?? (t.status === 'running' || i === 0)) }));
    },
    [qc],
  );
  const onOpen = useCallback((t: TaskSummary) => setViewing({ id: t.id, key: seenKey(t), command: t.command }), []);
  const { mutate: killMutate } = kill;
  const onKill = useCallback((t: TaskSummary) => killMutate(t), [killMutate]);
  const closeViewer = useCallback(() => setViewing(null), []);

  const running = list.filter((t) => t.status === 'running').length;
  const unread = (t: TaskSummary, i: number) => !isExpanded(t, i) && viewing?.key !== seenKey(t) && outputBytes(t) > (seen[seenKey(t)] ?? 0);
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
        {tasks.isPending ? (
          <p className="p-3 text-sm text-zinc-500">Loading tasks…</p>
        ) : tasks.error ? (
          <div role="alert" className="space-y-2 p-3 text-sm text-rose-700 dark:text-rose-300">
            <p>The task list could not be loaded: {tasks.error.message}</p>
            <button type="button" onClick={() => void tasks.refetch()} className="rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800">
              Try again
            </button>
          </div>
        ) : list.length === 0 ? (
          <p className="p-3 text-sm text-zinc-500 dark:text-zinc-400">
            No background tasks. When the agent starts a long-running command (a dev server, a watcher), it appears here with its live output.
          </p>
        ) : (
          <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {list.map((t, i) => {
              const key = seenKey(t);
              return (
                <TaskRow
                  key={key}
                  task={t}
                  tail={tails[key]}
                  tailError={tailErrors[key]}
                  expanded={isExpanded(t, i)}
                  unread={unread(t, i)}
                  now={now}
                  killing={kill.isPending && kill.variables?.id === t.id}
                  killError={kill.isError && kill.variables?.id === t.id ? kill.error.message : undefined}
                  onToggle={onToggle}
                  onOpen={onOpen}
                  onKill={onKill}
                />
              );
            })}
          </ul>
        )}
      </div>
      {viewing && <OutputViewer source={{ kind: 'task', taskId: viewing.id }} title={viewing.command} onClose={closeViewer} />}
    </section>
  );
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
