'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import type { LogMatch, LogSearchAnswer } from '@/lib/contract/viewer';
import { formatBytes, formatCount } from '@/lib/contract/text';
import { fetchSearch, type PageSource } from './file-page';

export interface LogSearch {
  /** the answer of the last search, or null before one */
  answer: LogSearchAnswer | null;
  /** the match shown, by its place in answer.matches */
  index: number;
  current: LogMatch | null;
  searching: boolean;
  error: string | null;
  /** search the whole source for text (case ignored); the first match becomes current */
  search(text: string): void;
  /** the next (+1) or previous (-1) match, round the ends */
  step(by: 1 | -1): void;
  clear(): void;
}

/** "3 of 37", "3 of 12,345 (the first 2,000 listed)", "No matches", with what a bound left unsearched. */
export function searchStatus(a: LogSearchAnswer, index: number): string {
  const cut = a.stoppedBy ? ` · searched the first ${formatBytes(a.searchedBytes)} of ${formatBytes(a.totalBytes)} (${a.stoppedBy === 'time' ? 'out of time' : 'the most one search reads'})` : '';
  if (a.total === 0) return `No matches${cut}`;
  const listed = a.matches.length < a.total ? ` (the first ${formatCount(a.matches.length)} listed)` : '';
  return `${formatCount(index + 1)} of ${formatCount(a.total)}${listed}${cut}`;
}

/** The viewer's search over a whole file or task log on the server; one request at a time, the newest wins. */
export function useLogSearch(source: PageSource): LogSearch {
  const [answer, setAnswer] = useState<LogSearchAnswer | null>(null);
  const [index, setIndex] = useState(0);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const search = useCallback(
    (text: string) => {
      abort.current?.abort();
      const ctl = new AbortController();
      abort.current = ctl;
      setSearching(true);
      setError(null);
      fetchSearch(source, text, ctl.signal)
        .then((a) => {
          setAnswer(a);
          setIndex(0);
        })
        .catch((err: unknown) => {
          if ((err as Error)?.name !== 'AbortError') setError(err instanceof Error ? err.message : String(err));
        })
        .finally(() => {
          if (abort.current === ctl) setSearching(false);
        });
    },
    // the source is compared by value: a new object for the same file keeps the search
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source.kind === 'file' ? source.path : `${source.taskId}:${source.stream ?? ''}`],
  );

  const step = useCallback(
    (by: 1 | -1) => {
      const n = answer?.matches.length ?? 0;
      if (n > 0) setIndex((i) => (i + by + n) % n);
    },
    [answer],
  );

  const clear = useCallback(() => {
    abort.current?.abort();
    setAnswer(null);
    setError(null);
    setSearching(false);
  }, []);

  return { answer, index, current: answer?.matches[index] ?? null, searching, error, search, step, clear };
}
