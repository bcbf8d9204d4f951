'use client';

import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import type { ClampMessage } from '@/lib/contract/protocol';
import { checkpointKeys, fetchRewindPreview, type RewindPreview } from './checkpoint-api';
import { FileDiffList } from './file-diff-list';
import { btnCls, btnPrimaryCls, Modal } from './modal';
import type { RewindApi } from './rewind-context';
import { useRewindRun } from './use-rewind-run';

export type RewindChoice = 'both' | 'code' | 'conversation';

const CHOICES: Array<{ value: RewindChoice; label: string; help: string }> = [
  { value: 'both', label: 'Restore code and conversation', help: 'Files go back to their state before this message, and the conversation continues from before it.' },
  { value: 'conversation', label: 'Restore conversation', help: 'The conversation continues from before this message; the files stay as they are now.' },
  { value: 'code', label: 'Restore code', help: 'Files go back to their state before this message; the conversation stays as it is.' },
];

/** The text of a message's text parts. */
export function messageText(m: ClampMessage | undefined): string {
  return m ? m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
}

function oneLine(s: string, max = 140): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** `/rewind` with no message: the user messages, newest first, to pick the one to rewind to before. */
function MessagePicker({ messages, onPick }: { messages: ClampMessage[]; onPick: (id: string) => void }) {
  // a rewind's own note is a user message without text: not a place to rewind to
  const users = messages
    .map((m, i) => ({ m, after: messages.length - i - 1 }))
    .filter((x) => x.m.role === 'user' && x.m.parts.some((p) => p.type === 'text'))
    .reverse();
  if (users.length === 0) return <p className="text-zinc-500">There is no message to rewind to yet.</p>;
  return (
    <>
      <p className="text-zinc-600 dark:text-zinc-400">Rewind to before which message?</p>
      <ul className="space-y-1">
        {users.map(({ m, after }) => (
          <li key={m.id}>
            <button type="button" onClick={() => onPick(m.id)} className="w-full rounded border border-zinc-200 px-2.5 py-1.5 text-left hover:bg-zinc-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-800 dark:hover:bg-zinc-800">
              <span className="block truncate">{oneLine(messageText(m)) || '(no text)'}</span>
              <span className="text-xs text-zinc-500">{after === 0 ? 'the latest message' : `${after} later message${after === 1 ? '' : 's'}`}</span>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}

/** What a rewind cannot undo, said plainly (from the preview). */
export function CannotUndo({ items }: { items: string[] }) {
  if (items.length === 0) return null;
  return (
    <div className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200" data-testid="cannot-undo">
      <p className="text-xs font-medium">A rewind cannot undo:</p>
      <ul className="mt-1 list-disc space-y-0.5 pl-5 text-xs">
        {items.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
    </div>
  );
}

/** The tasks that must stop before a rewind, with the choice to stop them. */
export function RunningTasks({ tasks }: { tasks: RewindPreview['runningTasks'] }) {
  if (tasks.length === 0) return null;
  return (
    <div role="alert" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200">
      <p className="font-medium">
        {tasks.length === 1 ? 'A background task is running' : `${tasks.length} background tasks are running`}; it could keep changing files after the rewind. Stop {tasks.length === 1 ? 'it' : 'them'} first:
      </p>
      <ul className="mt-1 space-y-0.5">
        {tasks.map((t) => (
          <li key={t.id} className="truncate font-mono" title={t.command}>
            {t.id}: {t.command}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The files a code rewind would change, with their diffs. */
export function PreviewFiles({ preview }: { preview: RewindPreview }) {
  if (preview.files.length === 0)
    return <p className="text-zinc-600 dark:text-zinc-400">{preview.checkpointId ? 'No file differs from its state before this message: restoring code changes nothing.' : 'No checkpoint was taken before this message (nothing was changed in its turn or after it), so there is no code to restore.'}</p>;
  return (
    <section aria-label="Files that will change" className="space-y-1.5">
      <p className="text-zinc-600 dark:text-zinc-400">
        Restoring code changes {preview.files.length} file{preview.files.length === 1 ? '' : 's'} in the workspace{preview.truncated ? ' (more than listed: the list was cut)' : ''}:
      </p>
      <FileDiffList files={preview.files} />
    </section>
  );
}

/** What the dialog needs of the conversation's rewind controls (the provider that renders it hands them down). */
export type RewindDialogApi = Pick<RewindApi, 'sessionId' | 'rewind' | 'blocked'>;

function ChoiceList({ choice, onChange }: { choice: RewindChoice; onChange: (c: RewindChoice) => void }) {
  return (
    <fieldset className="space-y-1.5">
      <legend className="sr-only">What to restore</legend>
      {CHOICES.map((c) => (
        <label key={c.value} className="flex cursor-pointer items-start gap-2">
          <input type="radio" name="rewind-choice" value={c.value} checked={choice === c.value} onChange={() => onChange(c.value)} className="mt-0.5" />
          <span>
            <span className="font-medium">{c.label}</span>
            <span className="block text-xs text-zinc-500">{c.help}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** The preview's state: working it out, its failure, or the files a code rewind changes and what no rewind undoes. */
function PreviewState({ preview, code }: { preview: UseQueryResult<RewindPreview>; code: boolean }) {
  return (
    <>
      {preview.isLoading && <p className="text-zinc-500">Working out what would change…</p>}
      {preview.error && <p className="text-rose-700 dark:text-rose-400">The preview could not be made: {preview.error.message}</p>}
      {preview.data && (
        <>
          {code && <PreviewFiles preview={preview.data} />}
          <CannotUndo items={preview.data.cannotUndo} />
        </>
      )}
    </>
  );
}

function PreviewBody({ messageId, messages, api, onRewound, onClose }: { messageId: string; messages: ClampMessage[]; api: RewindDialogApi; onRewound: (draft: string | null) => void; onClose: () => void }) {
  const { sessionId, blocked } = api;
  const preview = useQuery({ queryKey: checkpointKeys.preview(sessionId, messageId), queryFn: () => fetchRewindPreview(sessionId, messageId), staleTime: 0, gcTime: 0 });
  const [choice, setChoice] = useState<RewindChoice>('both');
  const run = useRewindRun(preview.data?.runningTasks);
  const message = messages.find((m) => m.id === messageId);
  const code = choice !== 'conversation';
  const conversation = choice !== 'code';
  // this message and every one after it
  const later = preview.data?.laterMessages ?? Math.max(1, messages.length - messages.findIndex((m) => m.id === messageId));
  const go = () => run.go((stop) => api.rewind({ messageId, code, conversation, ...stop }), () => onRewound(conversation ? messageText(message) : null));
  const label = CHOICES.find((c) => c.value === choice)!.label;

  return (
    <>
      <blockquote className="whitespace-pre-wrap rounded bg-zinc-100 px-3 py-2 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-100">{oneLine(messageText(message), 600) || '(this message)'}</blockquote>
      <ChoiceList choice={choice} onChange={setChoice} />
      {conversation && (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          {later === 1 ? 'This message' : `The ${later} messages from this one on`} will be kept as a branch you can still open; its text goes back to the message box.
        </p>
      )}
      <PreviewState preview={preview} code={code} />
      <RunningTasks tasks={run.running} />
      {run.error && (
        <p role="alert" className="text-rose-700 dark:text-rose-400">
          {run.error}
        </p>
      )}
      {blocked && <p className="text-amber-700 dark:text-amber-400">{blocked}</p>}
      <div className="sticky -bottom-3 -mx-4 flex flex-wrap justify-end gap-2 border-t border-zinc-200 bg-white px-4 py-2.5 dark:border-zinc-800 dark:bg-zinc-900">
        <button type="button" className={btnCls} onClick={onClose}>
          Cancel
        </button>
        <button type="button" className={btnPrimaryCls} disabled={run.pending || !!blocked || !preview.data} onClick={() => void go()}>
          {run.pending ? 'Rewinding…' : run.running.length > 0 ? `Stop tasks and ${label.toLowerCase()}` : label}
        </button>
      </div>
    </>
  );
}

/**
 * Rewind to before a user message: the choice of code, conversation or both, the preview of the
 * files that would change (each with its diff), what a rewind cannot undo, running tasks to stop
 * first, and the button that confirms. Without a message it first lists the user messages.
 */
export function RewindDialog({ messageId, messages, api, onClose, onRewound }: { messageId?: string; messages: ClampMessage[]; api: RewindDialogApi; onClose: () => void; onRewound: (draft: string | null) => void }) {
  const [picked, setPicked] = useState(messageId);
  return (
    <Modal title={picked ? 'Rewind to before this message' : 'Rewind'} onClose={onClose} wide>
      {picked ? <PreviewBody messageId={picked} messages={messages} api={api} onRewound={onRewound} onClose={onClose} /> : <MessagePicker messages={messages} onPick={setPicked} />}
    </Modal>
  );
}
