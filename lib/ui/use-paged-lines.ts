'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { fetchPage, PAGE_BYTES, type PageSource } from './file-page';
import { appendPage, emptyWindow, fromTail, lineIndexAt, prependPage, prevRequest, tailRequest, type LineWindow } from './line-window';

/** a log up to this size opens whole (with line numbers); a bigger one opens on its last page */
const OPEN_WHOLE_MAX_BYTES = 4 * 1024 * 1024;

export interface PagedLines {
  win: LineWindow;
  /** bumps when the window is replaced (jump to the end or the start of a big file): remount the list */
  generation: number;
  /** where a fresh list should start: its top, its end, or with that line in the middle */
  startAt: 'start' | 'end' | number;
  loading: boolean;
  error: string | null;
  /** load the page below; at the end of the file only when force (following a growing log) */
  loadDown(force?: boolean): void;
  loadUp(): void;
  /** load through the end (the last page of a big file), then onDone (to scroll there) */
  toEnd(onDone: () => void): void;
  toStart(onDone: () => void): void;
  /**
   * Show the line that begins at byte `offset` (numbered `line`): onDone(index) when the window holds it,
   * else a window loaded around it replaces this one (the new list starts with it in the middle).
   */
  jumpTo(offset: number, line: number, onDone: (index: number) => void): void;
  retry(): void;
}

/**
 * The loading side of the viewer: one request at a time, each merged into a LineWindow.
 * Opens a file at its start and a task log at its end. Aborts in-flight requests on unmount.
 */
export function usePagedLines(source: PageSource, openAt: 'start' | 'end'): PagedLines {
  const [win, setWin] = useState<LineWindow>(emptyWindow);
  const [generation, setGeneration] = useState(0);
  const [startAt, setStartAt] = useState<'start' | 'end' | number>(openAt);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const winRef = useRef(win);
  /** the running job's token, or 0 */
  const busy = useRef(0);
  const tokens = useRef(0);
  const abort = useRef<AbortController | null>(null);
  const lastJob = useRef<(() => Promise<void>) | null>(null);
  /** a job the person asked for (a jump, a search match) while another ran: it runs next (the newest wins) */
  const queued = useRef<(() => Promise<void>) | null>(null);

  const commit = useCallback((w: LineWindow) => {
    winRef.current = w;
    setWin(w);
  }, []);
  const get = useCallback(
    (offset: number, limit: number) => fetchPage(source, offset, limit, abort.current?.signal),
    // the source is compared by value: a new object for the same file must not reload
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source.kind === 'file' ? source.path : source.taskId],
  );

  /**
   * Run one loading job unless one is running (then it is dropped, or with wait run after it); errors are
   * shown with a retry of that job.
   */
  const run = useCallback((job: () => Promise<void>, o: { wait?: boolean } = {}) => {
    const start = (j: () => Promise<void>) => {
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

  const replace = useCallback(
    (w: LineWindow, at: 'start' | 'end' | number) => {
      commit(w);
      setStartAt(at);
      setGeneration((g) => g + 1);
    },
    [commit],
  );

  const loadWhole = useCallback(
    async (w: LineWindow) => {
      // a log that fits in its first page is already whole: show it
      commit(w);
      while (!w.eof) {
        w = appendPage(w, await get(w.endOffset, PAGE_BYTES));
        commit(w);
      }
      return w;
    },
    [commit, get],
  );

  const openEnd = useCallback(async () => {
    const head = await get(0, PAGE_BYTES);
    if (head.eof || head.totalBytes <= OPEN_WHOLE_MAX_BYTES) {
      await loadWhole(appendPage(emptyWindow(), head));
      return;
    }
    const t = tailRequest(head.totalBytes, PAGE_BYTES);
    replace(fromTail(await get(t.offset, t.limit)), 'end');
  }, [get, loadWhole, replace]);

  useEffect(() => {
    abort.current = new AbortController();
    run(openAt === 'end' ? openEnd : async () => commit(appendPage(emptyWindow(), await get(0, PAGE_BYTES))));
    return () => {
      abort.current?.abort();
      busy.current = 0;
    };
  }, [openAt, openEnd, get, commit, run]);

  const loadDown = useCallback(
    (force = false) => {
      const w = winRef.current;
      if (!w.loaded || (w.eof && !force)) return;
      run(async () => {
        const cur = winRef.current;
        commit(appendPage(cur, await get(cur.endOffset, PAGE_BYTES)));
      });
    },
    [run, commit, get],
  );

  const loadUp = useCallback(() => {
    if (!prevRequest(winRef.current, PAGE_BYTES)) return;
    run(async () => {
      const cur = winRef.current;
      const r = prevRequest(cur, PAGE_BYTES);
      if (r) commit(prependPage(cur, await get(r.offset, r.limit)));
    });
  }, [run, commit, get]);

  const toEnd = useCallback(
    (onDone: () => void) => {
      const w = winRef.current;
      if (w.loaded && w.eof) return onDone();
      run(async () => {
        const cur = winRef.current;
        if (cur.loaded && cur.eof) return onDone();
        if (cur.loaded && cur.totalBytes - cur.endOffset <= 2 * PAGE_BYTES) {
          await loadWhole(cur);
          onDone();
          return;
        }
        const head = cur.loaded ? cur : appendPage(emptyWindow(), await get(0, PAGE_BYTES));
        const t = tailRequest(head.totalBytes, PAGE_BYTES);
        replace(fromTail(await get(t.offset, t.limit)), 'end');
      }, { wait: true });
    },
    [run, get, loadWhole, replace],
  );

  const toStart = useCallback(
    (onDone: () => void) => {
      if (winRef.current.startOffset === 0) return onDone();
      run(async () => replace(appendPage(emptyWindow(), await get(0, PAGE_BYTES)), 'start'), { wait: true });
    },
    [run, get, replace],
  );

  const jumpTo = useCallback(
    (offset: number, line: number, onDone: (index: number) => void) => {
      const here = lineIndexAt(winRef.current, offset, line);
      if (here !== null) return onDone(here);
      run(
        async () => {
          // the window may hold it by now (a page that was loading when the jump was asked for)
          const now = lineIndexAt(winRef.current, offset, line);
          if (now !== null) return onDone(now);
          // half a page above the line, so it lands in the middle with lines around it
          let w = appendPage(emptyWindow(), await get(Math.max(0, offset - PAGE_BYTES / 2), PAGE_BYTES));
          while (!w.eof && w.endOffset <= offset) w = appendPage(w, await get(w.endOffset, PAGE_BYTES));
          replace(w, lineIndexAt(w, offset, line) ?? 'start');
        },
        { wait: true },
      );
    },
    [run, get, replace],
  );

  const retry = useCallback(() => {
    if (lastJob.current) run(lastJob.current);
  }, [run]);

  return { win, generation, startAt, loading, error, loadDown, loadUp, toEnd, toStart, jumpTo, retry };
}
