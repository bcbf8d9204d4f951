'use client';

import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { useQuery } from '@tanstack/react-query';
import { sourceKey, type PageSource, type TaskLogStream } from '@/lib/ui/file-page';
import { displayLines, lineIndexAt, positionLabel } from '@/lib/ui/line-window';
import { outputBytes } from '@/lib/ui/task-events';
import { fetchTasks, TASKS_KEY } from '@/lib/ui/tasks-api';
import { usePagedLines } from '@/lib/ui/use-paged-lines';
import { searchStatus, useLogSearch } from '@/lib/ui/use-log-search';
import { VirtualLines, type VirtualLinesHandle, type VisibleRange } from './virtual-lines';

export interface OutputViewerProps {
  source: PageSource;
  title: string;
  onClose: () => void;
}

/** how often a running task's log is checked for new output when no event says so */
const FOLLOW_POLL_MS = 2000;

/** the task viewer's stream switch: both streams as a terminal shows them first (the default), then each alone */
const STREAM_CHOICES: readonly { stream: TaskLogStream; label: string }[] = [
  { stream: 'combined', label: 'both' },
  { stream: 'stdout', label: 'stdout' },
  { stream: 'stderr', label: 'stderr' },
];

const FOCUSABLE = 'button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * A modal that shows a possibly huge file (a spilled output or a task log) page by page, with
 * line numbers, ANSI colours and its position ("lines 1–38 of 300,000"). Task logs open at the end and
 * follow new output while the view is at the bottom. A search runs over the whole file on the server,
 * with a match count and next/previous. Focus is trapped inside; Esc closes (after clearing a search);
 * focus goes back where it was.
 */
export function OutputViewer({ source, title, onClose }: OutputViewerProps) {
  const titleId = useId();
  // a task's log is shown whole (both streams in arrival order) or one stream at a time
  const [stream, setStream] = useState<TaskLogStream>('combined');
  const shown = source.kind === 'task' ? { ...source, stream } : source;
  const dialogRef = useRef<HTMLDivElement>(null);

  // focus moves in on open and back to the opener on close
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialogRef.current?.querySelector<HTMLElement>('[role="region"]')?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  // Esc is heard on the document: focus can fall to the body when the list under it is replaced
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'Tab' || !dialogRef.current) return;
    const items = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && (document.activeElement === first || !dialogRef.current.contains(document.activeElement))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  if (typeof document === 'undefined') return null;
  return createPortal(
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-black/60 p-2 sm:p-6" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
        className="flex h-full max-h-[92vh] w-full max-w-6xl flex-col overflow-hidden rounded-lg border border-zinc-700 bg-zinc-900 text-zinc-100 shadow-2xl"
      >
        <ViewerBody key={sourceKey(shown)} source={shown} title={title} titleId={titleId} onClose={onClose} onStream={source.kind === 'task' ? setStream : undefined} />
      </div>
    </div>,
    document.body,
  );
}

function ViewerBody({ source, title, titleId, onClose, onStream }: OutputViewerProps & { titleId: string; onStream?: (s: TaskLogStream) => void }) {
  const isTask = source.kind === 'task';
  const paged = usePagedLines(source, isTask ? 'end' : 'start');
  const { win, loadDown, loadUp } = paged;
  const lines = useMemo(() => displayLines(win), [win]);
  const listRef = useRef<VirtualLinesHandle>(null);
  const [range, setRange] = useState<VisibleRange>({ first: 0, last: 0, atBottom: isTask });

  // the task's state comes from the shared list (kept live by the task panel's event feed)
  const tasks = useQuery({ queryKey: TASKS_KEY, queryFn: fetchTasks, enabled: isTask });
  const task = isTask ? tasks.data?.find((t) => t.id === source.taskId) : undefined;
  const running = task?.status === 'running';
  const taskBytes = task ? outputBytes(task) : 0;

  // follow a task: new output (or the exit) announced by the feed, and a slow poll in case an event was missed
  useEffect(() => {
    if (isTask && win.eof) loadDown(true);
    // win.eof is read, not followed: a page arriving must not ask again by itself
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isTask, taskBytes, task?.status, loadDown]);
  useEffect(() => {
    if (!isTask || !running) return;
    const t = setInterval(() => loadDown(true), FOLLOW_POLL_MS);
    return () => clearInterval(t);
  }, [isTask, running, loadDown]);

  // a replaced list takes the focus with it: give it to the new one
  useEffect(() => {
    if (paged.generation > 0 && (document.activeElement === document.body || !document.activeElement)) listRef.current?.focus();
  }, [paged.generation]);

  // the search: over the whole file on the server; each match it moves to is brought into view and marked
  const found = useLogSearch(source);
  const [query, setQuery] = useState('');
  const { current } = found;
  const { jumpTo } = paged;
  useEffect(() => {
    if (current) jumpTo(current.offset, current.line, (i) => listRef.current?.scrollToLine(i));
  }, [current, jumpTo]);
  const highlight = useMemo(() => (current ? lineIndexAt(win, current.offset, current.line) : null), [current, win]);
  const onSearchKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape' && (query || found.answer)) {
      // the first Esc clears the search; the next one closes the viewer
      e.preventDefault();
      setQuery('');
      found.clear();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const q = query.trim() ? query : '';
      if (!q) return;
      if (found.answer?.query === q && !found.searching) found.step(e.shiftKey ? -1 : 1);
      else found.search(q);
    }
  };

  const onReachEnd = useCallback(() => loadDown(), [loadDown]);
  const onReachStart = useCallback(() => loadUp(), [loadUp]);
  const jumpEnd = () => paged.toEnd(() => listRef.current?.scrollToEnd());
  const jumpStart = () => paged.toStart(() => listRef.current?.scrollToStart());

  const button =
    'rounded border border-zinc-700 px-2 py-1 text-xs text-zinc-200 hover:bg-zinc-800 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50';
  return (
    <>
      <header className="flex flex-wrap items-center gap-2 border-b border-zinc-800 px-3 py-2">
        <div className="min-w-0 flex-1">
          <h2 id={titleId} className="truncate font-mono text-sm text-zinc-100" title={title}>
            {title}
          </h2>
          <p className="text-xs text-zinc-400 tabular-nums">{positionLabel(win, range.first, range.last, lines.length)}</p>
        </div>
        {onStream && source.kind === 'task' && (
          <div role="group" aria-label="Which output" className="flex">
            {STREAM_CHOICES.map(({ stream, label }) => {
              const on = (source.stream ?? 'combined') === stream;
              return (
                <button key={stream} type="button" aria-pressed={on} className={`${button} ${on ? 'bg-zinc-700' : ''}`} onClick={() => onStream(stream)}>
                  {label}
                </button>
              );
            })}
          </div>
        )}
        <div role="search" aria-label="Search the whole output" className="flex items-center gap-1.5 max-sm:w-full">
          <input
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={onSearchKey}
            aria-label="Search the whole output"
            placeholder="Search all lines (Enter)"
            spellCheck={false}
            className="w-44 min-w-0 rounded border border-zinc-700 bg-zinc-950 px-2 py-1 text-xs text-zinc-100 placeholder:text-zinc-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 max-sm:flex-1"
          />
          <span data-testid="search-status" aria-live="polite" className="whitespace-nowrap text-xs tabular-nums text-zinc-400">
            {found.searching ? 'Searching…' : found.error ? `Search failed: ${found.error}` : found.answer ? searchStatus(found.answer, found.index) : ''}
          </span>
          <button type="button" className={button} aria-label="Previous match" disabled={!found.answer?.matches.length} onClick={() => found.step(-1)}>
            ↑
          </button>
          <button type="button" className={button} aria-label="Next match" disabled={!found.answer?.matches.length} onClick={() => found.step(1)}>
            ↓
          </button>
        </div>
        <button type="button" className={button} onClick={jumpStart}>
          Jump to start
        </button>
        <button type="button" className={button} onClick={jumpEnd}>
          Jump to end
        </button>
        <button type="button" className={button} onClick={onClose} aria-label="Close the viewer">
          Close
        </button>
      </header>
      <div className="relative min-h-0 flex-1">
        <div className="absolute inset-0">
          <VirtualLines
            key={paged.generation}
            ref={listRef}
            lines={lines}
            height="100%"
            startLine={win.firstLine}
            anchor={win.anchor}
            followTail={isTask}
            initialScroll={paged.startAt}
            highlight={highlight}
            onReachEnd={onReachEnd}
            onReachStart={onReachStart}
            onRangeChange={setRange}
            label={`Contents of ${title}`}
          />
        </div>
      </div>
      <footer className="flex items-center gap-3 border-t border-zinc-800 px-3 py-1.5 text-xs text-zinc-400">
        {paged.error ? (
          <span role="alert" className="text-rose-300">
            Could not load this part: {paged.error}{' '}
            <button type="button" className={button} onClick={paged.retry}>
              Retry
            </button>
          </span>
        ) : paged.loading ? (
          <span>Loading…</span>
        ) : (
          <span>{footerText(isTask, running, task?.statusText, range.atBottom, win.loaded && lines.length === 0, win.eof)}</span>
        )}
        <span className="ml-auto hidden sm:inline">Esc closes · arrows and Page Up/Down scroll</span>
      </footer>
    </>
  );
}

function footerText(isTask: boolean, running: boolean, statusText: string | undefined, atBottom: boolean, empty: boolean, eof: boolean): string {
  if (empty) return isTask && running ? 'No output yet; new output appears here.' : 'The file is empty.';
  if (!isTask) return eof && atBottom ? 'End of the output.' : 'Scroll to load more.';
  if (!running) return statusText ? `The task has ended: ${statusText}.` : 'The task has ended.';
  return atBottom ? 'Following new output.' : 'Paused: scroll to the bottom (or Jump to end) to follow new output.';
}
