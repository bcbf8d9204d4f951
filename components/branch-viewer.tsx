'use client';

import { useQuery } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import type { TurnCut } from '@/lib/contract/protocol';
import type { PrunedMark } from './chat-derive';
import { checkpointKeys, fetchBranch } from './checkpoint-api';
import { rowsOf, type ChatRow } from './chat-rows';
import { Modal } from './modal';
import { ReadOnlyRewind, useRewind } from './rewind-context';

const NO_CUTS = new Map<string, TurnCut>();
const NO_PRUNED = new Map<string, PrunedMark>();

/** How a branch's time is shown (its viewer's title, the kept branches' list). */
export function branchTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

/** One row of the conversation, as the chat draws it. */
export type ConversationRow = ComponentType<{ row: ChatRow; cuts: ReadonlyMap<string, TurnCut>; pruned: ReadonlyMap<string, PrunedMark>; idle: boolean }>;

/**
 * A kept branch, read-only: its messages and tool cards as they were when the conversation was rewound.
 * `Row` draws each row: the chat's own row, passed in because a row (a rewind's divider) can open a
 * branch viewer in its turn.
 */
export function BranchViewer({ branchId, onClose, Row }: { branchId: string; onClose: () => void; Row: ConversationRow }) {
  const { sessionId } = useRewind();
  const q = useQuery({ queryKey: [...checkpointKeys.branches(sessionId), branchId], queryFn: () => fetchBranch(sessionId, branchId), staleTime: Infinity });
  const rows = q.data ? rowsOf(q.data.messages) : [];
  return (
    <Modal title={q.data ? `Branch from ${branchTime(q.data.branch.createdAt)} (read-only)` : 'Branch (read-only)'} onClose={onClose} wide>
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
                  <Row row={row} cuts={NO_CUTS} pruned={NO_PRUNED} idle />
                </div>
              ))}
            </div>
          </ReadOnlyRewind>
        </>
      )}
    </Modal>
  );
}
