'use client';

import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { sourceKey, type PageSource, type TaskLogStream } from '@/lib/ui/file-page';
import { displayLines, positionLabel } from '@/lib/ui/line-window';
import { usePagedLines } from '@/lib/ui/use-paged-lines';
import { searchStatus } from '@/lib/ui/use-log-search';
import { useDialogFocus } from './use-dialog-focus';
import { useTaskFollow } from './use-task-follow';
import { useViewerSearch } from './use-viewer-search';
import { VirtualLines, type VirtualLinesHandle, type VisibleRange } from './virtual-lines';

export interface OutputViewerProps {
  source: PageSource;
  title: string;
  onClose: () => void;
}

/** the task viewer's stream switch: both streams as a terminal shows them first (the default), then each alone */
const STREAM_CHOICES: readonly { stream: TaskLogStream; label: string }[] = [
  { stream: 'combined', label: 'both' },
  { stream: 'stdout', label: 'stdout' },
  { stream: 'stderr', label: 'stderr' },
];

const BUTTON =
  'rounded border border-zinc-700 px-2 py-1 text-xs text-zinc-200 hover:bg-zinc-800 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50';

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
  const onKeyDown = useDialogFocus(dialogRef, onClose);

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

function StreamSwitch({ stream, onStream }: { stream: TaskLogStream; onStream: (s: TaskLogStream) => void }) {
  return (
    <div role="group" aria-label="Which output" className="flex">
      {STREAM_CHOICES.map((c) => {
        const on = stream === c.stream;
        return (
          <button key={c.stream} type="button" aria-pressed={on} className={`${BUTTON} ${on ? 'bg-zinc-700' : ''}`} onClick={() => onStream(c.stream)}>
            {c.label}
          </button>
        );
      })}
    </div>
  );
}

function SearchBox({ search }: { search: ReturnType<typeof useViewerSearch> }) {
  const { found, query, setQuery, onSearchKey } = search;
  return (
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
      <button type="button" className={BUTTON} aria-label="Previous match" disabled={!found.answer?.matches.length} onClick={() => found.step(-1)}>
        ↑
      </button>
      <button type="button" className={BUTTON} aria-label="Next match" disabled={!found.answer?.matches.length} onClick={() => found.step(1)}>
        ↓
      </button>
    </div>
  );
}

interface ViewerHeaderProps {
  title: string;
  titleId: string;
  position: string;
  /** the task's stream switch: the stream shown and how to change it (none for a file) */
  streams?: { stream: TaskLogStream; onStream: (s: TaskLogStream) => void };
  search: ReturnType<typeof useViewerSearch>;
  jumpStart: () => void;
  jumpEnd: () => void;
  onClose: () => void;
}

function ViewerHeader({ title, titleId, position, streams, search, jumpStart, jumpEnd, onClose }: ViewerHeaderProps) {
  return (
    <header className="flex flex-wrap items-center gap-2 border-b border-zinc-800 px-3 py-2">
      <div className="min-w-0 flex-1">
        <h2 id={titleId} className="truncate font-mono text-sm text-zinc-100" title={title}>
          {title}
        </h2>
        <p className="text-xs text-zinc-400 tabular-nums">{position}</p>
      </div>
      {streams && <StreamSwitch {...streams} />}
      <SearchBox search={search} />
      <button type="button" className={BUTTON} onClick={jumpStart}>
        Jump to start
      </button>
      <button type="button" className={BUTTON} onClick={jumpEnd}>
        Jump to end
      </button>
      <button type="button" className={BUTTON} onClick={onClose} aria-label="Close the viewer">
        Close
      </button>
    </header>
  );
}

function ViewerFooter({ error, loading, retry, text }: { error: string | null; loading: boolean; retry: () => void; text: string }) {
  return (
    <footer className="flex items-center gap-3 border-t border-zinc-800 px-3 py-1.5 text-xs text-zinc-400">
      {error ? (
        <span role="alert" className="text-rose-300">
          Could not load this part: {error}{' '}
          <button type="button" className={BUTTON} onClick={retry}>
            Retry
          </button>
        </span>
      ) : loading ? (
        <span>Loading…</span>
      ) : (
        <span>{text}</span>
      )}
      <span className="ml-auto hidden sm:inline">Esc closes · arrows and Page Up/Down scroll</span>
    </footer>
  );
}

function ViewerBody({ source, title, titleId, onClose, onStream }: OutputViewerProps & { titleId: string; onStream?: (s: TaskLogStream) => void }) {
  const isTask = source.kind === 'task';
  const paged = usePagedLines(source, isTask ? 'end' : 'start');
  const { win, loadDown, loadUp } = paged;
  const lines = useMemo(() => displayLines(win), [win]);
  const listRef = useRef<VirtualLinesHandle>(null);
  const [range, setRange] = useState<VisibleRange>({ first: 0, last: 0, atBottom: isTask });
  const { task, running } = useTaskFollow(source, win.eof, loadDown);

  // a replaced list takes the focus with it: give it to the new one
  useEffect(() => {
    if (paged.generation > 0 && (document.activeElement === document.body || !document.activeElement)) listRef.current?.focus();
  }, [paged.generation]);
  const search = useViewerSearch(source, win, paged.jumpTo, listRef);

  const onReachEnd = useCallback(() => loadDown(), [loadDown]);
  const onReachStart = useCallback(() => loadUp(), [loadUp]);
  const jumpEnd = () => paged.toEnd(() => listRef.current?.scrollToEnd());
  const jumpStart = () => paged.toStart(() => listRef.current?.scrollToStart());
  const streams = onStream && source.kind === 'task' ? { stream: source.stream ?? 'combined', onStream } : undefined;

  return (
    <>
      <ViewerHeader title={title} titleId={titleId} position={positionLabel(win, range.first, range.last, lines.length)} streams={streams} search={search} jumpStart={jumpStart} jumpEnd={jumpEnd} onClose={onClose} />
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
            highlight={search.highlight}
            onReachEnd={onReachEnd}
            onReachStart={onReachStart}
            onRangeChange={setRange}
            label={`Contents of ${title}`}
          />
        </div>
      </div>
      <ViewerFooter error={paged.error} loading={paged.loading} retry={paged.retry} text={footerText(isTask, running, task?.statusText, range.atBottom, win.loaded && lines.length === 0, win.eof)} />
    </>
  );
}

function footerText(isTask: boolean, running: boolean, statusText: string | undefined, atBottom: boolean, empty: boolean, eof: boolean): string {
  if (empty) return isTask && running ? 'No output yet; new output appears here.' : 'The file is empty.';
  if (!isTask) return eof && atBottom ? 'End of the output.' : 'Scroll to load more.';
  if (!running) return statusText ? `The task has ended: ${statusText}.` : 'The task has ended.';
  return atBottom ? 'Following new output.' : 'Paused: scroll to the bottom (or Jump to end) to follow new output.';
}
