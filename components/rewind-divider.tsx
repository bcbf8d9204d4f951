'use client';

import { useState, type ComponentType } from 'react';
import type { RewindNote } from '@/lib/contract/protocol';
import { useRewind } from './rewind-context';

function list(paths: string[], max = 4): string {
  return paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`;
}

/**
 * Where a rewind happened, in the conversation: what it restored, the later messages kept as a
 * branch (one click opens it, read-only), and an undo of a code rewind (the workspace as it was just
 * before it, kept as a checkpoint). `Branch` shows the branch: the chat's branch viewer, passed in because
 * it draws its rows with the row that draws this divider.
 */
export function RewindDivider({ note, Branch }: { note: RewindNote; Branch: ComponentType<{ branchId: string; onClose: () => void }> }) {
  const { rewind, blocked, readOnly } = useRewind();
  const [viewing, setViewing] = useState(false);
  const [undo, setUndo] = useState<'idle' | 'confirm' | 'pending' | 'done'>('idle');
  const [error, setError] = useState<string | null>(null);
  const what = [note.code ? 'code' : '', note.conversation ? 'conversation' : ''].filter(Boolean).join(' and ');
  const doUndo = async () => {
    if (!note.undoCheckpointId) return;
    setUndo('pending');
    setError(null);
    try {
      await rewind({ checkpointId: note.undoCheckpointId, code: true, conversation: false });
      setUndo('done');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setUndo('confirm');
    }
  };
  return (
    <div role="note" aria-label={`Rewound ${what}`} data-rewind-note={note.branchId ?? ''} className="rounded border border-dashed border-sky-300 bg-sky-50/60 px-3 py-2 text-xs text-zinc-700 dark:border-sky-800 dark:bg-sky-950/30 dark:text-zinc-300">
      <p>
        <span className="font-medium text-sky-800 dark:text-sky-300">↶ Rewound {what} here. </span>
        {note.code && (note.restored.length > 0 ? `Restored ${note.restored.length} file${note.restored.length === 1 ? '' : 's'}: ${list(note.restored)}. ` : 'No file needed restoring. ')}
        {!note.code && 'The files were left as they were. '}
        {note.conversation && note.branchId && (
          <>
            The later messages are kept as a branch —{' '}
            <button type="button" onClick={() => setViewing(true)} className="font-medium text-sky-700 underline dark:text-sky-400">
              open it
            </button>
            .{' '}
          </>
        )}
        {!readOnly && note.code && note.undoCheckpointId && undo === 'idle' && (
          <button type="button" disabled={!!blocked} title={blocked ?? 'Put the files back as they were just before this rewind'} onClick={() => setUndo('confirm')} className="text-sky-700 underline disabled:opacity-50 dark:text-sky-400">
            Undo the code rewind
          </button>
        )}
        {undo === 'done' && <span className="text-emerald-700 dark:text-emerald-400">The files are back as they were before this rewind.</span>}
      </p>
      {(undo === 'confirm' || undo === 'pending') && (
        <p className="mt-1 flex flex-wrap items-center gap-2">
          Put the files back as they were just before this rewind? The conversation stays as it is.
          <button type="button" disabled={undo === 'pending'} onClick={() => void doUndo()} className="rounded bg-sky-600 px-2 py-0.5 font-medium text-white hover:bg-sky-700 disabled:opacity-50">
            {undo === 'pending' ? 'Restoring…' : 'Undo it'}
          </button>
          <button type="button" onClick={() => setUndo('idle')} className="rounded border border-zinc-300 px-2 py-0.5 dark:border-zinc-700">
            Cancel
          </button>
        </p>
      )}
      {error && <p className="mt-1 text-rose-700 dark:text-rose-400">{error}</p>}
      {viewing && note.branchId && <Branch branchId={note.branchId} onClose={() => setViewing(false)} />}
    </div>
  );
}
