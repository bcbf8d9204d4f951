'use client';

import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ApprovalAnswer, ApprovalInfo } from '@/lib/contract/protocol';
import type { ApprovalConflictAnswer } from '@/lib/contract/rest';
import { patternText, rulePatterns } from '@/lib/agent/rule-patterns';
import { ApiError, postApproval } from './api';
import { DiffView } from './diff-view';
import { QuestionItem } from './question-item';

/** A call waiting for the person, in call order. */
export interface PendingCall {
  toolCallId: string;
  /** the id addToolApprovalResponse answers (the tool part's approval.id) */
  approvalId: string;
  toolName: string;
  input: unknown;
  info?: ApprovalInfo | null;
  /** the session whose approval it is, when not the one shown (a subagent's own session) */
  sessionId?: string;
  /** waits while its turn runs (a subagent's call, a question): answered on the server only, not through the SDK */
  live?: boolean;
}

export interface AnswerEvent {
  call: PendingCall;
  answer: ApprovalAnswer;
  reason?: string;
}

/** Shortcut keys this soon after the bar takes focus are ignored. */
const TYPE_THROUGH_GUARD_MS = 400;

const btn =
  'inline-flex items-center gap-1.5 rounded border px-2.5 py-1 text-xs font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:cursor-not-allowed disabled:opacity-50';
const btnPlain = `${btn} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800`;
const btnPrimary = `${btn} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`;
const btnDanger = `${btn} border-rose-300 bg-white text-rose-700 hover:bg-rose-50 dark:border-rose-900 dark:bg-zinc-900 dark:text-rose-400 dark:hover:bg-rose-950`;
const field =
  'rounded border border-zinc-300 bg-white px-2 py-1 text-xs focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950';

function Kbd({ k }: { k: string }) {
  return <kbd className="rounded border border-current/30 px-1 font-mono text-[10px] leading-4 opacity-70">{k}</kbd>;
}

/** A risk badge for dangerous and catastrophic commands; an ordinary call has none (the heading already says it needs approval). */
function risk(info: ApprovalInfo | null | undefined): { label: string; cls: string } | null {
  const tier = info?.decision.tier;
  if (tier === 1) return { label: 'catastrophic', cls: 'bg-rose-600 text-white' };
  if (tier === 2) return { label: 'dangerous', cls: 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300' };
  return null;
}


/** A modal (the output viewer, the settings) is open over the page: the bar neither takes focus nor hears keys meanwhile. */
function modalOpen(): boolean {
  return !!document.querySelector('[aria-modal="true"], dialog[open]');
}

/** Where a key is text being typed: a text box, a select, an editable element. */
const TEXT_FIELD = 'textarea, select, [contenteditable]:not([contenteditable="false"]), input:not([type="checkbox"]):not([type="radio"]):not([type="button"]):not([type="submit"]):not([type="reset"])';

function inTextField(el: EventTarget | null): boolean {
  return el instanceof Element && (!!el.closest(TEXT_FIELD) || (el instanceof HTMLElement && el.isContentEditable));
}

/** The answer keys that work from anywhere on the page but a text field (Enter and Esc only in the bar: elsewhere they belong to what has focus). */
const PAGE_KEYS = new Set(['y', 'n', 's', 'a', 'e', 'r']);

function commandOf(input: unknown): string | undefined {
  const c = (input as { command?: unknown } | null)?.command;
  return typeof c === 'string' ? c : undefined;
}

function Item({ call, index, total, sessionId, autoFocus, pageKeys, onAnswered }: { call: PendingCall; index: number; total: number; sessionId: string; autoFocus: boolean; pageKeys: boolean; onAnswered: (e: AnswerEvent) => void }) {
  const info = call.info;
  const command = commandOf(call.input);
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState(command ?? '');
  const [reason, setReason] = useState('');
  // "allow network" for this one command: offered when the command does not already ask for more itself
  const offersNetwork = call.toolName === 'run_command' && !(call.input as { sandbox?: unknown } | null)?.sandbox;
  const [network, setNetwork] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const editRef = useRef<HTMLTextAreaElement>(null);
  const reasonRef = useRef<HTMLInputElement>(null);
  const patterns = rulePatterns(call.toolName, call.info);
  const saveTitle = patterns
    ? `Allow without asking: ${patterns[0] === '*' ? `every ${call.toolName} call` : patterns.map(patternText).join(' · ')}`
    : 'This call cannot be saved as a rule (Clamp cannot judge what it would run); approve it once.';
  const r = risk(info);

  // keys typed within a moment of the call appearing or the bar taking focus were meant for something else (typing through)
  const focusedAt = useRef(0);
  useEffect(() => {
    focusedAt.current = performance.now();
  }, []);
  // set at once (busy is a render away): a second key, or a click, never answers the call twice
  const answering = useRef(false);
  useEffect(() => {
    // a call that arrives while the person reads a modal must not pull the cursor out of it (Esc there would deny the call)
    if (!autoFocus || modalOpen()) return;
    focusedAt.current = performance.now();
    rootRef.current?.focus();
  }, [autoFocus]);
  useEffect(() => {
    if (editing) editRef.current?.focus();
  }, [editing]);

  async function answer(kind: ApprovalAnswer) {
    if (busy || answering.current) return;
    if ((kind === 'always' || kind === 'session') && !patterns) return;
    const editedCommand = kind === 'edit' ? edited.trim() : undefined;
    if (kind === 'edit' && !editedCommand) return setError('The edited command is empty. Type a command or deny the call.');
    const final: ApprovalAnswer = kind === 'edit' && editedCommand === command ? 'once' : kind;
    const why = kind === 'deny' ? reason.trim() || undefined : undefined;
    answering.current = true;
    setBusy(true);
    setError(null);
    const owner = call.sessionId ?? sessionId;
    try {
      const withNetwork = offersNetwork && network && final !== 'deny';
      await postApproval(owner, call.toolCallId, { answer: final, ...(final === 'edit' ? { editedCommand } : {}), ...(why ? { reason: why } : {}), ...(withNetwork ? { network: true } : {}) });
      onAnswered({ call, answer: final, reason: why });
    } catch (err) {
      const stored = err instanceof ApiError && err.status === 409 ? ((err.body as Partial<ApprovalConflictAnswer> | null)?.approval ?? null) : null;
      // answered meanwhile (another tab): that answer stands, for this very call only; a withdrawn call's is shown as the error
      if (stored?.answer && stored.status === 'answered' && stored.toolCallId === call.toolCallId && stored.sessionId === owner) onAnswered({ call, answer: stored.answer, reason: stored.reason ?? undefined });
      else setError(err instanceof Error ? err.message : String(err));
      answering.current = false;
      setBusy(false);
    }
  }

  /** What a shortcut key does (Enter and Esc only when the key was pressed in this item). */
  function shortcut(key: string): (() => void) | undefined {
    const map: Record<string, () => void> = {
      enter: () => void answer(editing ? 'edit' : 'once'),
      y: () => void answer(editing ? 'edit' : 'once'),
      s: () => void answer('session'),
      a: () => void answer('always'),
      e: () => command !== undefined && setEditing(true),
      n: () => void answer('deny'),
      escape: () => void answer('deny'),
      r: () => reasonRef.current?.focus(),
    };
    return map[key];
  }

  // the first call waiting hears y, n … from anywhere on the page but a text field (an item hears its own keys)
  const onPageKey = useRef<(e: globalThis.KeyboardEvent) => void>(() => undefined);
  useEffect(() => {
    onPageKey.current = (e) => {
      if (e.defaultPrevented || e.repeat || e.ctrlKey || e.metaKey || e.altKey || busy || answering.current || modalOpen()) return;
      if (inTextField(e.target) || (e.target instanceof Element && e.target.closest('[data-approval-for]'))) return;
      const key = e.key.toLowerCase();
      if (!PAGE_KEYS.has(key) || performance.now() - focusedAt.current < TYPE_THROUGH_GUARD_MS) return;
      const act = shortcut(key);
      if (!act) return;
      e.preventDefault();
      act();
    };
  });
  useEffect(() => {
    if (!pageKeys) return;
    const listener = (e: globalThis.KeyboardEvent) => onPageKey.current(e);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, [pageKeys]);

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || busy || answering.current || modalOpen()) return;
    const tag = (e.target as HTMLElement).tagName;
    if (tag === 'TEXTAREA' || tag === 'INPUT') {
      if (e.target === editRef.current && e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        void answer('edit');
      } else if (e.target === reasonRef.current && e.key === 'Enter') {
        e.preventDefault();
        void answer('deny');
      } else if (e.key === 'Escape') {
        e.preventDefault();
        setEditing(false);
        rootRef.current?.focus();
      }
      return;
    }
    if (tag === 'BUTTON' && (e.key === 'Enter' || e.key === ' ')) return; // the button's own click
    if (performance.now() - focusedAt.current < TYPE_THROUGH_GUARD_MS) return;
    const act = shortcut(e.key.toLowerCase());
    if (act) {
      e.preventDefault();
      act();
    }
  }

  return (
    <div
      ref={rootRef}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      data-approval-for={call.toolCallId}
      aria-label={`Approval ${index + 1} of ${total}: ${call.toolName}`}
      // squeezed (a short window, several calls), the diff gives way first, then the item scrolls
      className="flex min-h-32 flex-col gap-1.5 overflow-y-auto rounded-md border border-amber-300 bg-amber-50/70 p-3 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-amber-800 dark:bg-amber-950/30"
    >
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold text-zinc-800 dark:text-zinc-100">{total > 1 ? `Approval ${index + 1} of ${total}` : 'Approval needed'}</span>
        <span className="font-mono text-zinc-600 dark:text-zinc-300">{call.toolName}</span>
        {info?.from && (
          <span className="rounded bg-indigo-100 px-1.5 py-0.5 font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300" data-approval-from={info.from.sessionId}>
            from subagent {info.from.label}
          </span>
        )}
        {r && <span className={`rounded px-1.5 py-0.5 font-medium ${r.cls}`}>{r.label}</span>}
        {info?.decision.reason && <span className="text-zinc-600 dark:text-zinc-400">{info.decision.reason}</span>}
      </div>
      <pre className="max-h-40 shrink-0 overflow-auto whitespace-pre-wrap break-all rounded border border-zinc-200 bg-white px-2 py-1.5 font-mono text-[12.5px] text-zinc-900 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-100">
        {command ?? info?.summary ?? JSON.stringify(call.input, null, 2)}
      </pre>
      {info?.subcommands && info.subcommands.length > 1 && (
        <div className="text-xs">
          <p className="text-zinc-500">Every sub-command ({info.subcommands.length}):</p>
          <ol className="mt-0.5 list-decimal space-y-0.5 pl-5 font-mono text-zinc-800 dark:text-zinc-200">
            {info.subcommands.map((s, i) => (
              <li key={`${i}-${s}`}>{s}</li>
            ))}
          </ol>
        </div>
      )}
      {info?.cwd && (
        <p className="text-xs text-zinc-500">
          Working directory: <span className="font-mono text-zinc-700 dark:text-zinc-300">{info.cwd}</span>
        </p>
      )}
      {info?.diff && (
        // the one part that gives way when the window is short: it scrolls in the room left, at least a few lines
        <div className="flex min-h-22 flex-col">
          <DiffView diff={info.diff} label={`Proposed change of ${call.toolName}`} maxHeightPx={260} fill />
        </div>
      )}
      {editing && (
        <div className="space-y-1">
          <label htmlFor={`edit-${call.toolCallId}`} className="text-xs text-zinc-600 dark:text-zinc-400">
            Edit the command, then press Enter to approve it (Shift+Enter for a new line, Esc to cancel):
          </label>
          <textarea id={`edit-${call.toolCallId}`} ref={editRef} value={edited} onChange={(e) => setEdited(e.target.value)} rows={2} className={`${field} w-full font-mono`} />
        </div>
      )}
      <div className="flex flex-wrap items-center gap-1.5">
        <button type="button" className={btnPrimary} disabled={busy} onClick={() => void answer(editing ? 'edit' : 'once')}>
          {editing ? 'Approve edited' : 'Approve once'} <Kbd k={editing ? '↵' : 'y'} />
        </button>
        {offersNetwork && (
          <label className="flex items-center gap-1 text-xs text-zinc-700 dark:text-zinc-300" title="Run this command with network access, this time only (the rest of the sandbox stays). A saved rule does not carry it.">
            <input type="checkbox" checked={network} disabled={busy} onChange={(e) => setNetwork(e.target.checked)} data-approval-network />
            with network, this once
          </label>
        )}
        <button type="button" className={btnPlain} disabled={busy || !patterns} title={`${saveTitle}${patterns ? ' (this session)' : ''}`} onClick={() => void answer('session')}>
          This session <Kbd k="s" />
        </button>
        <button type="button" className={btnPlain} disabled={busy || !patterns} title={`${saveTitle}${patterns ? ' (always, in this workspace)' : ''}`} onClick={() => void answer('always')}>
          Always <Kbd k="a" />
        </button>
        {command !== undefined && !editing && (
          <button type="button" className={btnPlain} disabled={busy} onClick={() => setEditing(true)}>
            Edit &amp; approve <Kbd k="e" />
          </button>
        )}
        {/* the reason and Deny wrap together, so the field stays wide enough to read what is typed; beside the
            buttons when there is room, so the diff keeps it */}
        <div className="flex min-w-40 flex-1 items-center gap-1.5">
          <input
            ref={reasonRef}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Reason for denying"
            aria-label="Reason for denying (optional, sent to the model)"
            className={`${field} min-w-0 flex-1`}
          />
          <button type="button" className={btnDanger} disabled={busy} onClick={() => void answer('deny')}>
            Deny <Kbd k="n" />
          </button>
        </div>
      </div>
      <p className="text-[11px] text-zinc-500">{saveTitle}{patterns ? ' — with “This session” or “Always”.' : ''}</p>
      {error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
    </div>
  );
}

/** Every pending call in call order, each with its full command, cwd, risk, diff and answer buttons; focus moves here when one appears. */
export function ApprovalBar({ sessionId, pending, onAnswered }: { sessionId: string; pending: PendingCall[]; onAnswered: (e: AnswerEvent) => void }) {
  if (pending.length === 0) return null;
  // only a command can be edited before it runs: the e key is listed only when an Edit button is there
  const editable = pending.some((c) => commandOf(c.input) !== undefined);
  // a question has its own controls; the approval keys are listed only when an approval is there
  const approvals = pending.some((c) => !c.info?.question);
  const first = pending.findIndex((c) => !c.info?.question);
  // a column that shrinks to the room the conversation leaves: each item's diff gives way first (the chat's layout scrolls the rest)
  return (
    <section aria-label="Pending approvals" className="flex min-h-0 flex-col gap-2">
      {pending.map((call, i) =>
        call.info?.question ? (
          <QuestionItem key={`${call.sessionId ?? ''}/${call.toolCallId}`} call={call} question={call.info.question} sessionId={call.sessionId ?? sessionId} autoFocus={i === 0} onAnswered={onAnswered} />
        ) : (
          <Item key={`${call.sessionId ?? ''}/${call.toolCallId}`} call={call} index={i} total={pending.length} sessionId={sessionId} autoFocus={i === 0} pageKeys={i === first} onAnswered={onAnswered} />
        ),
      )}
      {approvals && <p className="shrink-0 text-[11px] text-zinc-500">
        Keys: <Kbd k="↵" />/<Kbd k="y" /> approve once · <Kbd k="s" /> this session · <Kbd k="a" /> always · {editable && (
          <>
            <Kbd k="e" /> edit ·{' '}
          </>
        )}
        <Kbd k="n" />/<Kbd k="Esc" /> deny · <Kbd k="r" /> type a reason
      </p>}
    </section>
  );
}
