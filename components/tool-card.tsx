'use client';

import { getToolName, type DynamicToolUIPart, type ToolUIPart } from 'ai';
import { memo, useEffect, useState } from 'react';
import type { TurnCut } from '@/lib/contract/protocol';
import type { CallMeta, MetaKinds, ToolResult } from '@/lib/contract/types';
import type { ClampUITools } from '@/lib/contract/tool-types';
import { useChatUi, useProgress } from './chat-context';
import type { PrunedMark } from './chat-derive';
import { DiffView } from './diff-view';
import { DiagnosticsBadge, DiagnosticsList } from './diagnostics-view';
import { HookBadge, HookNotes } from './hook-notes';
import type { DiagnosticsMeta } from '@/lib/contract/diagnostics';
import { formatCount, formatDuration, stripAnsi } from './format';
import { InterruptedNote, isInterrupted } from './interrupted-note';
import { PrunedNote } from './pruned-note';
import { inputLine } from './tool-summary';
import { TruncationNotes } from './truncation-note';
import { VirtualText } from './virtual-text';

/** A tool part of a chat message: a registered tool's, with its typed input and result, or a dynamic one. */
export type ToolPart = ToolUIPart<ClampUITools> | DynamicToolUIPart;

/** What any card can show of a result: the meta kinds every tool shares, and what the loop adds. */
export type CardResult = ToolResult<MetaKinds>;
type CardMeta = MetaKinds & CallMeta;

type Tone = 'muted' | 'busy' | 'wait' | 'ok' | 'error' | 'denied';
interface CardState {
  label: string;
  tone: Tone;
  running: boolean;
}

/** When the page first saw a call run and finish: the duration for tools that do not report one. */
const seen = new Map<string, { start?: number; end?: number }>();

function track(id: string, running: boolean, done: boolean): { start?: number; end?: number } {
  let t = seen.get(id);
  if (!t) seen.set(id, (t = {}));
  if (running && t.start === undefined) t.start = Date.now();
  if (done && t.start !== undefined && t.end === undefined) t.end = Date.now();
  return t;
}

function isResult(v: unknown): v is CardResult {
  return !!v && typeof v === 'object' && typeof (v as { output?: unknown }).output === 'string';
}

/** A finished call's result: every registered tool's output is its ToolResult; a dynamic part's is checked. */
export function resultOf(part: ToolPart): CardResult | undefined {
  if (part.state !== 'output-available') return undefined;
  if (part.type === 'dynamic-tool') return isResult(part.output) ? part.output : undefined;
  const r: CardResult = part.output;
  // a stored message from before a change of shape: show it as data, not as a result
  return isResult(r) ? r : undefined;
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
      return isInterrupted(part) ? { label: 'interrupted by a restart', tone: 'muted', running: false } : { label: 'error', tone: 'error', running: false };
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

/** What a running call has printed so far (any tool that reports progress), or idleText until it does. */
function LiveOutput({ toolCallId, logPath, label, idleText }: { toolCallId: string; logPath?: string; label: string; idleText: string }) {
  const p = useProgress(toolCallId);
  const { openViewer } = useChatUi();
  if (!p.text) return <p className="text-xs text-zinc-500">{idleText}</p>;
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

interface CardProps {
  part: ToolPart;
  /** the call in one line, from its tool's summary() (data-tool-summary); absent for old messages */
  summary?: string;
  turnCut?: TurnCut;
  idle: boolean;
  /** the result is pruned from what the model is sent */
  pruned?: PrunedMark;
  /** its diagnostics, when they came after its result (they replace the result's "pending") */
  late?: DiagnosticsMeta;
}

/** What a card shows of its call, from the part: its name and arguments, its state (a call cut off shows as interrupted), its meta, its timing. */
function cardView({ part, summary, idle, late }: CardProps) {
  const name = getToolName(part);
  const result = resultOf(part);
  const meta: CardMeta = result?.meta ?? {};
  const args = summary ?? inputLine(part.input);
  const live = cardState(part);
  // a call still "running" while the chat is idle was cut off (a stop, a reload mid-turn, a server restart)
  const state: CardState = idle && (part.state === 'input-available' || part.state === 'input-streaming') ? { label: 'interrupted', tone: 'muted', running: false } : live;
  const done = part.state === 'output-available' || part.state === 'output-error' || part.state === 'output-denied';
  const times = track(part.toolCallId, state.running, done);
  const durationMs = meta.durationMs ?? (times.start !== undefined && times.end !== undefined ? times.end - times.start : undefined);
  return { name, result, meta, diagnostics: late ?? meta.diagnostics, args, state, done, times, durationMs, diff: meta.diff || undefined, title: `${name} ${args}`.trim() };
}

type CardView = ReturnType<typeof cardView>;

/**
 * One tool call, for any tool: its summary line with its state and duration, then its output and
 * whatever its meta kinds hold (diff, exit code, task, log), its cuts, error and hint.
 */
export const ToolCard = memo(function ToolCard(props: CardProps) {
  const { part, turnCut, pruned } = props;
  const view = cardView(props);
  const { result, meta, state, diff, title } = view;
  const isError = state.tone === 'error';
  const { cardOpen } = useChatUi();
  // the person's choice outlives the card's row being unmounted off screen
  const [open, setOpenState] = useState<boolean | null>(() => cardOpen.get(part.toolCallId) ?? null);
  const setOpen = (o: boolean) => {
    cardOpen.set(part.toolCallId, o);
    setOpenState(o);
  };
  // open by default what a person wants to see: a failure, a running call, a change, a command's ending, a task it started
  const expanded = open ?? (isError || state.running || part.state === 'approval-requested' || diff !== undefined || meta.exitCode !== undefined || meta.taskId !== undefined);
  const bodyId = `tool-body-${part.toolCallId}`;

  return (
    <div
      className="rounded-md border border-zinc-200 bg-white text-sm shadow-xs dark:border-zinc-800 dark:bg-zinc-900"
      data-tool-call-id={part.toolCallId}
      data-state={part.state}
      data-running={state.running}
      data-pruned={pruned ? 'true' : undefined}
    >
      <CardHeader view={view} pruned={pruned} expanded={expanded} bodyId={bodyId} onToggle={() => setOpen(!expanded)} />
      <div className="space-y-1.5 px-2.5 pb-2 empty:hidden">
        {result && <TruncationNotes truncation={result.truncation} turnCut={turnCut} toolName={view.name} title={`Full output of ${title}`} />}
        {part.state === 'output-error' && <pre className="whitespace-pre-wrap font-mono text-xs text-rose-700 dark:text-rose-400">{part.errorText}</pre>}
        {isInterrupted(part) && <InterruptedNote toolCallId={part.toolCallId} />}
        {isError && result?.hint && <p className="text-xs text-rose-700 dark:text-rose-400">The model&apos;s next step: {result.hint}</p>}
      </div>
      {expanded && <CardDetails part={part} view={view} pruned={pruned} bodyId={bodyId} />}
    </div>
  );
}, sameCard);

/** The card's one line, a button that opens and closes it: the call, "edited", "pruned", its state, duration and exit code, its diagnostics. */
function CardHeader({ view, pruned, expanded, bodyId, onToggle }: { view: CardView; pruned?: PrunedMark; expanded: boolean; bodyId: string; onToggle: () => void }) {
  const { name, args, title, state, times, durationMs, meta, done, diagnostics } = view;
  // the summary names what ran (an edited command included); the card says it was edited
  const edited = meta.editedCommand;
  return (
    <button
      type="button"
      aria-expanded={expanded}
      aria-controls={bodyId}
      onClick={onToggle}
      className="flex w-full items-center gap-2 rounded-md px-2.5 py-1.5 text-left hover:bg-zinc-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-zinc-800/60"
    >
      <span aria-hidden="true" className="w-3 text-[10px] text-zinc-400">{expanded ? '▾' : '▸'}</span>
      <span aria-hidden="true" className={`h-2 w-2 shrink-0 rounded-full ${toneDot[state.tone]}`} />
      <span className="min-w-0 flex-1 truncate font-mono text-[12.5px]" title={title}>
        <span className="font-semibold text-zinc-900 dark:text-zinc-100">{name}</span>
        {args && <span className="ml-2 text-zinc-600 dark:text-zinc-400">{args}</span>}
      </span>
      {edited !== undefined && (
        <span className="shrink-0 rounded bg-zinc-100 px-1 text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" title={`The person edited the command before approving it; the model proposed: ${meta.proposedCommand ?? ''}`}>
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
      {meta.exitCode === null && done && <span className="shrink-0 font-mono text-xs text-rose-600">no exit code</span>}
      <HookBadge notes={meta.hooks} />
      {diagnostics && <DiagnosticsBadge d={diagnostics} />}
    </button>
  );
}

/** The open card: the pruned note, its body, diagnostics, the full log once done, the task it started. */
function CardDetails({ part, view, pruned, bodyId }: { part: ToolPart; view: CardView; pruned?: PrunedMark; bodyId: string }) {
  const { openViewer } = useChatUi();
  const { title, result, diff, meta, diagnostics, done, args } = view;
  const logPath = meta.logPath;
  return (
    <div id={bodyId} className="space-y-2 border-t border-zinc-100 px-2.5 py-2 dark:border-zinc-800">
      {pruned && <PrunedNote mark={pruned} title={`Full output of ${title}`} />}
      <CardBody part={part} title={title} result={result} diff={diff} logPath={logPath} />
      {diagnostics && <DiagnosticsList d={diagnostics} />}
      <HookNotes notes={meta.hooks} />
      {logPath && done && (
        <button type="button" onClick={() => openViewer({ kind: 'file', path: logPath }, `Log of ${title}`)} className="text-xs text-sky-700 underline hover:text-sky-900 dark:text-sky-400">
          Open full log
        </button>
      )}
      {meta.taskId !== undefined && <TaskLink taskId={meta.taskId} label={`Task ${meta.taskId}: ${args}`} />}
    </div>
  );
}

function TaskLink({ taskId, label }: { taskId: string; label: string }) {
  const { openViewer } = useChatUi();
  return (
    <button type="button" onClick={() => openViewer({ kind: 'task', taskId }, label)} className="text-xs text-sky-700 underline hover:text-sky-900 dark:text-sky-400">
      Open task {taskId} log
    </button>
  );
}

/** The SDK copies every part of the streaming message on each chunk; compare the fields instead of the object. */
function sameCard(a: CardProps, b: CardProps): boolean {
  if (a.turnCut !== b.turnCut || a.idle !== b.idle || a.summary !== b.summary || a.pruned !== b.pruned || a.late !== b.late) return false;
  const x: object = a.part;
  const y: object = b.part;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) if (Reflect.get(x, k) !== Reflect.get(y, k)) return false;
  return true;
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0];
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

function CardBody({ part, title, result, diff, logPath }: { part: ToolPart; title: string; result?: CardResult; diff?: string; logPath?: string }) {
  switch (part.state) {
    case 'input-streaming':
      return <p className="text-xs text-zinc-500">The model is still writing this call&apos;s arguments…</p>;
    case 'approval-requested':
      return <p className="text-xs text-amber-700 dark:text-amber-400">Waiting for your answer in the approval bar below.</p>;
    case 'approval-responded':
      if (!part.approval.approved) return <p className="text-xs text-zinc-500">Denied{part.approval.reason ? `: ${part.approval.reason}` : ''}; the model will be told.</p>;
      return <LiveOutput toolCallId={part.toolCallId} logPath={logPath} label={title} idleText="Approved; running…" />;
    case 'input-available':
      return <LiveOutput toolCallId={part.toolCallId} logPath={logPath} label={title} idleText="Running…" />;
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
          {result.hint && result.status !== 'error' && (
            // a hint is written for the model (read_file, offset/limit …): shown as what it was told, folded
            <details className="text-xs text-zinc-500" data-testid="model-hint">
              <summary className="cursor-pointer select-none">What the model was told to do next</summary>
              <p className="mt-0.5">{result.hint}</p>
            </details>
          )}
        </>
      );
    default: {
      const never: never = part;
      return <p className="text-xs">{String((never as ToolPart).state)}</p>;
    }
  }
}
