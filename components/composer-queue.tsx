'use client';

import type { PendingFile } from './composer-files';

/** A message typed while a turn runs: sent when the turn ends, or at its next safe point (steering). */
export interface QueuedMessage {
  id: string;
  text: string;
  files: PendingFile[];
  skill?: { name: string; args: string };
  /** a command from a file (the text is its expansion) */
  command?: { name: string; args: string };
  /** "Send now" was pressed: the turn ends at its next safe point, then this goes first */
  steering?: boolean;
}

/** The queue above the composer: each message with Edit (back into the box), Send now (steer) and Cancel. */
export function ComposerQueue({ queue, busy, onEdit, onSteer, onCancel }: { queue: QueuedMessage[]; busy: boolean; onEdit: (id: string) => void; onSteer: (id: string) => void; onCancel: (id: string) => void }) {
  if (queue.length === 0) return null;
  return (
    <ul aria-label="Queued messages" className="space-y-1">
      {queue.map((q, i) => (
        <li key={q.id} data-queued={q.id} className="flex items-start gap-2 rounded border border-sky-200 bg-sky-50 px-2 py-1 text-sm dark:border-sky-900 dark:bg-sky-950/40">
          <span className="shrink-0 text-xs text-sky-800 dark:text-sky-300">{q.steering ? 'sending at the next safe point' : i === 0 ? 'queued: sent when the turn ends' : `queued #${i + 1}`}</span>
          <span className="min-w-0 flex-1 whitespace-pre-wrap break-words">
            {q.text}
            {q.files.length > 0 && <span className="text-xs text-zinc-500"> + {q.files.map((f) => f.name).join(', ')}</span>}
          </span>
          <button type="button" onClick={() => onEdit(q.id)} className="text-xs text-sky-800 underline dark:text-sky-300">
            Edit
          </button>
          {busy && !q.steering && (
            <button type="button" onClick={() => onSteer(q.id)} title="Stop the turn after its running tool calls and send this now" className="text-xs font-medium text-sky-800 underline dark:text-sky-300">
              Send now
            </button>
          )}
          <button type="button" aria-label={`Cancel the queued message ${i + 1}`} onClick={() => onCancel(q.id)} className="text-xs text-zinc-600 hover:text-rose-700 dark:text-zinc-400">
            Cancel
          </button>
        </li>
      ))}
    </ul>
  );
}
