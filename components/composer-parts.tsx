'use client';

import { useRef, type ClipboardEvent, type KeyboardEvent, type RefObject } from 'react';
import { formatBytes } from '@/lib/contract/text';
import type { PendingFile } from './composer-files';
import type { Completion } from './use-composer-completion';
import type { InfoPanel } from './use-composer-commands';

/** What a command showed above the composer (help, cost, an error with the next step), with Dismiss. */
function InfoPanelView({ panel, onDismiss }: { panel: InfoPanel; onDismiss: () => void }) {
  return (
    <div role={panel.tone === 'error' ? 'alert' : 'status'} data-testid="composer-panel" className={`flex items-start gap-2 rounded border px-3 py-2 text-xs ${panel.tone === 'error' ? 'border-rose-200 bg-rose-50 text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200' : 'border-zinc-200 bg-white text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300'}`}>
      <div className="min-w-0 flex-1">
        <p className="font-medium">{panel.title}</p>
        {panel.lines.map((l, i) => (
          <p key={i} className="font-mono">{l}</p>
        ))}
      </div>
      <button type="button" aria-label="Dismiss" onClick={onDismiss} className="rounded px-1.5 hover:bg-zinc-100 dark:hover:bg-zinc-800">
        ✕
      </button>
    </div>
  );
}

/** The @-mentions that are no workspace file, with Send anyway (the model then reads the error). */
function MentionProblems({ problems, onSendAnyway }: { problems: string[]; onSendAnyway: () => void }) {
  return (
    <div role="alert" data-testid="mention-problems" className="flex items-start gap-2 rounded border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200">
      <div className="min-w-0 flex-1">
        {problems.map((p) => (
          <p key={p}>{p}</p>
        ))}
        <p className="mt-0.5 opacity-90">Fix the mention, or send anyway: the model then reads the error.</p>
      </div>
      <button type="button" onClick={onSendAnyway} className="rounded border border-amber-300 bg-white px-2 py-0.5 font-medium hover:bg-amber-100 dark:border-amber-800 dark:bg-amber-950">
        Send anyway
      </button>
    </div>
  );
}

/** The files the message carries: a thumbnail (or "txt"), the name, the size and Remove. */
function AttachmentList({ files, onRemove }: { files: PendingFile[]; onRemove: (id: string) => void }) {
  return (
    <ul aria-label="Attachments" className="flex flex-wrap gap-2">
      {files.map((f) => (
        <li key={f.id} data-attachment={f.name} className="flex items-center gap-1.5 rounded border border-zinc-300 bg-white px-1.5 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-900">
          {/* a data: URL the person attached: nothing to optimise or fetch */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          {f.image ? <img src={f.url} alt={f.name} className="h-8 w-8 rounded object-cover" /> : <span aria-hidden="true" className="rounded bg-zinc-200 px-1 font-mono text-[10px] dark:bg-zinc-700">txt</span>}
          <span className="max-w-[12rem] truncate">{f.name}</span>
          <span className="text-zinc-500">{formatBytes(f.bytes)}</span>
          <button type="button" aria-label={`Remove ${f.name}`} onClick={() => onRemove(f.id)} className="rounded px-1 hover:bg-zinc-100 dark:hover:bg-zinc-800">
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}

export interface NoticesProps {
  panel: InfoPanel | null;
  onDismiss: () => void;
  problems: string[] | null;
  onSendAnyway: () => void;
  files: PendingFile[];
  onRemove: (id: string) => void;
  imageRefusal: string | null;
}

/** Everything shown between the queue and the box: a command's panel, mention problems, the attachments, an image refusal. */
export function ComposerNotices(p: NoticesProps) {
  return (
    <>
      {p.panel && <InfoPanelView panel={p.panel} onDismiss={p.onDismiss} />}
      {p.problems && <MentionProblems problems={p.problems} onSendAnyway={p.onSendAnyway} />}
      {p.files.length > 0 && <AttachmentList files={p.files} onRemove={p.onRemove} />}
      {p.imageRefusal && (
        <p role="alert" data-testid="image-refusal" className="text-xs text-rose-700 dark:text-rose-300">
          {p.imageRefusal}
        </p>
      )}
    </>
  );
}

/** The paper clip and its hidden file input (images or text files; paste and drop also attach). */
export function AttachButton({ disabled, onFiles }: { disabled: boolean; onFiles: (files: File[]) => void }) {
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <>
      <input ref={fileInput} type="file" multiple hidden aria-label="Attach files" onChange={(e) => {
        if (e.target.files) onFiles(Array.from(e.target.files));
        e.target.value = '';
      }} />
      <button type="button" aria-label="Attach images or files" title="Attach images or text files (or paste, or drop them here)" disabled={disabled} onClick={() => fileInput.current?.click()} className="h-[2.75rem] rounded-md border border-zinc-300 bg-white px-2.5 text-base text-zinc-700 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200">
        <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
          <path d="M13.5 6.5 7.8 12.2a1.6 1.6 0 0 0 2.3 2.3l6-6a3.2 3.2 0 0 0-4.6-4.6l-6.2 6.2a4.8 4.8 0 0 0 6.8 6.8l5.4-5.4" />
        </svg>
      </button>
    </>
  );
}

export interface MessageBoxProps {
  box: RefObject<HTMLTextAreaElement | null>;
  text: string;
  completion: Completion;
  onChange: (value: string, caret: number) => void;
  onKeyDown: (e: KeyboardEvent<HTMLTextAreaElement>) => void;
  onPaste: (e: ClipboardEvent<HTMLTextAreaElement>) => void;
  placeholder: string;
  disabled: boolean;
}

/** The message's text box: a combobox whose list is the completion popup (the popup keeps the focus here). */
export function MessageBox({ box, text, completion, onChange, onKeyDown, onPaste, placeholder, disabled }: MessageBoxProps) {
  const { popup, active } = completion;
  return (
    <>
      <label htmlFor="chat-input" className="sr-only">
        Message
      </label>
      <textarea
        id="chat-input"
        ref={box}
        value={text}
        role="combobox"
        aria-expanded={!!popup}
        aria-controls={popup ? 'composer-options' : undefined}
        aria-activedescendant={popup && popup.items.length ? `composer-options-${active}` : undefined}
        aria-autocomplete="list"
        onChange={(e) => onChange(e.target.value, e.target.selectionStart)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        onBlur={completion.close}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        placeholder={placeholder}
        disabled={disabled}
        className="min-h-[2.75rem] flex-1 resize-none rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900"
      />
    </>
  );
}

export interface SendButtonsProps {
  busy: boolean;
  hasInput: boolean;
  /** Send is disabled (no model, or the model takes no images) */
  cannotSend: boolean;
  onSend: () => void;
  onSendNow: () => void;
  onStop: () => void;
}

/** While a turn runs: Queue and Send now (with something typed) and Stop; else Send. */
export function SendButtons({ busy, hasInput, cannotSend, onSend, onSendNow, onStop }: SendButtonsProps) {
  return (
    <>
      {busy && hasInput && (
        <>
          <button type="button" onClick={onSend} className="h-[2.75rem] rounded-md border border-sky-600 bg-white px-3 text-sm font-medium text-sky-700 hover:bg-sky-50 dark:bg-zinc-900 dark:text-sky-300">
            Queue
          </button>
          <button type="button" onClick={onSendNow} title="Stop the turn after its running tool calls and send this now" className="h-[2.75rem] rounded-md bg-sky-600 px-3 text-sm font-medium text-white hover:bg-sky-700">
            Send now
          </button>
        </>
      )}
      {busy ? (
        <button type="button" onClick={onStop} className="h-[2.75rem] rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-800 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100">
          <span aria-hidden="true">■ </span>Stop
        </button>
      ) : (
        <button
          type="button"
          onClick={onSend}
          disabled={!hasInput || cannotSend}
          className="h-[2.75rem] rounded-md bg-sky-600 px-4 text-sm font-medium text-white hover:bg-sky-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-2 disabled:opacity-50"
        >
          Send
        </button>
      )}
    </>
  );
}
