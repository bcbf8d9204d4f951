'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import type { TaskStreamEvent, TaskSummary } from '@/lib/contract/protocol';
import { seenKey } from '@/lib/ui/seen-store';
import { appendTail, outputBytes } from '@/lib/ui/task-events';
import { fetchLogTail, TASKS_KEY } from '@/lib/ui/tasks-api';

type Refresh = Map<string, { timer?: ReturnType<typeof setTimeout>; events: number }>;

export interface TaskTails {
  /** each task's last lines, by seenKey (task ids restart with the server, the start time tells two t1s apart) */
  tails: Record<string, string>;
  tailErrors: Record<string, string>;
  /** the feed's events: a started task gets an empty tail, output is appended to it */
  onEvent: (e: TaskStreamEvent) => void;
}

type SetTails = (fn: (prev: Record<string, string>) => Record<string, string>) => void;

/**
 * The tails of the task panel, kept live by the feed. When the feed skipped output (a flood) the tail is
 * read again from the log, which has it all; a shown tail with nothing in it yet (a task from before this
 * page loaded) is read from the end of its log once.
 */
export function useTaskTails(qc: QueryClient, list: TaskSummary[], shown: (t: TaskSummary, i: number) => boolean): TaskTails {
  const [tails, setTails] = useState<Record<string, string>>({});
  const [tailErrors, setTailErrors] = useState<Record<string, string>>({});
  const { reread, noteOutput } = useTailReread(qc, setTails);

  const onEvent = useCallback(
    (e: TaskStreamEvent) => {
      const key = seenKey(e.task);
      if (e.type === 'start') setTails((prev) => (key in prev ? prev : { ...prev, [key]: '' }));
      if (e.type !== 'output') return;
      // a task whose tail was not started here gets its tail from the log (which holds this text too)
      setTails((prev) => (key in prev ? { ...prev, [key]: appendTail(prev[key], e.text) } : prev));
      noteOutput(key);
      if (e.text.includes('not shown live')) reread(e.taskId, key);
    },
    [reread, noteOutput],
  );

  // a shown tail with nothing in it yet (a task from before this page loaded): read the end of its log
  const asked = useRef(new Set<string>());
  const shownKeys = list.filter(shown).map(seenKey).join(' ');
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

  return { tails, tailErrors, onEvent };
}

/** Read a tail again from its log a moment after the feed skipped output, and once more if output came meanwhile. */
function useTailReread(qc: QueryClient, setTails: SetTails) {
  const refresh = useRef<Refresh>(new Map());
  const reread = useCallback(
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
    [qc, setTails],
  );
  useEffect(() => {
    const timers = refresh.current;
    return () => timers.forEach((r) => clearTimeout(r.timer));
  }, []);
  // output that arrives while a log is read is counted: the log may not have it yet
  const noteOutput = useCallback((key: string) => {
    const r = refresh.current.get(key);
    if (r) r.events++;
  }, []);
  return { reread, noteOutput };
}
