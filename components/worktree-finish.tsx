'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { WorktreeFinishBody } from '@/lib/contract/worktree';
import { queryKeys } from './api';
import { btnCls, btnDangerCls, btnPrimaryCls, resultBoxCls } from './modal';
import { postWorktreeFinish, useWorktree, type WorktreeFinishAnswer, type WorktreeView } from './worktree-api';

const STATE_TEXT: Record<Exclude<WorktreeView['state'], 'active'>, string> = {
  pending: 'This session gets its own worktree with its first message (its branch is named from it).',
  kept: 'Its worktree folder was removed; the branch stays.',
  merged: 'Its branch was merged; the worktree folder is removed.',
  discarded: 'Its worktree and branch were discarded.',
};

function FinishResult({ result }: { result: WorktreeFinishAnswer }) {
  return (
    <div
      role={result.ok ? 'status' : 'alert'}
      data-testid="worktree-result"
      className={resultBoxCls(result.ok)}
    >
      <p>{result.message}</p>
      {result.conflicts && result.conflicts.length > 0 && (
        <ul className="mt-1 list-disc pl-4 font-mono">
          {result.conflicts.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The finish buttons of an active worktree: Merge into <base>, Keep the branch, Discard (asked first; again to drop uncommitted changes). */
function FinishActions({ sessionId, w, onResult }: { sessionId: string; w: WorktreeView; onResult: (r: WorktreeFinishAnswer | null) => void }) {
  const qc = useQueryClient();
  const [pending, setPending] = useState(false);
  const [asking, setAsking] = useState<'discard' | 'discard-uncommitted' | null>(null);
  const run = async (body: WorktreeFinishBody) => {
    setPending(true);
    try {
      const r = await postWorktreeFinish(sessionId, body);
      onResult(r);
      setAsking(body.action === 'discard' && !r.ok && r.uncommitted ? 'discard-uncommitted' : null);
      await qc.invalidateQueries({ queryKey: queryKeys.sessions });
    } catch (e) {
      onResult({ ok: false, worktree: w, message: e instanceof Error ? e.message : String(e) });
      setAsking(null);
    }
    setPending(false);
  };
  return (
    <div className="space-y-1.5">
      <div className="flex flex-wrap gap-2">
        <button type="button" className={btnPrimaryCls} disabled={pending} onClick={() => void run({ action: 'merge' })}>
          Merge into {w.base}
        </button>
        <button type="button" className={btnCls} disabled={pending} onClick={() => void run({ action: 'keep' })}>
          Keep the branch
        </button>
        <button type="button" className={btnDangerCls} disabled={pending} onClick={() => setAsking('discard')}>
          Discard…
        </button>
      </div>
      {asking && (
        <div role="group" aria-label="Confirm discarding the worktree" className="space-y-1.5 rounded border border-rose-200 bg-rose-50/60 px-2 py-2 text-xs dark:border-rose-900/50 dark:bg-rose-950/30">
          <p>
            {asking === 'discard'
              ? `Remove the worktree folder and the branch ${w.branch} for good?`
              : 'The worktree has uncommitted changes. Discard them too, with the folder and the branch?'}
          </p>
          <div className="flex gap-2">
            <button type="button" className={btnDangerCls} disabled={pending} onClick={() => void run({ action: 'discard', confirm: asking === 'discard-uncommitted' })}>
              {pending ? 'Discarding…' : asking === 'discard' ? 'Discard' : 'Discard them too'}
            </button>
            <button type="button" className={btnCls} onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/**
 * The changes view's worktree section: the session's branch, its base and folder, and how to finish it
 * (merge into the base, keep the branch, discard). Nothing for a session that works in the workspace itself.
 */
export function WorktreeFinish({ sessionId }: { sessionId: string }) {
  const wt = useWorktree(sessionId);
  const [result, setResult] = useState<WorktreeFinishAnswer | null>(null);
  const w = result?.worktree ?? wt.data;
  if (!w) return null;
  return (
    <section aria-label="Worktree" data-testid="worktree-section" className="space-y-2 rounded border border-violet-200 bg-violet-50/50 px-2 py-2 text-xs dark:border-violet-900 dark:bg-violet-950/30">
      <p>
        <span className="font-medium">Worktree</span>
        {w.branch && (
          <>
            {' '}
            on branch <span className="font-mono">{w.branch}</span>
          </>
        )}{' '}
        from <span className="font-mono">{w.base}</span>
        {w.path && (
          <>
            {' '}
            in <span className="break-all font-mono">{w.path}</span>
          </>
        )}
        . {w.state === 'active' ? `The files below differ from ${w.base} as the worktree started from it.` : STATE_TEXT[w.state]}
      </p>
      {w.state === 'active' && <FinishActions sessionId={sessionId} w={w} onResult={setResult} />}
      {result && <FinishResult result={result} />}
    </section>
  );
}
