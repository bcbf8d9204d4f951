'use client';

import { memo } from 'react';
import type { SubagentCall, SubagentView } from '@/lib/contract/subagents';
import { formatCount, formatDuration, formatTokens } from './format';

const STATE: Record<SubagentCall['state'], { label: string; dot: string; text: string }> = {
  running: { label: 'running', dot: 'bg-sky-500 animate-pulse', text: 'text-sky-700 dark:text-sky-400' },
  waiting: { label: 'waiting for approval', dot: 'bg-amber-500 animate-pulse', text: 'text-amber-700 dark:text-amber-400' },
  ok: { label: 'done', dot: 'bg-emerald-500', text: 'text-emerald-700 dark:text-emerald-400' },
  error: { label: 'error', dot: 'bg-rose-500', text: 'text-rose-700 dark:text-rose-400' },
  denied: { label: 'denied', dot: 'bg-zinc-400', text: 'text-zinc-500' },
};

const END: Record<SubagentView['status'], string> = {
  running: 'working',
  done: 'finished',
  'step-cap': 'stopped at its step cap',
  'token-cap': 'stopped at its token budget',
  stopped: 'stopped',
  error: 'failed',
};

/** The transcript of a child, read-only, in a new tab (this page keeps following the turn). */
function transcriptHref(childId: string): string {
  if (typeof window === 'undefined') return `?t=${encodeURIComponent(childId)}`;
  const url = new URL(window.location.href);
  url.searchParams.set('t', childId);
  return `${url.pathname}${url.search}`;
}

/**
 * A subagent's calls under its parent's `agent` card, live while it runs (data-subagent parts), with
 * how it ended, what it spent, and a link to its whole conversation.
 */
export const SubagentCalls = memo(function SubagentCalls({ view, idle }: { view: SubagentView; idle: boolean }) {
  // a child still "running" while the chat is idle was cut off (a reload mid-turn, a restart)
  const status = idle && view.status === 'running' ? 'interrupted' : END[view.status];
  const hidden = view.callsTotal - view.calls.length;
  return (
    <div className="ml-6 border-l-2 border-indigo-200 pl-3 dark:border-indigo-900" data-subagent-for={view.toolCallId} data-subagent-status={view.status}>
      <div className="flex flex-wrap items-center gap-2 py-0.5 text-xs text-zinc-600 dark:text-zinc-400">
        <span className="rounded bg-indigo-100 px-1.5 py-0.5 font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300">subagent · {view.type}</span>
        <span className="truncate font-medium text-zinc-800 dark:text-zinc-200">{view.description}</span>
        <span>{status}</span>
        <span className="tabular-nums text-zinc-400">
          {formatCount(view.steps)} step{view.steps === 1 ? '' : 's'} · {formatTokens(view.tokens)} tokens
          {view.endedAt ? ` · ${formatDuration(view.endedAt - view.startedAt)}` : ''}
        </span>
        <a href={transcriptHref(view.sessionId)} target="_blank" rel="noopener" className="text-sky-700 underline hover:text-sky-900 dark:text-sky-400" data-transcript-link={view.sessionId}>
          Open transcript
        </a>
      </div>
      {hidden > 0 && <p className="text-[11px] text-zinc-500">{formatCount(hidden)} earlier calls are in the transcript.</p>}
      <ul className="space-y-0.5">
        {view.calls.map((c) => {
          const st = idle && (c.state === 'running' || c.state === 'waiting') ? { ...STATE.denied, label: 'interrupted' } : STATE[c.state];
          return (
            <li key={c.toolCallId} data-child-call-id={c.toolCallId} data-state={c.state} className="flex items-center gap-2 rounded border border-zinc-200 bg-white px-2 py-1 font-mono text-[12px] dark:border-zinc-800 dark:bg-zinc-900">
              <span aria-hidden="true" className={`h-1.5 w-1.5 shrink-0 rounded-full ${st.dot}`} />
              <span className="font-semibold text-zinc-900 dark:text-zinc-100">{c.toolName}</span>
              <span className="min-w-0 flex-1 truncate text-zinc-600 dark:text-zinc-400" title={c.summary}>
                {c.summary}
              </span>
              <span className={`shrink-0 font-sans text-xs ${st.text}`}>{st.label}</span>
              {c.durationMs !== undefined && <span className="shrink-0 font-sans text-xs tabular-nums text-zinc-400">{formatDuration(c.durationMs)}</span>}
            </li>
          );
        })}
      </ul>
    </div>
  );
});
