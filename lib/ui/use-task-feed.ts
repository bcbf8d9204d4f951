'use client';

import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { TaskStreamEvent, TaskSummary } from '@/lib/contract/protocol';
import { sharedEventSource } from './shared-events';
import { parseTaskEvent, upsertTask } from './task-events';
import { TASKS_KEY } from './tasks-api';
import { withWorkspace } from './workspace';

export type FeedState = 'connecting' | 'live' | 'reconnecting';

/** longest wait between two reconnection attempts after the server closed the stream */
const RETRY_MAX_MS = 15_000;

/**
 * Follow GET /api/tasks/events (one stream shared by the page's tabs): every event updates the ['tasks']
 * query cache and is handed to onEvent (for live tails). EventSource reconnects by itself after a dropped
 * connection; when the server refuses the stream (EventSource gives up), it is retried with a growing delay.
 * After each reconnection the list is fetched again, since events may have been missed meanwhile.
 */
export function useTaskFeed(onEvent?: (e: TaskStreamEvent) => void): FeedState {
  const qc = useQueryClient();
  const [state, setState] = useState<FeedState>('connecting');
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  }, [onEvent]);

  useEffect(() => {
    let opened = false;
    // one stream for every tab of the page (lib/ui/shared-events.ts); it reopens by itself
    return sharedEventSource(
      withWorkspace('/api/tasks/events'),
      {
        onOpen: () => {
          if (opened) void qc.invalidateQueries({ queryKey: TASKS_KEY });
          opened = true;
          setState('live');
        },
        onMessage: (data) => {
          const e = parseTaskEvent(data);
          if (!e) return;
          const had = qc.getQueryData<TaskSummary[]>(TASKS_KEY);
          if (had) qc.setQueryData<TaskSummary[]>(TASKS_KEY, upsertTask(had, e.task));
          else void qc.invalidateQueries({ queryKey: TASKS_KEY });
          handler.current?.(e);
        },
        onError: () => setState('reconnecting'),
      },
      { retryMaxMs: RETRY_MAX_MS },
    );
  }, [qc]);

  return state;
}
