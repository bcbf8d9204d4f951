'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { checkpointKeys, fetchBranch, useBranches, type BranchSummary } from './checkpoint-api';
import { rowsOf } from './chat-rows';
import { RowView } from './message-view';
import { btnCls, Modal } from './modal';
import { ReadOnlyRewind, useRewind } from './rewind-context';

const NO_CUTS = new Map();
const NO_PRUNED = new Map();

function when(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

/** A kept branch, read-only: its messages and tool cards as they were when the conversation was rewound. */
export function BranchViewer({ branchId, onClose }: { branchId: string; onClose: () => void }) {
  const { sessionId } = useRewind();
  const q = useQuery({ queryKey: [...checkpointKeys.branches(sessionId), branchId], queryFn: () => fetchBranch(sessionId, branchId), staleTime: Infinity });
  const rows = q.data ? rowsOf(q.data.messages) : [];
  return (
    <Modal title={q.data ? `Branch from ${when(q.data.branch.createdAt)} (read-only)` : 'Branch (read-only)'} onClose={onClose} wide>
      {q.isLoading && <p className="text-zinc-500">Loading the branch…</p>}
      {q.error && <p className="text-rose-700 dark:text-rose-400">The branch could not be loaded: {q.error.message}</p>}
      {q.data && (
        <>
          <p className="text-xs text-zinc-500">
            {q.data.messages.length} message{q.data.messages.length === 1 ? '' : 's'} kept when the conversation was rewound. They are not sent to the model; nothing here can be changed.
          </p>
          <ReadOnlyRewind>
            <div className="space-y-2" role="log" aria-label="Branch conversation" data-branch-id={branchId}>
              {rows.map((row) => (
                <div key={row.key} data-row-kind={row.kind}>
                  <RowView row={row} cuts={NO_CUTS} pruned={NO_PRUNED} idle />
                </div>
              ))}
            </div>
          </ReadOnlyRewind>
        </>
      )}
    </Modal>
  );
}

function BranchList({ branches, onOpen }: { branches: BranchSummary[]; onOpen: (id: string) => void }) {
  return (
    <ul className="mt-1 space-y-1" aria-label="Kept branches">
      {branches.map((b) => (
        <li key={b.id} className="flex items-center gap-2">
          <span className="min-w-0 flex-1 truncate" title={b.preview}>
            <span className="text-zinc-500">{when(b.createdAt)} · {b.messageCount} message{b.messageCount === 1 ? '' : 's'} · </span>
            {b.preview || '(no text)'}
          </span>
          <button type="button" className={btnCls} onClick={() => onOpen(b.id)} aria-label={`Open branch: ${b.preview}`}>
            Open
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Above the composer: the session's kept branches (from conversation rewinds), listed on demand, each openable read-only. */
export function RewindBar() {
  const { sessionId } = useRewind();
  const branches = useBranches(sessionId);
  const [listOpen, setListOpen] = useState(false);
  const [viewing, setViewing] = useState<string | null>(null);
  const list = branches.data ?? [];
  if (list.length === 0) return null;
  return (
    <div className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="rewind-bar">
      <button type="button" aria-expanded={listOpen} onClick={() => setListOpen(!listOpen)} className="underline-offset-2 hover:underline">
        {listOpen ? '▾' : '▸'} {list.length} kept branch{list.length === 1 ? '' : 'es'} from earlier rewinds
      </button>
      {listOpen && <BranchList branches={list} onOpen={setViewing} />}
      {viewing && <BranchViewer branchId={viewing} onClose={() => setViewing(null)} />}
    </div>
  );
}
