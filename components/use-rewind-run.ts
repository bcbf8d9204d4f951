'use client';

import { useState } from 'react';
import { runningTasksOf, type RewindPreview, type RewindRequest, type RewindResult } from './checkpoint-api';

type RunningTasks = RewindPreview['runningTasks'];

/**
 * The rewind dialog's confirm button: runs the rewind (stopping the running tasks when there are any),
 * then `done`. A refusal because tasks run replaces the preview's list with the server's; another
 * failure is kept as `error`, and the button can be pressed again.
 */
export function useRewindRun(rewind: (body: RewindRequest) => Promise<RewindResult>, previewTasks: RunningTasks | undefined) {
  const [tasks, setTasks] = useState<RunningTasks | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const running = tasks ?? previewTasks ?? [];

  const go = async (body: Pick<RewindRequest, 'messageId' | 'code' | 'conversation'>, done: () => void) => {
    setPending(true);
    setError(null);
    try {
      await rewind({ ...body, ...(running.length > 0 ? { stopTasks: true } : {}) });
      done();
    } catch (e) {
      const t = runningTasksOf(e);
      if (t) setTasks(t);
      else setError(e instanceof Error ? e.message : String(e));
      setPending(false);
    }
  };
  return { running, error, pending, go };
}
