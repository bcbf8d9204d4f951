'use client';

import { getToolName, type DynamicToolUIPart, type ToolUIPart } from 'ai';
import { memo, useEffect, useState } from 'react';
import type { ToolResult } from '@/lib/contract/protocol';
import { useChatUi, useProgress } from './chat-context';
import type { PrunedMark } from './chat-derive';
import { DiffView } from './diff-view';
import { formatCount, formatDuration, stripAnsi } from './format';
import { PrunedNote } from './pruned-note';
import { toolArgs } from './tool-summary';
import { TruncationNotes, type TurnBudgetCut } from './truncation-note';
import { VirtualText } from './virtual-text';

export type ToolPart = ToolUIPart | DynamicToolUIPart;

type Tone = 'muted' | 'busy' | 'wait' | 'ok' | 'error' | 'denied';
interface CardState {
  label: string;
  tone: Tone;
  running: boolean;
}

const EDIT_TOOLS = new Set(['edit_file', 'write_file', 'apply_patch']);

/** When the page first saw a call run and finish: the duration for tools that do not report one. */
const seen = new Map<string, { start?: number; end?: number }>();

function track(id: string, running: boolean, done: boolean): { start?: number; end?: number } {
  let t = seen.get(id);
  if (!t) seen.set(id, (t = {}));
  if (running && t.start === undefined) t.start = Date.now();
  if (done && t.start !== undefined && t.end === undefined) t.end = Date.now();
  return t;
}

function resultOf(part: ToolPart): ToolResult | undefined {
  if (part.state !== 'output-available') return undefined;
  const o = part.output as Partial<ToolResult> | undefined;
  return o && typeof o === 'object' && typeof o.output === 'string' ? (o as ToolResult) : undefined;
}

/** The card's state line; switches exhaustively on the part's state. */
export function cardState(part: ToolPart): CardState {
  switch (part.state) {
    case 'input-streaming':
      return { label: 'preparing…', tone: 'muted', running: false };
    case 'approval-requested':
      return { label: 'waiting for approval', tone: 'wait', running: false };
    case 'approval-responded':
      // an approved call runs in this state: the SDK moves it straight to output-available when done
      return part.approval.approved ? { label: 'running', tone: 'busy', running: true } : { label: 'denied', tone: 'denied', running: false };
    case 'input-available':
      return { label: 'running', tone: 'busy', running: true };
    case 'output-available': {
      const r = resultOf(part);
      switch (r?.status) {
        case undefined:
        case 'ok':
          return { label: 'done', tone: 'ok', running: false };
        case 'error':
          return { label: 'error', tone: 'error', running: false };
        case 'denied':
          return { label: 'denied', tone: 'denied', running: false };
        case 'approval-required':
          return { label: 'not run: needs approval', tone: 'denied', running: false };
      }
      break;
    }
    case 'output-error':
      return { label: 'error', tone: 'error', running: false };
    case 'output-denied':
      return { label: 'denied', tone: 'denied', running: false };
    default: {
      const never: never = part;
      return { label: String((never as ToolPart).state), tone: 'muted', running: false };
    }
  }
  return { label: 'done', tone: 'ok', running: false };
}

const toneClass: Record<Tone, string> = {
  muted: 'text-zinc-500',
  busy: 'text-sky-700 dark:text-sky-400',
  wait: 'text-amber-700 dark:text-amber-400',
  ok: 'text-emerald-700 dark:text-emerald-400',
  error: 'text-rose-700 dark:text-rose-400',
  denied: 'text-zinc-500',
};
const toneDot: Record<Tone, string> = {
  muted: 'bg-zinc-300 dark:bg-zinc-600',
  busy: 'bg-sky-500 animate-pulse',
  wait: 'bg-amber-500 animate-pulse',
  ok: 'bg-emerald-500',
  error: 'bg-rose-500',
  denied: 'bg-zinc-400',
};

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 200);
    return () => clearInterval(t);
  }, []);
  return <span className="tabular-nums">{formatDuration(Math.max(0, now - since))}</span>;
}

function LiveOutput({ toolCallId, logPath, label }: { toolCallId: string; logPath?: string; label: string }) {
  const p = useProgress(toolCallId);
  const { openViewer } = useChatUi();
  if (!p.text) return <p className="text-xs text-zinc-500">Running… no output yet.</p>;
  return (
    <div className="space-y-1">
      {p.droppedChars > 0 && (
        <p className="text-xs text-zinc-500">
          Showing the last part; {formatCount(p.droppedChars)} earlier characters are in the log
          {logPath && (
            <button type="button" className="ml-2 underline" onClick={() => openViewer({ kind: 'file', path: logPath }, label)}>
              Open log
            </button>
          )}
        </p>
      )}
      <VirtualText text={stripAnsi(p.text)} follow label={`Live output of ${label}`} />
    </div>
  );
}

/** One tool call: a one-line summary with its state and duration, then its output, diff, cuts, error and hint. */
export const ToolCard = memo(function ToolCard({ part, turnCut, idle, pruned }: CardProps) {
  const name = getToolName(part);
  const edited = resultOf(part)?.meta?.editedCommand;
  // what ran is what the line names; the card says it was edited
  const args = toolArgs(name, typeof edited === 'string' ? { ...(part.input as object), command: edited } : part.input);
  const live = cardState(part);
  // a call still "running" while the chat is idle was cut off (a stop, a reload mid-turn, a server restart)
  const state: CardState = idle && (part.state === 'input-available' || part.state === 'input-streaming') ? { label: 'interrupted', tone: 'muted', running: false } : live;
  const result = resultOf(part);
  const meta = (result?.meta ?? {}) as Record<string, unknown>;
  const done = part.state === 'output-available' || part.state === 'output-error' || part.state === 'output-denied';
  const times = track(part.toolCallId, state.running, done);
  const durationMs = typeof meta.durationMs === 'number' ? meta.durationMs : times.start !== undefined && times.end !== undefined ? times.end - times.start : undefined;
  const diff = typeof meta.diff === 'string' && meta.diff ? meta.diff : undefined;
  const logPath = typeof meta.logPath === 'string' ? meta.logPath : undefined;
  const isError = state.tone === 'error';
  const { openViewer, cardOpen } = useChatUi();
  // the person's choice outlives the card's row being unmounted off screen
  const [open, setOpenState] = useState<boolean | null>(() => cardOpen.get(part.toolCallId) ?? null);
  const setOpen = (o: boolean) => {
    cardOpen.set(part.toolCallId, o);
    setOpenState(o);
  };
  const expanded = open ?? (isError || name === 'run_command' || EDIT_TOOLS.has(name) || state.running);
  const title = `${name} ${args}`.trim();
  const bodyId = `tool-body-${part.toolCallId}`;

  return (
    <div
      className="rounded-md border border-zinc-200 bg-white text-sm shadow-xs dark:border-zinc-800 dark:bg-zinc-900"
      data-tool-call-id={part.toolCallId}
      data-state={part.state}
      data-running={state.running}
      data-pruned={pruned ? 'true' : undefined}
    >
      <button
        type="button"
        aria-expanded={expanded}
        aria-controls={bodyId}
        onClick={() => setOpen(!expanded)}
        className="flex w-full items-center gap-2 rounded-md px-2.5 py-1.5 text-left hover:bg-zinc-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-zinc-800/60"
      >
        <span aria-hidden="true" className="w-3 text-[10px] text-zinc-400">{expanded ? '▾' : '▸'}</span>
        <span aria-hidden="true" className={`h-2 w-2 shrink-0 rounded-full ${toneDot[state.tone]}`} />
        <span className="min-w-0 flex-1 truncate font-mono text-[12.5px]" title={title}>
          <span className="font-semibold text-zinc-900 dark:text-zinc-100">{name}</span>
          {args && <span className="ml-2 text-zinc-600 dark:text-zinc-400">{args}</span>}
        </span>
        {typeof edited === 'string' && (
          <span className="shrink-0 rounded bg-zinc-100 px-1 text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" title={`The person edited the command before approving it; the model proposed: ${String(meta.proposedCommand ?? '')}`}>
            edited
          </span>
        )}
        {pruned && (
          <span className="shrink-0 rounded bg-violet-100 px-1 text-[11px] text-violet-800 dark:bg-violet-950 dark:text-violet-300" title={`Pruned from context at step ${pruned.step}: the model sees a stub; open the card for it`}>
            pruned at step {pruned.step}
          </span>
        )}
        <span className={`shrink-0 text-xs ${toneClass[state.tone]}`}>
          {state.label}
          {state.running && times.start !== undefined && (
            <>
              {' '}
              <Elapsed since={times.start} />
            </>
          )}
        </span>
        {durationMs !== undefined && !state.running && <span className="shrink-0 text-xs tabular-nums text-zinc-400">{formatDuration(durationMs)}</span>}
        {typeof meta.exitCode === 'number' && <span className={`shrink-0 font-mono text-xs ${meta.exitCode === 0 ? 'text-zinc-400' : 'text-rose-600'}`}>exit {meta.exitCode}</span>}
      </button>
      <div className="space-y-1.5 px-2.5 pb-2 empty:hidden">
        {result && <TruncationNotes truncation={result.truncation} turnCut={turnCut} toolName={name} title={`Full output of ${title}`} />}
        {part.state === 'output-error' && <pre className="whitespace-pre-wrap font-mono text-xs text-rose-700 dark:text-rose-400">{part.errorText}</pre>}
        {isError && result?.hint && <p className="text-xs text-rose-700 dark:text-rose-400">Next step: {result.hint}</p>}
      </div>
      {expanded && (
        <div id={bodyId} className="space-y-2 border-t border-zinc-100 px-2.5 py-2 dark:border-zinc-800">
          {pruned && <PrunedNote mark={pruned} title={`Full output of ${title}`} />}
          <CardBody part={part} name={name} title={title} result={result} diff={diff} logPath={logPath} />
          {logPath && done && (
            <button type="button" onClick={() => openViewer({ kind: 'file', path: logPath }, `Log of ${title}`)} className="text-xs text-sky-700 underline hover:text-sky-900 dark:text-sky-400">
              Open full log
            </button>
          )}
          {typeof meta.taskId === 'string' && (
            <button type="button" onClick={() => openViewer({ kind: 'task', taskId: meta.taskId as string }, `Task ${meta.taskId as string}: ${args}`)} className="text-xs text-sky-700 underline hover:text-sky-900 dark:text-sky-400">
              Open task {meta.taskId} log
            </button>
          )}
        </div>
      )}
    </div>
  );
}, sameCard);

interface CardProps {
  part: ToolPart;
  turnCut?: TurnBudgetCut;
  idle: boolean;
  /** the result is pruned from what the model is sent */
  pruned?: PrunedMark;
}

/** The SDK copies every part of the streaming message on each chunk; compare the fields instead of the object. */
function sameCard(a: CardProps, b: CardProps): boolean {
  if (a.turnCut !== b.turnCut || a.idle !== b.idle || a.pruned !== b.pruned) return false;
  const x = a.part as unknown as Record<string, unknown>;
  const y = b.part as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) if (x[k] !== y[k]) return false;
  return true;
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0];
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

function CardBody({ part, name, title, result, diff, logPath }: { part: ToolPart; name: string; title: string; result?: ToolResult; diff?: string; logPath?: string }) {
  switch (part.state) {
    case 'input-streaming':
      return <p className="text-xs text-zinc-500">The model is still writing this call&apos;s arguments…</p>;
    case 'approval-requested':
      return <p className="text-xs text-amber-700 dark:text-amber-400">Waiting for your answer in the approval bar below.</p>;
    case 'approval-responded':
      if (!part.approval.approved) return <p className="text-xs text-zinc-500">Denied{part.approval.reason ? `: ${part.approval.reason}` : ''}; the model will be told.</p>;
      return name === 'run_command' ? <LiveOutput toolCallId={part.toolCallId} logPath={logPath} label={title} /> : <p className="text-xs text-zinc-500">Approved; running…</p>;
    case 'input-available':
      return name === 'run_command' ? <LiveOutput toolCallId={part.toolCallId} logPath={logPath} label={title} /> : <p className="text-xs text-zinc-500">Running…</p>;
    case 'output-error':
      return <p className="text-xs text-zinc-500">The call failed before it produced a result; the model saw the error above.</p>;
    case 'output-denied':
      return <p className="text-xs text-zinc-500">Denied{part.approval.reason ? `: ${part.approval.reason}` : ''}. The model was told not to retry it.</p>;
    case 'output-available':
      if (!result) return <VirtualText text={JSON.stringify(part.output, null, 2)} label={`Output of ${title}`} />;
      return (
        <>
          {diff && <DiffView diff={diff} label={`Diff of ${title}`} />}
          {result.output && diff ? (
            <details className="text-xs">
              <summary className="cursor-pointer select-none text-zinc-500">What the model saw ({firstLine(result.output)})</summary>
              <div className="mt-1">
                <VirtualText text={stripAnsi(result.output)} label={`Output of ${title}`} />
              </div>
            </details>
          ) : (
            result.output && <VirtualText text={stripAnsi(result.output)} label={`Output of ${title}`} />
          )}
          {result.hint && result.status !== 'error' && <p className="text-xs text-zinc-600 dark:text-zinc-400">Hint: {result.hint}</p>}
        </>
      );
    default: {
      const never: never = part;
      return <p className="text-xs">{String((never as ToolPart).state)}</p>;
    }
  }
}
