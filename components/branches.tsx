'use client';

import { useState } from 'react';
import { BranchViewer, branchTime } from './branch-viewer';
import { useBranches, type BranchSummary } from './checkpoint-api';
import { RowView } from './message-view';
import { btnCls } from './modal';
import { useRewind } from './rewind-context';

function BranchList({ branches, onOpen }: { branches: BranchSummary[]; onOpen: (id: string) => void }) {
  return (
    <ul className="mt-1 space-y-1" aria-label="Kept branches">
      {branches.map((b) => (
        <li key={b.id} className="flex items-center gap-2">
          <span className="min-w-0 flex-1 truncate" title={b.preview}>
            <span className="text-zinc-500">{branchTime(b.createdAt)} · {b.messageCount} message{b.messageCount === 1 ? '' : 's'} · </span>
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
      {viewing && <BranchViewer branchId={viewing} onClose={() => setViewing(null)} Row={RowView} />}
    </div>
  );
}
