'use client';

import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { TaskStreamEvent, TaskSummary } from '@/lib/contract/protocol';
import { parseTaskEvent, upsertTask } from './task-events';
import { TASKS_KEY } from './tasks-api';

export type FeedState = 'connecting' | 'live' | 'reconnecting';

/** longest wait between two reconnection attempts after the server closed the stream */
const RETRY_MAX_MS = 15_000;

/**
 * Follow GET /api/tasks/events: every event updates the ['tasks'] query cache and is handed to
 * onEvent (for live tails). EventSource reconnects by itself after a dropped connection; when the
 * server refuses the stream (EventSource gives up), this retries with a growing delay. After each
 * reconnection the list is fetched again, since events may have been missed meanwhile.
 */
export function useTaskFeed(onEvent?: (e: TaskStreamEvent) => void): FeedState {
  const qc = useQueryClient();
  const [state, setState] = useState<FeedState>('connecting');
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  }, [onEvent]);

  useEffect(() => {
    let es: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    let opened = false;
    let stopped = false;
    const connect = () => {
      es = new EventSource('/api/tasks/events');
      es.onopen = () => {
        if (opened) void qc.invalidateQueries({ queryKey: TASKS_KEY });
        opened = true;
        attempts = 0;
        setState('live');
      };
      es.onmessage = (m: MessageEvent<string>) => {
        const e = parseTaskEvent(m.data);
        if (!e) return;
        const had = qc.getQueryData<TaskSummary[]>(TASKS_KEY);
        if (had) qc.setQueryData<TaskSummary[]>(TASKS_KEY, upsertTask(had, e.task));
        else void qc.invalidateQueries({ queryKey: TASKS_KEY });
        handler.current?.(e);
      };
      es.onerror = () => {
        setState('reconnecting');
        if (es?.readyState !== EventSource.CLOSED || stopped) return;
        es.close();
        timer = setTimeout(connect, Math.min(RETRY_MAX_MS, 1000 * 2 ** attempts++));
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      es?.close();
    };
  }, [qc]);

  return state;
}
