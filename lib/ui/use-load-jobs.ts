'use client';

import { useCallback, useRef, useState } from 'react';

/** One loading job of the viewer: fetches what it needs and commits it. */
export type LoadJob = () => Promise<void>;

export interface LoadJobs {
  /**
   * Run one job unless one is running: then it is dropped, or with `wait` it runs after the running one
   * (a jump or a search match the person asked for; the newest waiting job wins).
   */
  run(job: LoadJob, o?: { wait?: boolean }): void;
  loading: boolean;
  /** the last job's failure (an abort is not one), cleared by the next job that succeeds */
  error: string | null;
  /** run the last job again */
  retry(): void;
  /** forget the running job (its list is gone): its end changes nothing, and the next run starts at once */
  stop(): void;
}

/** The viewer's loading jobs, one at a time; a failure is shown with a retry of that job. */
export function useLoadJobs(): LoadJobs {
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** the running job's token, or 0 */
  const busy = useRef(0);
  const tokens = useRef(0);
  const lastJob = useRef<LoadJob | null>(null);
  const queued = useRef<LoadJob | null>(null);

  const run = useCallback((job: LoadJob, o: { wait?: boolean } = {}) => {
    const start = (j: LoadJob) => {
      const token = ++tokens.current;
      busy.current = token;
      lastJob.current = j;
      setLoading(true);
      j()
        .then(() => setError(null))
        .catch((err: unknown) => {
          if ((err as Error)?.name !== 'AbortError') setError(err instanceof Error ? err.message : String(err));
        })
        .finally(() => {
          if (busy.current !== token) return; // a job of an unmounted list
          busy.current = 0;
          setLoading(false);
          const next = queued.current;
          queued.current = null;
          if (next) start(next);
        });
    };
    if (!busy.current) start(job);
    else if (o.wait) queued.current = job;
  }, []);

  const retry = useCallback(() => {
    if (lastJob.current) run(lastJob.current);
  }, [run]);
  const stop = useCallback(() => {
    busy.current = 0;
  }, []);

  return { run, loading, error, retry, stop };
}
