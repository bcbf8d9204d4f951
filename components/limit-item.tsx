'use client';

import { useEffect, useRef, useState } from 'react';
import { limitText, newLimitProblem, type LimitHit } from '@/lib/contract/limits';
import type { AnswerEvent, PendingCall } from './approval-bar';
import { useQuestionAnswer } from './use-approval-answer';
import { modalOpen } from './use-approval-keys';

const btn = 'rounded border px-2.5 py-1 text-xs font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:cursor-not-allowed disabled:opacity-50';

/** A new limit to offer: twice the one reached, and above what is used. */
function suggested(hit: LimitHit): string {
  const n = Math.max(hit.limit * 2, hit.used * 1.5);
  return hit.unit === 'tokens' ? String(Math.ceil(n / 1000) * 1000) : (Math.ceil(n * 100) / 100).toFixed(2);
}

/**
 * A turn paused at a spending limit, where approvals appear (the chat's bar and the inbox): what was reached and
 * used, a new limit to continue with (stored: the session's, or the daily one in the settings), or Stop (the turn ends
 * as a person's Stop ends it).
 */
export function LimitItem({ call, hit, sessionId, autoFocus, onAnswered }: { call: PendingCall; hit: LimitHit; sessionId: string; autoFocus: boolean; onAnswered: (e: AnswerEvent) => void }) {
  const { busy, error, send } = useQuestionAnswer(call, sessionId, onAnswered);
  const [value, setValue] = useState(() => suggested(hit));
  const [problem, setProblem] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (autoFocus && !modalOpen()) inputRef.current?.focus();
  }, [autoFocus]);
  const unit = hit.unit === 'tokens' ? 'tokens' : 'US dollars';
  return (
    <div data-limit-for={call.toolCallId} data-approval-for={call.toolCallId} aria-label={`Spending limit: ${limitText(hit)}`} className="space-y-2 rounded-md border border-amber-300 bg-amber-50/70 p-3 dark:border-amber-800 dark:bg-amber-950/30">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold text-zinc-800 dark:text-zinc-100">Spending limit reached</span>
        {call.info?.from && <span className="rounded bg-indigo-100 px-1.5 py-0.5 font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300">in subagent {call.info.from.label}</span>}
      </div>
      <p className="text-sm text-zinc-900 dark:text-zinc-100">{limitText(hit)} The turn waits before its next model request.</p>
      <form
        className="flex flex-wrap items-center gap-1.5"
        onSubmit={(e) => {
          e.preventDefault();
          const p = newLimitProblem(hit, value);
          setProblem(p);
          if (!p) void send(value);
        }}
      >
        <label className="flex items-center gap-1.5 text-xs text-zinc-700 dark:text-zinc-300">
          New {hit.scope === 'day' ? 'daily' : hit.scope} limit ({unit})
          <input
            ref={inputRef}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            inputMode="decimal"
            className="w-32 rounded border border-zinc-300 bg-white px-2 py-1 font-mono text-sm focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950"
          />
        </label>
        <button type="submit" disabled={busy} className={`${btn} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`}>
          Continue with the new limit
        </button>
        <button type="button" disabled={busy} onClick={() => void send(null)} className={`${btn} border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200`}>
          Stop
        </button>
      </form>
      {(problem ?? error) && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {problem ?? error}
        </p>
      )}
    </div>
  );
}
