'use client';

import { useState, type ReactNode, type RefObject } from 'react';
import type { ApprovalAnswer, ApprovalInfo } from '@/lib/contract/protocol';
import { patternText, rulePatterns } from '@/lib/contract/rule-patterns';
import type { AnswerEvent, PendingCall } from './approval-bar';
import { DiffView } from './diff-view';
import { useApprovalAnswer } from './use-approval-answer';
import { useApprovalKeys } from './use-approval-keys';

const btn =
  'inline-flex items-center gap-1.5 rounded border px-2.5 py-1 text-xs font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:cursor-not-allowed disabled:opacity-50';
const btnPlain = `${btn} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800`;
const btnPrimary = `${btn} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`;
const btnDanger = `${btn} border-rose-300 bg-white text-rose-700 hover:bg-rose-50 dark:border-rose-900 dark:bg-zinc-900 dark:text-rose-400 dark:hover:bg-rose-950`;
const field =
  'rounded border border-zinc-300 bg-white px-2 py-1 text-xs focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950';

/** A shortcut key as the bar lists it. */
export function Kbd({ k }: { k: string }) {
  return <kbd className="rounded border border-current/30 px-1 font-mono text-[10px] leading-4 opacity-70">{k}</kbd>;
}

/** A risk badge for dangerous and catastrophic commands; an ordinary call has none (the heading already says it needs approval). */
function risk(info: ApprovalInfo | null | undefined): { label: string; cls: string } | null {
  const tier = info?.decision.tier;
  if (tier === 1) return { label: 'catastrophic', cls: 'bg-rose-600 text-white' };
  if (tier === 2) return { label: 'dangerous', cls: 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300' };
  return null;
}

/** The command a call would run, when it is a command (only a command can be edited before it runs). */
export function commandOf(input: unknown): string | undefined {
  const c = (input as { command?: unknown } | null)?.command;
  return typeof c === 'string' ? c : undefined;
}

/** What "This session" and "Always" would save, in words (their titles and the line under the buttons). */
function saveTitleOf(call: PendingCall, patterns: string[] | undefined): string {
  return patterns
    ? `Allow without asking: ${patterns[0] === '*' ? `every ${call.toolName} call` : patterns.map(patternText).join(' · ')}`
    : 'This call cannot be saved as a rule (Clamp cannot judge what it would run); approve it once.';
}

interface ItemProps {
  call: PendingCall;
  index: number;
  total: number;
  sessionId: string;
  autoFocus: boolean;
  pageKeys: boolean;
  onAnswered: (e: AnswerEvent) => void;
}

/** One call waiting for approval: what it would do (command, sub-commands, cwd, diff) and its answers, by button or key. */
export function ApprovalItem({ call, index, total, sessionId, autoFocus, pageKeys, onAnswered }: ItemProps) {
  const command = commandOf(call.input);
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState(command ?? '');
  const [reason, setReason] = useState('');
  // "allow network" for this one command: offered when the command does not already ask for more itself
  const offersNetwork = !!call.info?.command && !(call.input as { sandbox?: unknown } | null)?.sandbox;
  const [network, setNetwork] = useState(false);
  const patterns = rulePatterns(call.info);
  const saveTitle = saveTitleOf(call, patterns);
  const { busy, error, answering, answer } = useApprovalAnswer(call, sessionId, { patterns, command, edited, reason, network: offersNetwork && network }, onAnswered);
  const { rootRef, editRef, reasonRef, onKeyDown } = useApprovalKeys({ autoFocus, pageKeys, editing, setEditing, canEdit: command !== undefined, answering: () => busy || answering.current, answer });

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
      <ItemHeading call={call} index={index} total={total} />
      <ItemSubject call={call} command={command} />
      {editing && <EditBox toolCallId={call.toolCallId} editRef={editRef} value={edited} onChange={setEdited} />}
      <ItemActions
        answer={answer}
        busy={busy}
        editing={editing}
        onEdit={command !== undefined ? () => setEditing(true) : undefined}
        patterns={patterns}
        saveTitle={saveTitle}
        network={offersNetwork && <NetworkBox checked={network} disabled={busy} onChange={setNetwork} />}
        deny={<DenyBox reasonRef={reasonRef} reason={reason} onReason={setReason} busy={busy} onDeny={() => void answer('deny')} />}
      />
      <p className="text-[11px] text-zinc-500">{saveTitle}{patterns ? ' — with “This session” or “Always”.' : ''}</p>
      {error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
    </div>
  );
}

/** "Approval needed" (or n of m), the tool, the subagent it came from, the risk and the policy's reason. */
function ItemHeading({ call, index, total }: { call: PendingCall; index: number; total: number }) {
  const info = call.info;
  const r = risk(info);
  return (
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
  );
}

/** What the call would do: its command (or summary, or input), every sub-command, the working directory, the proposed diff. */
function ItemSubject({ call, command }: { call: PendingCall; command: string | undefined }) {
  const info = call.info;
  return (
    <>
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
    </>
  );
}

function EditBox({ toolCallId, editRef, value, onChange }: { toolCallId: string; editRef: RefObject<HTMLTextAreaElement | null>; value: string; onChange: (v: string) => void }) {
  return (
    <div className="space-y-1">
      <label htmlFor={`edit-${toolCallId}`} className="text-xs text-zinc-600 dark:text-zinc-400">
        Edit the command, then press Enter to approve it (Shift+Enter for a new line, Esc to cancel):
      </label>
      <textarea id={`edit-${toolCallId}`} ref={editRef} value={value} onChange={(e) => onChange(e.target.value)} rows={2} className={`${field} w-full font-mono`} />
    </div>
  );
}

function NetworkBox({ checked, disabled, onChange }: { checked: boolean; disabled: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="flex items-center gap-1 text-xs text-zinc-700 dark:text-zinc-300" title="Run this command with network access, this time only (the rest of the sandbox stays). A saved rule does not carry it.">
      <input type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} data-approval-network />
      with network, this once
    </label>
  );
}

/**
 * The answer buttons: Approve once (or the edited command), "This session" and "Always" (disabled when the call
 * cannot be saved as a rule), Edit for a command; then the network box (after Approve) and the deny box (last).
 */
function ItemActions(p: { answer: (kind: ApprovalAnswer) => Promise<void>; busy: boolean; editing: boolean; onEdit?: () => void; patterns: string[] | undefined; saveTitle: string; network: ReactNode; deny: ReactNode }) {
  const { answer, busy, editing, onEdit, patterns, saveTitle } = p;
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <button type="button" className={btnPrimary} disabled={busy} onClick={() => void answer(editing ? 'edit' : 'once')}>
        {editing ? 'Approve edited' : 'Approve once'} <Kbd k={editing ? '↵' : 'y'} />
      </button>
      {p.network}
      <button type="button" className={btnPlain} disabled={busy || !patterns} title={`${saveTitle}${patterns ? ' (this session)' : ''}`} onClick={() => void answer('session')}>
        This session <Kbd k="s" />
      </button>
      <button type="button" className={btnPlain} disabled={busy || !patterns} title={`${saveTitle}${patterns ? ' (always, in this workspace)' : ''}`} onClick={() => void answer('always')}>
        Always <Kbd k="a" />
      </button>
      {onEdit && !editing && (
        <button type="button" className={btnPlain} disabled={busy} onClick={onEdit}>
          Edit &amp; approve <Kbd k="e" />
        </button>
      )}
      {p.deny}
    </div>
  );
}

/** The reason and Deny wrap together, so the field stays wide enough to read what is typed; beside the buttons when there is room, so the diff keeps it. */
function DenyBox({ reasonRef, reason, onReason, busy, onDeny }: { reasonRef: RefObject<HTMLInputElement | null>; reason: string; onReason: (v: string) => void; busy: boolean; onDeny: () => void }) {
  return (
    <div className="flex min-w-40 flex-1 items-center gap-1.5">
      <input
        ref={reasonRef}
        value={reason}
        onChange={(e) => onReason(e.target.value)}
        placeholder="Reason for denying"
        aria-label="Reason for denying (optional, sent to the model)"
        className={`${field} min-w-0 flex-1`}
      />
      <button type="button" className={btnDanger} disabled={busy} onClick={onDeny}>
        Deny <Kbd k="n" />
      </button>
    </div>
  );
}
