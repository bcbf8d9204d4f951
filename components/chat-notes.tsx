'use client';

import type { ClampDataParts } from '@/lib/contract/protocol';
import type { TodoItem } from '@/lib/contract/types';
import { ApprovalBar, type AnswerEvent, type PendingCall } from './approval-bar';
import { RewindBar } from './branches';
import { PlanPanel } from './plan-panel';

/** What waits for the person above the composer — the plan, a rewind's bar, the approvals — in the room the conversation leaves. */
export function WaitingArea({ todos, sessionId, pending, onAnswered }: { todos: TodoItem[] | null; sessionId: string; pending: PendingCall[]; onAnswered: (e: AnswerEvent) => void }) {
  return (
    // what waits for the person takes the room left above the composer: a long diff scrolls in its item, the rest here
    <div className="flex min-h-0 flex-col overflow-y-auto">
      <div className="mx-auto flex min-h-0 w-full max-w-4xl flex-col gap-2 px-4 pt-2.5 empty:hidden">
        <PlanPanel items={todos} />
        <RewindBar />
        <ApprovalBar sessionId={sessionId} pending={pending} onAnswered={onAnswered} />
      </div>
    </div>
  );
}

/** The failed turn's line: the provider's own words and next step when it left a notice, with Retry and Dismiss. */
export function TurnError({ error, notice, onRetry, onDismiss }: { error: Error; notice: ClampDataParts['notice'] | null; onRetry: () => void; onDismiss: () => void }) {
  return (
    <div role="alert" className="flex items-start gap-2 rounded border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200">
      <p className="flex-1">
        <span className="font-medium">The turn failed: </span>
        {notice?.message ?? (error.message || 'the connection to the server was lost.')}
        <span className="block text-xs opacity-90">Next step: {notice?.next ?? 'fix the cause above, then retry; your message is kept.'}</span>
      </p>
      <button type="button" onClick={onRetry} className="rounded border border-rose-300 bg-white px-2 py-0.5 text-xs font-medium hover:bg-rose-100 dark:border-rose-800 dark:bg-rose-950">
        Retry
      </button>
      <button type="button" aria-label="Dismiss the error" onClick={onDismiss} className="rounded px-1.5 text-xs hover:bg-rose-100 dark:hover:bg-rose-900">
        ✕
      </button>
    </div>
  );
}

/** "Compacting…" while the model summarises the older turns, and a compaction's failure with Dismiss. */
export function CompactNotes({ compacting, compactError, onDismiss }: { compacting: boolean; compactError: string | null; onDismiss: () => void }) {
  return (
    <>
      {compacting && (
        <p role="status" className="text-xs text-violet-700 dark:text-violet-300">
          Compacting the context: the model is summarising the older turns…
        </p>
      )}
      {compactError && (
        <div role="alert" className="flex items-start gap-2 rounded border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200">
          <p className="flex-1">{compactError}</p>
          <button type="button" aria-label="Dismiss" onClick={onDismiss} className="rounded px-1.5 text-xs hover:bg-rose-100 dark:hover:bg-rose-900">
            ✕
          </button>
        </div>
      )}
    </>
  );
}
