'use client';

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { fetchPage, PAGE_BYTES, type PageSource } from './file-page';
import { appendPage, emptyWindow, lineIndexAt, prependPage, prevRequest, type LineWindow } from './line-window';
import { useLoadJobs, type LoadJobs } from './use-load-jobs';
import { openAtEnd, toEndFrom, windowAround, type GetPage, type WindowSink } from './window-loads';

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

/** The window shown, read by jobs through `ref`; `replace` swaps it for one the list opens afresh on. */
function useShownWindow(openAt: 'start' | 'end') {
  const [win, setWin] = useState<LineWindow>(emptyWindow);
  const [generation, setGeneration] = useState(0);
  const [startAt, setStartAt] = useState<'start' | 'end' | number>(openAt);
  const ref = useRef(win);
  const sink = useMemo<WindowSink>(
    () => ({
      commit: (w) => {
        ref.current = w;
        setWin(w);
      },
      replace: (w, at) => {
        ref.current = w;
        setWin(w);
        setStartAt(at);
        setGeneration((g) => g + 1);
      },
    }),
    [],
  );
  return { win, generation, startAt, ref, sink };
}

/** The page below and the page above the window, asked for as the list nears an edge (dropped while a job runs). */
function useEdgeLoads(win: { current: LineWindow }, run: LoadJobs['run'], get: GetPage, sink: WindowSink) {
  const loadDown = useCallback(
    (force = false) => {
      const w = win.current;
      if (!w.loaded || (w.eof && !force)) return;
      run(async () => {
        const cur = win.current;
        sink.commit(appendPage(cur, await get(cur.endOffset, PAGE_BYTES)));
      });
    },
    [win, run, get, sink],
  );
  const loadUp = useCallback(() => {
    if (!prevRequest(win.current, PAGE_BYTES)) return;
    run(async () => {
      const cur = win.current;
      const r = prevRequest(cur, PAGE_BYTES);
      if (r) sink.commit(prependPage(cur, await get(r.offset, r.limit)));
    });
  }, [win, run, get, sink]);
  return { loadDown, loadUp };
}

/** The jumps the person asks for (the end, the start, a search match): each waits for a running job. */
function useJumps(win: { current: LineWindow }, run: LoadJobs['run'], get: GetPage, sink: WindowSink) {
  const toEnd = useCallback(
    (onDone: () => void) => {
      const w = win.current;
      if (w.loaded && w.eof) return onDone();
      run(() => toEndFrom(win.current, get, sink, onDone), { wait: true });
    },
    [win, run, get, sink],
  );
  const toStart = useCallback(
    (onDone: () => void) => {
      if (win.current.startOffset === 0) return onDone();
      run(async () => sink.replace(appendPage(emptyWindow(), await get(0, PAGE_BYTES)), 'start'), { wait: true });
    },
    [win, run, get, sink],
  );
  const jumpTo = useCallback(
    (offset: number, line: number, onDone: (index: number) => void) => {
      const here = lineIndexAt(win.current, offset, line);
      if (here !== null) return onDone(here);
      run(
        async () => {
          // the window may hold it by now (a page that was loading when the jump was asked for)
          const now = lineIndexAt(win.current, offset, line);
          if (now !== null) return onDone(now);
          await windowAround(offset, line, get, sink);
        },
        { wait: true },
      );
    },
    [win, run, get, sink],
  );
  return { toEnd, toStart, jumpTo };
}

/**
 * The loading side of the viewer: one request at a time, each merged into a LineWindow.
 * Opens a file at its start and a task log at its end. Aborts in-flight requests on unmount.
 */
export function usePagedLines(source: PageSource, openAt: 'start' | 'end'): PagedLines {
  const { win, generation, startAt, ref, sink } = useShownWindow(openAt);
  const { run, loading, error, retry, stop } = useLoadJobs();
  const abort = useRef<AbortController | null>(null);
  const get = useCallback<GetPage>(
    (offset, limit) => fetchPage(source, offset, limit, abort.current?.signal),
    // the source is compared by value: a new object for the same file must not reload
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source.kind === 'file' ? source.path : source.taskId],
  );

  useEffect(() => {
    abort.current = new AbortController();
    run(openAt === 'end' ? () => openAtEnd(get, sink) : async () => sink.commit(appendPage(emptyWindow(), await get(0, PAGE_BYTES))));
    return () => {
      abort.current?.abort();
      stop();
    };
  }, [openAt, get, sink, run, stop]);

  const { loadDown, loadUp } = useEdgeLoads(ref, run, get, sink);
  const { toEnd, toStart, jumpTo } = useJumps(ref, run, get, sink);
  return { win, generation, startAt, loading, error, loadDown, loadUp, toEnd, toStart, jumpTo, retry };
}
