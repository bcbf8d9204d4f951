'use client';

import { useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from './api';
import { postCommit, postRevert, useChanges, type ChangedFile, type ChangesAnswer, type CommitAnswer } from './checkpoint-api';
import { FileDiffList } from './file-diff-list';
import { btnCls, btnDangerCls, btnPrimaryCls, Modal, resultBoxCls } from './modal';
import { useToggleSet } from './use-toggle-set';
import { WorktreeFinish } from './worktree-finish';

/** The header's button: how many files this session changed; opens the changes panel. */
export function ChangesButton({ sessionId, open, onOpen }: { sessionId: string | null; open: boolean; onOpen: () => void }) {
  const changes = useChanges(sessionId, true);
  const n = changes.data?.files.length ?? 0;
  return (
    <button
      type="button"
      onClick={onOpen}
      disabled={!sessionId}
      aria-haspopup="dialog"
      aria-expanded={open}
      title={n ? `Files this session changed: ${n}` : 'Files this session changed'}
      className="flex items-center gap-1.5 rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800"
    >
      Changes
      {n > 0 && (
        <span className="rounded-full bg-zinc-700 px-1.5 text-[11px] font-medium tabular-nums text-white dark:bg-zinc-300 dark:text-zinc-900">
          {n}
          <span className="sr-only"> files</span>
        </span>
      )}
    </button>
  );
}

function RevertConfirm({ sessionId, file, onDone }: { sessionId: string; file: ChangedFile; onDone: (note: string) => void }) {
  const qc = useQueryClient();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async () => {
    setPending(true);
    try {
      const r = await postRevert(sessionId, file.path);
      await qc.invalidateQueries({ queryKey: queryKeys.sessions });
      onDone(`Reverted ${r.reverted}.`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setPending(false);
    }
  };
  return (
    <div role="group" aria-label={`Confirm reverting ${file.path}`} className="space-y-1.5 border-t border-rose-100 bg-rose-50/60 px-2 py-2 text-xs dark:border-rose-900/50 dark:bg-rose-950/30">
      <p>
        Put <span className="font-mono">{file.path}</span> back as it was when this session started?{' '}
        {file.change === 'added' ? 'The session created it: it will be removed.' : 'The changes listed here are lost.'}
      </p>
      {error && <p className="text-rose-700 dark:text-rose-400">{error}</p>}
      <div className="flex gap-2">
        <button type="button" className={btnDangerCls} disabled={pending} onClick={() => void go()}>
          {pending ? 'Reverting…' : 'Revert'}
        </button>
        <button type="button" className={btnCls} onClick={() => onDone('')}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function CommitConfirm({ paths, pending, onCommit, onCancel }: { paths: string[]; pending: boolean; onCommit: () => void; onCancel: () => void }) {
  return (
    <div role="group" aria-label="Confirm the commit" className="space-y-1.5 rounded border border-sky-200 bg-sky-50 px-2 py-2 text-xs dark:border-sky-900 dark:bg-sky-950/40">
      <p>
        Commit {paths.length} file{paths.length === 1 ? '' : 's'} to your repository&apos;s current branch with git_commit ({paths.join(', ')})? Your click approves it; the session&apos;s mode still
        applies.
      </p>
      <div className="flex gap-2">
        <button type="button" className={btnPrimaryCls} disabled={pending} onClick={onCommit}>
          {pending ? 'Committing…' : 'Commit'}
        </button>
        <button type="button" className={btnCls} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function CommitResult({ result }: { result: CommitAnswer }) {
  return (
    <div
      role={result.ok ? 'status' : 'alert'}
      data-testid="commit-result"
      className={resultBoxCls(result.ok)}
    >
      <p className="font-medium">{result.ok ? 'Committed.' : 'Not committed.'}</p>
      {result.ok && <p>The files stay listed: this view compares with the session&apos;s start, not with your last commit.</p>}
      <pre className="mt-1 whitespace-pre-wrap font-mono">{result.text}</pre>
    </div>
  );
}

function CommitBox({ sessionId, paths }: { sessionId: string; paths: string[] }) {
  const qc = useQueryClient();
  const [message, setMessage] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<CommitAnswer | null>(null);
  const go = async () => {
    setPending(true);
    try {
      setResult(await postCommit(sessionId, paths, message.trim()));
      void qc.invalidateQueries({ queryKey: queryKeys.sessions });
    } catch (e) {
      setResult({ ok: false, text: e instanceof Error ? e.message : String(e) });
    }
    setPending(false);
    setConfirming(false);
  };
  const ready = paths.length > 0 && message.trim().length > 0;
  return (
    <section aria-label="Commit these" className="space-y-2 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <h3 className="text-sm font-semibold">Commit these</h3>
      <label className="block text-xs text-zinc-600 dark:text-zinc-400">
        Commit message
        <textarea
          value={message}
          onChange={(e) => {
            setMessage(e.target.value);
            setConfirming(false);
          }}
          rows={2}
          className="mt-1 block w-full resize-y rounded border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
        />
      </label>
      {!confirming ? (
        <button type="button" className={btnPrimaryCls} disabled={!ready || pending} onClick={() => setConfirming(true)} title={ready ? undefined : 'Select files and write a message'}>
          Commit {paths.length} selected file{paths.length === 1 ? '' : 's'}…
        </button>
      ) : (
        <CommitConfirm paths={paths} pending={pending} onCommit={() => void go()} onCancel={() => setConfirming(false)} />
      )}
      {result && <CommitResult result={result} />}
    </section>
  );
}

/** The panel's first line: how many files changed since the session started (or why none), and Refresh. */
function ChangesHead({ changes }: { changes: UseQueryResult<ChangesAnswer> }) {
  const files = changes.data?.files ?? [];
  return (
    <div className="flex items-center gap-2">
      <p className="flex-1 text-xs text-zinc-600 dark:text-zinc-400">
        {changes.isLoading
          ? 'Loading…'
          : !changes.data
            ? ''
            : changes.data.baselineId === null
            ? 'Nothing changed yet: no checkpoint has been taken in this session.'
            : `${files.length} file${files.length === 1 ? '' : 's'} changed since this session started${changes.data.truncated ? ' (more than listed: the list was cut)' : ''}.`}
      </p>
      <button type="button" className={btnCls} onClick={() => void changes.refetch()} disabled={changes.isFetching}>
        {changes.isFetching ? 'Refreshing…' : 'Refresh'}
      </button>
    </div>
  );
}

/** Where a commit goes: "commit these" into a git repository, else the reason there is none. */
function CommitTarget({ sessionId, target, paths }: { sessionId: string; target: ChangesAnswer['commit'] | undefined; paths: string[] }) {
  if (target?.kind === 'git') return <CommitBox sessionId={sessionId} paths={paths} />;
  if (target?.kind !== 'none') return null;
  return (
    <p data-testid="no-commit" className="border-t border-zinc-200 pt-3 text-xs text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
      <span className="font-medium text-zinc-800 dark:text-zinc-200">No commit from here: </span>
      {target.reason}
    </p>
  );
}

/**
 * Every file this session changed (by tools or commands), each with its diff against the session's
 * start, a per-file revert behind a confirmation, and "commit these" for the selected files. A
 * drawer on the right on every width (full width on a narrow window).
 */
export function ChangesPanel({ sessionId, onClose }: { sessionId: string; onClose: () => void }) {
  const changes = useChanges(sessionId, true);
  const [reverting, setReverting] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [unselected, toggle] = useToggleSet();
  const files = changes.data?.files ?? [];
  // a commit is offered only into a git repository; elsewhere the panel says why there is none
  const target = changes.data?.commit;
  const canCommit = target?.kind === 'git';
  const selected = files.filter((f) => !unselected.has(f.path)).map((f) => f.path);

  return (
    <Modal title="Changes in this session" onClose={onClose} side>
      <ChangesHead changes={changes} />
      <WorktreeFinish sessionId={sessionId} />
      {changes.error && <p className="text-rose-700 dark:text-rose-400">The changes could not be loaded: {changes.error.message}</p>}
      {note && (
        <p role="status" className="text-xs text-emerald-700 dark:text-emerald-400">
          {note}
        </p>
      )}
      {files.length > 0 && (
        <>
          <FileDiffList
            files={files}
            lead={canCommit ? (f) => <input type="checkbox" aria-label={`Select ${f.path} for the commit`} checked={!unselected.has(f.path)} onChange={() => toggle(f.path)} /> : undefined}
            actions={(f) =>
              reverting !== f.path && (
                <button type="button" className={btnCls} onClick={() => setReverting(f.path)} aria-label={`Revert ${f.path}`}>
                  Revert
                </button>
              )
            }
            below={(f) =>
              reverting === f.path && (
                <RevertConfirm
                  sessionId={sessionId}
                  file={f as ChangedFile}
                  onDone={(n) => {
                    setReverting(null);
                    setNote(n);
                  }}
                />
              )
            }
          />
          <CommitTarget sessionId={sessionId} target={target} paths={selected} />
        </>
      )}
    </Modal>
  );
}
