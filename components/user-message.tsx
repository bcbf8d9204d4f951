'use client';

import { useState, type KeyboardEvent } from 'react';
import { btnCls, btnPrimaryCls } from './modal';
import { useRewind } from './rewind-context';
import { RunningTasks } from './rewind-dialog';
import type { ChatRow } from './chat-rows';
import { useEditResend } from './use-edit-resend';

type UserRow = Extract<ChatRow, { kind: 'user' }>;

// readable at rest (WCAG AA on the chat's background), not only on hover; a disabled one says why in its title
const ctlCls =
  'rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-[11px] text-zinc-700 hover:bg-zinc-100 hover:text-zinc-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:cursor-not-allowed disabled:text-zinc-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-zinc-100 dark:disabled:text-zinc-400';

/** Edit an earlier message in place: the edited text is sent after a rewind of the conversation (and, if chosen, of code). */
function EditInPlace({ messageId, text, onDone }: { messageId: string; text: string; onDone: () => void }) {
  const [draft, setDraft] = useState(text);
  const { preview, files, restoreCode, setCode, running, error, pending, blocked, go } = useEditResend(messageId, onDone);
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onDone();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void go(draft);
    }
  };

  return (
    <div className="w-full max-w-[85%] space-y-2 rounded-lg border border-sky-300 bg-white p-2 text-sm dark:border-sky-800 dark:bg-zinc-900" data-editing={messageId}>
      <label className="sr-only" htmlFor={`edit-${messageId}`}>
        Edit the message
      </label>
      <textarea
        id={`edit-${messageId}`}
        autoFocus
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKey}
        rows={Math.min(10, Math.max(2, draft.split('\n').length))}
        className="w-full resize-y rounded border border-zinc-300 bg-white px-2 py-1.5 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 dark:border-zinc-700 dark:bg-zinc-950"
      />
      <label className="flex items-center gap-2 text-xs text-zinc-700 dark:text-zinc-300">
        <input type="checkbox" checked={restoreCode} onChange={(e) => setCode(e.target.checked)} />
        Also restore code
        <span className="text-zinc-500">{previewNote(preview, files)}</span>
      </label>
      <p className="text-xs text-zinc-500">Sending rewinds the conversation to before this message; this message and everything after it are kept as a branch.</p>
      <RunningTasks tasks={running} />
      {error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
      {blocked && <p className="text-xs text-amber-700 dark:text-amber-400">{blocked}</p>}
      <div className="flex justify-end gap-2">
        <button type="button" className={btnCls} onClick={onDone}>
          Cancel
        </button>
        <button type="button" className={btnPrimaryCls} disabled={!draft.trim() || pending || !!blocked} onClick={() => void go(draft)}>
          {pending ? 'Sending…' : running.length > 0 ? 'Stop tasks and send' : 'Send edited'}
        </button>
      </div>
    </div>
  );
}

/** What restoring code would do, from the preview: while it loads, its failure, how many files go back, or none. */
function previewNote(preview: { isLoading: boolean; error: Error | null }, files: number): string {
  if (preview.isLoading) return '(checking what would change…)';
  if (preview.error) return `(the preview failed: ${preview.error.message})`;
  return files > 0 ? `(${files === 1 ? '1 file back to its' : `${files} files back to their`} state before this message)` : '(no file differs from before this message)';
}

/**
 * A user message as typed — with its images and, collapsed, each attached read exactly as the model got
 * it — and its rewind controls: "Rewind" opens the dialog (restore code, conversation or both, after a
 * preview) and "Edit" edits it in place and resends.
 */
export function UserMessage({ row }: { row: UserRow }) {
  const { messageId, text } = row;
  const { openRewind, blocked, readOnly } = useRewind();
  const [editing, setEditing] = useState(false);
  if (editing) {
    return (
      <div className="flex justify-end" data-message-id={messageId} data-role="user">
        <EditInPlace messageId={messageId} text={text} onDone={() => setEditing(false)} />
      </div>
    );
  }
  return (
    <div className="group flex flex-col items-end gap-1" data-message-id={messageId} data-role="user">
      <div className="max-w-[85%] whitespace-pre-wrap rounded-lg bg-zinc-800 px-3 py-2 text-sm text-zinc-50 dark:bg-zinc-700">
        {row.skill && <span className="mr-1 rounded bg-violet-600 px-1 text-xs">skill</span>}
        {row.text}
      </div>
      {row.images && (
        <div className="flex max-w-[85%] flex-wrap justify-end gap-1">
          {row.images.map((im, i) => (
            // a data: URL the person attached: nothing to fetch
            // eslint-disable-next-line @next/next/no-img-element
            <img key={i} src={im.url} alt={im.name} title={im.name} className="h-20 max-w-[12rem] rounded border border-zinc-300 object-contain dark:border-zinc-700" />
          ))}
        </div>
      )}
      {row.attachments?.map((a, i) => (
        <details key={i} data-attached={a.path} data-status={a.status} className="w-full max-w-[85%] rounded border border-zinc-200 bg-white text-xs dark:border-zinc-800 dark:bg-zinc-900">
          <summary className="cursor-pointer select-none px-2 py-1 text-zinc-600 dark:text-zinc-400">
            <span className="font-mono">
              {a.kind === 'mention' ? '@' : ''}
              {a.path}
              {a.lines ? `#L${a.lines.start}${a.lines.end !== undefined ? `-${a.lines.end}` : ''}` : ''}
            </span>
            <span className={a.status === 'ok' ? '' : 'text-rose-700 dark:text-rose-300'}> · {a.status === 'ok' ? (a.kind === 'mention' ? 'attached read' : 'attached file') : 'could not be read'}</span>
            {a.truncation && <span className="text-amber-700 dark:text-amber-300"> · cut</span>}
          </summary>
          <pre className="max-h-80 overflow-auto whitespace-pre-wrap border-t border-zinc-200 px-2 py-1 font-mono dark:border-zinc-800">{a.text}</pre>
        </details>
      ))}
      {!readOnly && (
        <div className="flex gap-1">
          <button type="button" className={ctlCls} disabled={!!blocked} title={blocked ?? 'Restore code, conversation or both to before this message'} onClick={() => openRewind(messageId)} aria-label="Rewind to before this message">
            ↶ Rewind
          </button>
          <button type="button" className={ctlCls} disabled={!!blocked} title={blocked ?? 'Edit this message and send it again from here'} onClick={() => setEditing(true)} aria-label="Edit this message">
            ✎ Edit
          </button>
        </div>
      )}
    </div>
  );
}

/** Where the session's model changed: the steps below were answered by the new one. */
export function ModelSwitchDivider({ from, to }: { from: string; to: string }) {
  return (
    <div role="separator" aria-label={`Model: ${from} → ${to}`} data-testid="model-switch" className="flex items-center gap-2 text-xs text-zinc-500">
      <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
      <span>
        Model: <span className="font-mono">{from}</span> → <span className="font-mono">{to}</span>
      </span>
      <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
