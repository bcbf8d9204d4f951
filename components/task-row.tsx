'use client';

import { memo, useEffect, useId, useRef } from 'react';
import type { TaskSummary } from '@/lib/contract/protocol';
import { formatBytes } from '@/lib/contract/text';
import { formatDuration } from '@/lib/contract/text';
import { clipTailLine, elapsedMs, endedBadly, outputBytes, statusWords, tailLines } from '@/lib/ui/task-events';
import { AnsiLine } from './ansi-line';

export interface TaskRowProps {
  task: TaskSummary;
  /** the live tail; undefined while it is being fetched */
  tail: string | undefined;
  tailError?: string;
  expanded: boolean;
  unread: boolean;
  /** now, for a running task's elapsed time (ticks once a second) */
  now: number;
  killing: boolean;
  killError?: string;
  onToggle: (task: TaskSummary) => void;
  onOpen: (task: TaskSummary) => void;
  onKill: (task: TaskSummary) => void;
}

const smallButton =
  'rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800';

/** One background task: status, elapsed time, exit code, new-output marker, live tail, Log and Kill. */
export const TaskRow = memo(function TaskRow(p: TaskRowProps) {
  const { task } = p;
  const tailId = useId();
  const running = task.status === 'running';
  return (
    <li className="py-2">
      <div className="flex items-start gap-2 px-3">
        <button
          type="button"
          aria-expanded={p.expanded}
          aria-controls={tailId}
          onClick={() => p.onToggle(task)}
          className="flex min-w-0 flex-1 items-start gap-1.5 rounded text-left focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
        >
          <span aria-hidden="true" className={`mt-0.5 w-3 shrink-0 text-[10px] text-zinc-400 transition-transform ${p.expanded ? 'rotate-90' : ''}`}>
            ▶
          </span>
          <span className="min-w-0 flex-1">
            <span className="block truncate font-mono text-xs text-zinc-900 dark:text-zinc-100" title={task.command}>
              {task.command}
            </span>
            <span className="mt-0.5 flex flex-wrap items-center gap-x-2 text-[11px] text-zinc-500 tabular-nums dark:text-zinc-400">
              <Status task={task} />
              <span title={running ? 'running for' : 'ran for'}>{formatDuration(elapsedMs(task, p.now), { wholeSeconds: true })}</span>
              <span>{formatBytes(outputBytes(task))}</span>
              {p.unread && (
                <span className="font-medium text-sky-700 dark:text-sky-400">
                  <span aria-hidden="true">● </span>new output
                </span>
              )}
            </span>
          </span>
        </button>
        <div className="flex shrink-0 gap-1">
          <button type="button" className={smallButton} onClick={() => p.onOpen(task)} aria-label={`Open the full log of ${task.command}`}>
            Log
          </button>
          {running && (
            <button
              type="button"
              className={`${smallButton} border-rose-300 text-rose-700 hover:bg-rose-50 dark:border-rose-900 dark:text-rose-300 dark:hover:bg-rose-950`}
              onClick={() => p.onKill(task)}
              disabled={p.killing}
              aria-label={`Kill ${task.command}`}
            >
              {p.killing ? 'Killing…' : 'Kill'}
            </button>
          )}
        </div>
      </div>
      {running && task.ports && task.ports.length > 0 && <Ports ports={task.ports} />}
      {p.killError && (
        <p role="alert" className="mx-3 mt-1 text-xs text-rose-700 dark:text-rose-300">
          Kill failed: {p.killError}
        </p>
      )}
      {p.expanded && <Tail id={tailId} tail={p.tail} error={p.tailError} running={running} />}
    </li>
  );
});

/** The ports the task listens on, each forwarded to this machine's loopback: links the person opens. */
function Ports({ ports }: { ports: NonNullable<TaskSummary['ports']> }) {
  return (
    <p className="mt-1 flex flex-wrap items-center gap-x-2 pl-8 pr-3 text-xs text-zinc-600 dark:text-zinc-300">
      <span>Listening:</span>
      {ports.map((p) => (
        <a
          key={p.port}
          href={p.url}
          target="_blank"
          rel="noreferrer"
          className="font-mono text-sky-700 underline decoration-sky-300 underline-offset-2 hover:text-sky-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:text-sky-400 dark:hover:text-sky-300"
          title={p.hostPort === p.port ? `port ${p.port}, forwarded from the sandbox` : `port ${p.port} in the sandbox, forwarded to ${p.hostPort} here (${p.port} was taken)`}
        >
          {p.url}
        </a>
      ))}
    </p>
  );
}

function Status({ task }: { task: TaskSummary }) {
  const words = statusWords(task);
  if (task.status === 'running') {
    return (
      <span className="inline-flex items-center gap-1 font-medium text-sky-700 dark:text-sky-400">
        <span aria-hidden="true" className="h-1.5 w-1.5 animate-pulse rounded-full bg-sky-500" />
        {words}
      </span>
    );
  }
  const bad = endedBadly(task);
  return (
    <span title={task.statusText} className={bad ? 'font-medium text-rose-700 dark:text-rose-400' : 'text-zinc-600 dark:text-zinc-300'}>
      {words}
    </span>
  );
}

function Tail({ id, tail, error, running }: { id: string; tail: string | undefined; error?: string; running: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const lines = tail === undefined ? [] : tailLines(tail);
  // the tail is a glance at the end: keep its newest line in view
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [tail]);
  let body: React.ReactNode;
  if (error) body = <span className="text-rose-300">Could not load the output: {error}</span>;
  else if (tail === undefined) body = <span className="text-zinc-500">Loading the last lines…</span>;
  else if (lines.length === 0) body = <span className="text-zinc-500">{running ? 'No output yet.' : 'No output.'}</span>;
  else
    body = lines.map((l, i) => (
      // a rolling window of the last lines: the position is the identity, and each line is memoised by its text
      <div key={i} className="min-h-4 whitespace-pre">
        <AnsiLine text={clipTailLine(l.endsWith('\r') ? l.slice(0, -1) : l)} />
      </div>
    ));
  return (
    <div
      id={id}
      ref={ref}
      role="log"
      aria-live="off"
      aria-label="Last lines of output"
      className="mx-3 mt-2 max-h-80 overflow-auto rounded bg-zinc-950 px-2 py-1.5 font-mono text-[11px] leading-4 text-zinc-200"
    >
      {body}
    </div>
  );
}
