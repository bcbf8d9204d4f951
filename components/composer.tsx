'use client';

import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent, type MutableRefObject } from 'react';
import { BUDGET } from '@/lib/contract/budget';
import { looksLikePath, mentionAtCaret, parseMentions } from '@/lib/contract/mentions';
import type { ImageInput, SessionSummary } from '@/lib/contract/protocol';
import { formatBytes } from '@/lib/contract/text';
import { useSessions, useStatus } from './api';
import { checkMention, completePaths, steerTurn, useModelCapability, useSkills } from './composer-api';
import { allCommands, matchCommands, parseCommand } from './composer-commands';
import { readPendingFile, type PendingFile } from './composer-files';
import { ComposerPopup, type PopupItem } from './composer-popup';
import { ComposerQueue, type QueuedMessage } from './composer-queue';
import { useComposerCommands, type InfoPanel } from './use-composer-commands';
import { useRewind } from './rewind-context';

/** What the composer hands the chat to send. */
export interface ComposerMessage {
  text: string;
  files: PendingFile[];
  skill?: { name: string; args: string };
}

type Popup = { kind: 'mention'; from: number; items: PopupItem[]; dirs: Set<string>; note?: string } | { kind: 'slash'; items: PopupItem[] };

const NO_SKILLS: { name: string; description: string }[] = [];
const newId = () => Math.random().toString(36).slice(2, 10);

/**
 * The message box: @-mentions with path completion (and a check before sending), images and text
 * files (button, paste, drop), slash commands with completion and help, and a queue for what is typed
 * while a turn runs ("Send now" steers: the turn ends at its next safe point and the message goes).
 */
export function Composer({
  session: initial,
  busy,
  blocked,
  disabled,
  errored,
  onSend,
  onStop,
  onCompact,
  onRewind,
  draftRef,
}: {
  session: SessionSummary;
  busy: boolean;
  /** why sending must wait (a pending approval): messages are queued meanwhile */
  blocked?: string;
  /** why nothing can be sent (no model) */
  disabled?: string;
  /** the last turn failed: the queue waits for the person */
  errored: boolean;
  onSend: (m: ComposerMessage) => void;
  onStop: () => void;
  onCompact: (focus: string) => void;
  /** /rewind: by default the rewind dialog's picker of user messages */
  onRewind?: () => void;
  /** filled with a setter that puts text into the composer when it is empty (a rewound message's text comes back) */
  draftRef?: MutableRefObject<((text: string) => void) | null>;
}) {
  const session = useSessions().data?.find((s) => s.id === initial.id) ?? initial;
  const status = useStatus().data;
  const own = useModelCapability(session.model).data;
  const imageInput: ImageInput | undefined = session.model ? own?.imageInput : status?.model.imageInput;
  const modelLabel = session.model ? (own?.label ?? session.model) : (status?.model.label ?? 'the model');
  const skills = useSkills().data ?? NO_SKILLS;
  const commands = useMemo(() => allCommands(skills), [skills]);

  const [text, setText] = useState('');
  useEffect(() => {
    if (!draftRef) return;
    draftRef.current = (t) => setText((cur) => (cur.trim() ? cur : t));
    return () => {
      draftRef.current = null;
    };
  }, [draftRef]);
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [queue, setQueue] = useState<QueuedMessage[]>([]);
  const [popup, setPopup] = useState<Popup | null>(null);
  const [active, setActive] = useState(0);
  const [panel, setPanel] = useState<InfoPanel | null>(null);
  const [problems, setProblems] = useState<string[] | null>(null);
  const [dragging, setDragging] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const sendSkill = (name: string, args: string) => submit({ text: `/${name}${args ? ` ${args}` : ''}`, files, skill: { name, args } });
  const { openRewind } = useRewind();
  const run = useComposerCommands({ session, skills, onCompact, onRewind: onRewind ?? (() => openRewind()), sendSkill, show: setPanel });

  // a message queued while the turn ran goes once it ends (and nothing else waits)
  const inflight = useRef(false);
  useEffect(() => {
    if (busy || errored) inflight.current = false;
    if (busy || blocked || disabled || errored || inflight.current || queue.length === 0) return;
    const [next, ...rest] = queue;
    inflight.current = true;
    setQueue(rest);
    onSend({ text: next.text, files: next.files, ...(next.skill ? { skill: next.skill } : {}) });
  }, [busy, blocked, disabled, errored, queue, onSend]);

  const images = files.filter((f) => f.image);
  const imageRefusal = images.length > 0 && imageInput && !imageInput.accepted ? `${modelLabel} does not take images (${imageInput.source}). Remove the image, or pick a vision model in the header.` : null;

  function submit(m: ComposerMessage) {
    setText('');
    setFiles([]);
    setProblems(null);
    setPopup(null);
    if (busy || blocked || queue.length > 0) setQueue((q) => [...q, { id: newId(), ...m }]);
    else {
      inflight.current = true;
      onSend(m);
    }
  }

  async function send(force = false) {
    const raw = text.trim();
    if ((!raw && files.length === 0) || disabled) return;
    setPopup(null);
    completion.current?.abort();
    if (raw.startsWith('/') && !raw.startsWith('//')) {
      const cmd = parseCommand(raw);
      if (cmd && (await run(cmd.name, cmd.args))) {
        if (!commands.find((c) => c.name === cmd.name)?.skill) setText('');
        return;
      }
      setPanel({ title: raw.split(/\s/)[0], lines: [`No such command. Type / to list the commands (or /help); start with // to send a message that begins with a slash.`], tone: 'error' });
      return;
    }
    if (imageRefusal) return;
    if (!force) {
      const mentions = parseMentions(raw, BUDGET.MENTION_MAX_COUNT).filter((m) => looksLikePath(m.path));
      const checks = await Promise.all(mentions.map((m) => checkMention(m.path).catch((e: Error) => ({ path: m.path, ok: false, error: e.message }))));
      const bad = checks.filter((c) => !c.ok).map((c) => `@${c.path}: ${c.error}`);
      if (bad.length > 0) return setProblems(bad);
    }
    submit({ text: raw.startsWith('//') ? raw.slice(1) : raw, files });
  }

  async function addFiles(list: Iterable<File>) {
    const errors: string[] = [];
    const added: PendingFile[] = [];
    for (const f of list) {
      try {
        added.push(await readPendingFile(f));
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    setFiles((prev) => {
      const next = [...prev, ...added];
      const imgs = next.filter((f) => f.image);
      if (imgs.length > BUDGET.ATTACH_IMAGES_MAX_COUNT) errors.push(`At most ${BUDGET.ATTACH_IMAGES_MAX_COUNT} images per message: the rest were not attached.`);
      const keep = new Set(imgs.slice(BUDGET.ATTACH_IMAGES_MAX_COUNT).map((f) => f.id));
      return next.filter((f) => !keep.has(f.id));
    });
    setPanel(errors.length ? { title: 'Attachments', lines: errors, tone: 'error' } : null);
  }

  // completion: slash commands at the start, paths after an @ at the caret
  const completion = useRef<AbortController | null>(null);
  function refreshPopup(value: string, caret: number) {
    const slash = matchCommands(value, commands);
    if (slash) {
      setPopup({ kind: 'slash', items: slash.map((c) => ({ key: c.name, label: `/${c.name}${c.args ? ` ${c.args}` : ''}`, detail: c.help })) });
      setActive(0);
      return;
    }
    const at = mentionAtCaret(value, caret);
    completion.current?.abort();
    if (!at) return setPopup(null);
    const ctl = new AbortController();
    completion.current = ctl;
    completePaths(at.query, ctl.signal)
      .then((r) => {
        if (ctl.signal.aborted) return;
        const note = r.more ? 'More match: type more of the path.' : r.scanCapped ? `Only the first ${BUDGET.MENTION_SCAN_MAX_FILES.toLocaleString('en-US')} workspace paths were searched.` : undefined;
        setPopup({ kind: 'mention', from: at.from, dirs: new Set(r.items.filter((i) => i.dir).map((i) => i.path)), items: r.items.map((i) => ({ key: i.path, label: i.dir ? `${i.path}/` : i.path })), note });
        setActive(0);
      })
      .catch(() => undefined);
  }

  function pick(i: number) {
    if (!popup) return;
    const item = popup.items[i];
    if (!item) return;
    const el = box.current;
    if (popup.kind === 'slash') {
      const value = `/${item.key} `;
      setText(value);
      setPopup(null);
      requestAnimationFrame(() => el?.setSelectionRange(value.length, value.length));
      return;
    }
    const caret = el?.selectionStart ?? text.length;
    const dir = popup.dirs.has(item.key);
    const insert = `@${item.key}${dir ? '/' : ' '}`;
    const value = text.slice(0, popup.from) + insert + text.slice(caret);
    const at = popup.from + insert.length;
    setText(value);
    setProblems(null);
    requestAnimationFrame(() => el?.setSelectionRange(at, at));
    if (dir) refreshPopup(value, at);
    else setPopup(null);
  }

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (popup && popup.items.length > 0) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = popup.items.length;
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
        return;
      }
      // Enter on a command typed in full runs it; otherwise Enter, like Tab, takes the highlighted choice
      const typedInFull = popup.kind === 'slash' && text.trim() === `/${popup.items[active]?.key}`;
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && !typedInFull)) {
        e.preventDefault();
        pick(active);
        return;
      }
    }
    if (e.key === 'Escape' && popup) {
      e.preventDefault();
      setPopup(null);
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = Array.from(e.clipboardData.files);
    if (pasted.length === 0) return;
    e.preventDefault();
    void addFiles(pasted);
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer.files.length) void addFiles(Array.from(e.dataTransfer.files));
  };

  const steer = async (id: string) => {
    setQueue((q) => {
      const item = q.find((x) => x.id === id);
      return item ? [{ ...item, steering: true }, ...q.filter((x) => x.id !== id)] : q;
    });
    await steerTurn(session.id).catch(() => false);
  };
  const sendNow = () => {
    const raw = text.trim();
    if (!raw && files.length === 0) return;
    const item = { id: newId(), text: raw, files, steering: true };
    setText('');
    setFiles([]);
    setQueue((q) => [item, ...q]);
    void steerTurn(session.id).catch(() => false);
  };

  const hasInput = text.trim() !== '' || files.length > 0;
  const placeholder = disabled ?? (busy ? 'Type to queue a message (sent when the turn ends; Send now steers)' : blocked ? `${blocked} Messages typed now are queued.` : 'Message Clamp — @ to mention a file, / for commands, paste or drop images (Enter sends, Shift+Enter for a new line)');

  return (
    <div
      className="space-y-2"
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <ComposerQueue queue={queue} busy={busy} onEdit={(id) => {
        const item = queue.find((q) => q.id === id);
        if (!item) return;
        setQueue((q) => q.filter((x) => x.id !== id));
        setText(item.text);
        setFiles(item.files);
        box.current?.focus();
      }} onSteer={(id) => void steer(id)} onCancel={(id) => setQueue((q) => q.filter((x) => x.id !== id))} />
      {panel && (
        <div role={panel.tone === 'error' ? 'alert' : 'status'} data-testid="composer-panel" className={`flex items-start gap-2 rounded border px-3 py-2 text-xs ${panel.tone === 'error' ? 'border-rose-200 bg-rose-50 text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200' : 'border-zinc-200 bg-white text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300'}`}>
          <div className="min-w-0 flex-1">
            <p className="font-medium">{panel.title}</p>
            {panel.lines.map((l, i) => (
              <p key={i} className="font-mono">{l}</p>
            ))}
          </div>
          <button type="button" aria-label="Dismiss" onClick={() => setPanel(null)} className="rounded px-1.5 hover:bg-zinc-100 dark:hover:bg-zinc-800">
            ✕
          </button>
        </div>
      )}
      {problems && (
        <div role="alert" data-testid="mention-problems" className="flex items-start gap-2 rounded border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200">
          <div className="min-w-0 flex-1">
            {problems.map((p) => (
              <p key={p}>{p}</p>
            ))}
            <p className="mt-0.5 opacity-90">Fix the mention, or send anyway: the model then reads the error.</p>
          </div>
          <button type="button" onClick={() => void send(true)} className="rounded border border-amber-300 bg-white px-2 py-0.5 font-medium hover:bg-amber-100 dark:border-amber-800 dark:bg-amber-950">
            Send anyway
          </button>
        </div>
      )}
      {files.length > 0 && (
        <ul aria-label="Attachments" className="flex flex-wrap gap-2">
          {files.map((f) => (
            <li key={f.id} data-attachment={f.name} className="flex items-center gap-1.5 rounded border border-zinc-300 bg-white px-1.5 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-900">
              {/* a data: URL the person attached: nothing to optimise or fetch */}
              {/* eslint-disable-next-line @next/next/no-img-element */}
              {f.image ? <img src={f.url} alt={f.name} className="h-8 w-8 rounded object-cover" /> : <span aria-hidden="true" className="rounded bg-zinc-200 px-1 font-mono text-[10px] dark:bg-zinc-700">txt</span>}
              <span className="max-w-[12rem] truncate">{f.name}</span>
              <span className="text-zinc-500">{formatBytes(f.bytes)}</span>
              <button type="button" aria-label={`Remove ${f.name}`} onClick={() => setFiles((l) => l.filter((x) => x.id !== f.id))} className="rounded px-1 hover:bg-zinc-100 dark:hover:bg-zinc-800">
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {imageRefusal && (
        <p role="alert" data-testid="image-refusal" className="text-xs text-rose-700 dark:text-rose-300">
          {imageRefusal}
        </p>
      )}
      <div className={`relative flex items-end gap-2 ${dragging ? 'rounded-md ring-2 ring-sky-500' : ''}`}>
        {popup && (
          <ComposerPopup id="composer-options" title={popup.kind === 'slash' ? 'Commands (Tab or Enter to complete)' : 'Workspace files (Tab or Enter to insert)'} items={popup.items} active={active} onPick={pick} note={popup.kind === 'mention' ? popup.note : undefined} />
        )}
        <input ref={fileInput} type="file" multiple hidden aria-label="Attach files" onChange={(e) => {
          if (e.target.files) void addFiles(Array.from(e.target.files));
          e.target.value = '';
        }} />
        <button type="button" aria-label="Attach images or files" title="Attach images or text files (or paste, or drop them here)" disabled={!!disabled} onClick={() => fileInput.current?.click()} className="h-[2.75rem] rounded-md border border-zinc-300 bg-white px-2.5 text-base text-zinc-700 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200">
          <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
            <path d="M13.5 6.5 7.8 12.2a1.6 1.6 0 0 0 2.3 2.3l6-6a3.2 3.2 0 0 0-4.6-4.6l-6.2 6.2a4.8 4.8 0 0 0 6.8 6.8l5.4-5.4" />
          </svg>
        </button>
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
          onChange={(e) => {
            setText(e.target.value);
            setProblems(null);
            refreshPopup(e.target.value, e.target.selectionStart);
          }}
          onKeyDown={onKey}
          onPaste={onPaste}
          onBlur={() => setPopup(null)}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          placeholder={placeholder}
          disabled={!!disabled}
          className="min-h-[2.75rem] flex-1 resize-none rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900"
        />
        {busy && hasInput && (
          <>
            <button type="button" onClick={() => void send()} className="h-[2.75rem] rounded-md border border-sky-600 bg-white px-3 text-sm font-medium text-sky-700 hover:bg-sky-50 dark:bg-zinc-900 dark:text-sky-300">
              Queue
            </button>
            <button type="button" onClick={sendNow} title="Stop the turn after its running tool calls and send this now" className="h-[2.75rem] rounded-md bg-sky-600 px-3 text-sm font-medium text-white hover:bg-sky-700">
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
            onClick={() => void send()}
            disabled={!hasInput || !!disabled || !!imageRefusal}
            className="h-[2.75rem] rounded-md bg-sky-600 px-4 text-sm font-medium text-white hover:bg-sky-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-2 disabled:opacity-50"
          >
            Send
          </button>
        )}
      </div>
    </div>
  );
}
