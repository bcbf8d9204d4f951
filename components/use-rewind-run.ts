'use client';

import { useState } from 'react';
import { runningTasksOf, type RewindPreview } from './checkpoint-api';

type RunningTasks = RewindPreview['runningTasks'];

/**
 * A rewind's confirm button (the rewind dialog's, or edit-and-resend's): `act` runs the rewind, told to
 * stop the running tasks when there are any, then `done`. A refusal because tasks run replaces the
 * preview's list with the server's; another failure is kept as `error`, and the button can be pressed again.
 */
export function useRewindRun(previewTasks: RunningTasks | undefined) {
  const [tasks, setTasks] = useState<RunningTasks | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const running = tasks ?? previewTasks ?? [];

  const go = async (act: (stop: { stopTasks?: true }) => Promise<unknown>, done: () => void) => {
    setPending(true);
    setError(null);
    try {
      await act(running.length > 0 ? { stopTasks: true } : {});
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
