'use client';

import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import type { TaskSummary } from '@/lib/contract/protocol';
import { markSeen, seenKey, seenServerSnapshot, seenSnapshot, subscribeSeen } from '@/lib/ui/seen-store';
import { outputBytes } from '@/lib/ui/task-events';
import { TASKS_KEY } from '@/lib/ui/tasks-api';

/** The task whose whole log the viewer shows. */
export interface ViewedTask {
  id: string;
  key: string;
  command: string;
}

export interface TaskView {
  viewing: ViewedTask | null;
  /** a task's tail is open: as the person left it, else while it runs, and the newest task's */
  isExpanded: (t: TaskSummary, i: number) => boolean;
  /** output nobody has looked at: neither its tail nor the viewer is open, and it has grown since it was */
  unread: (t: TaskSummary, i: number) => boolean;
  onToggle: (t: TaskSummary) => void;
  onOpen: (t: TaskSummary) => void;
  closeViewer: () => void;
}

/** What the task panel shows of each task: its tail open or closed, its log in the viewer, and whether it has new output. */
export function useTaskView(qc: QueryClient): TaskView {
  const [expanded, setExpanded] = useState<Record<string, boolean>>({});
  const [viewing, setViewing] = useState<ViewedTask | null>(null);
  const seen = useSyncExternalStore(subscribeSeen, seenSnapshot, seenServerSnapshot);

  const isExpanded = (t: TaskSummary, i: number) => expanded[seenKey(t)] ?? (t.status === 'running' || i === 0);
  const unread = (t: TaskSummary, i: number) => !isExpanded(t, i) && viewing?.key !== seenKey(t) && outputBytes(t) > (seen[seenKey(t)] ?? 0);
  const onToggle = useCallback(
    (t: TaskSummary) => {
      const key = seenKey(t);
      const i = (qc.getQueryData<TaskSummary[]>(TASKS_KEY) ?? []).findIndex((x) => x.id === t.id);
      setExpanded((prev) => ({ ...prev, [key]: !(prev[key] ?? (t.status === 'running' || i === 0)) }));
    },
    [qc],
  );
  const onOpen = useCallback((t: TaskSummary) => setViewing({ id: t.id, key: seenKey(t), command: t.command }), []);
  const closeViewer = useCallback(() => setViewing(null), []);
  return { viewing, isExpanded, unread, onToggle, onOpen, closeViewer };
}

/** What is on screen counts as looked at: an open tail, the open viewer. */
export function useMarkSeen(list: TaskSummary[], view: TaskView): void {
  useEffect(() => {
    list.forEach((t, i) => {
      const key = seenKey(t);
      if (view.isExpanded(t, i) || view.viewing?.key === key) markSeen(key, outputBytes(t));
    });
  });
}
