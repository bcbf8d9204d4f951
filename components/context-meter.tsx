'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import type { CompactionInfo, ContextInfo, ContextWindowSource, LedgerStep } from '@/lib/contract/protocol';
import { BreakdownLegend, SessionTotals, sourceText, StackedBar, TurnLedger } from './context-details';
import { useSessionLedger } from './context-api';
import { formatTokens } from './format';
import { useDismiss } from './use-dismiss';

/** What the chat tells the header about the open session's context, and its Compact action. */
export interface ContextView {
  sessionId: string;
  /** the latest data-context, or null before the first step */
  context: ContextInfo | null;
  /** a compaction after that data-context (by hand, before the next step): its afterTokens is the newest count */
  compactedSince: CompactionInfo | null;
  /** the newest turn's steps */
  turnLedger: LedgerStep[];
  /** a turn is running (compacting waits until it ends) */
  busy: boolean;
  compacting: boolean;
  compact: (focus?: string) => void;
}

/** What the meter shows, from the newest data-context (or a compaction after it) and the window the header knows. */
function meterFigures(view: ContextView | null, windowTokens: number | undefined, windowSource: ContextWindowSource | undefined) {
  const context = view?.context ?? null;
  const win = context?.windowTokens ?? windowTokens ?? 0;
  const since = view?.compactedSince ?? null;
  const used = since ? since.afterTokens : (context?.usedTokens ?? 0);
  // the breakdown was taken before the compaction: it no longer describes what is sent
  const breakdown = since ? undefined : context?.breakdown;
  const source = context?.windowSource ?? windowSource;
  const pct = win > 0 ? Math.min(100, (used / win) * 100) : 0;
  const text = context ? `${formatTokens(used)} / ${formatTokens(win)} tokens` : win ? `— / ${formatTokens(win)} tokens` : 'no context yet';
  // the count went down because Clamp pruned or compacted before this step (not by an estimate's error): say so
  const lowered = !since ? context?.lowered : undefined;
  const loweredText = lowered ? `${lowered.by === 'pruning' ? 'Pruning' : 'Compaction'} lowered it from ${lowered.fromTokens.toLocaleString('en-US')} tokens` : '';
  return { context, win, since, used, breakdown, source, pct, text, lowered, loweredText };
}

type MeterFigures = ReturnType<typeof meterFigures>;

function MeterButton({ f, open, onToggle }: { f: MeterFigures; open: boolean; onToggle: () => void }) {
  const { context, used, win, pct, text, lowered, loweredText, breakdown } = f;
  return (
    <button
      type="button"
      aria-haspopup="dialog"
      aria-expanded={open}
      onClick={onToggle}
      title={
        context
          ? `The next request holds ${used.toLocaleString('en-US')} of ${win.toLocaleString('en-US')} tokens (${pct.toFixed(0)}%)${loweredText ? `; ${loweredText.charAt(0).toLowerCase()}${loweredText.slice(1)}` : ''}. Click for the breakdown and the ledger.`
          : 'Context use appears after the first step'
      }
      className="flex items-center gap-2 rounded px-1 py-0.5 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-zinc-800"
    >
      <span className="text-[11px] uppercase tracking-wide text-zinc-500 max-sm:sr-only">Context</span>
      <span role="meter" aria-label="Context window used" aria-valuemin={0} aria-valuemax={win || 1} aria-valuenow={used} aria-valuetext={loweredText ? `${text}; ${loweredText}` : text} className="block">
        <StackedBar breakdown={breakdown} usedTokens={used} windowTokens={win} className="h-1.5 w-16 sm:w-28" />
      </span>
      <span className="font-mono text-[11px] tabular-nums text-zinc-600 max-md:hidden dark:text-zinc-400">{text}</span>
      {lowered && (
        <span data-testid="context-lowered" className="whitespace-nowrap text-[11px] font-medium text-amber-700 dark:text-amber-400">
          ↓ {lowered.by === 'pruning' ? 'pruned' : 'compacted'}
        </span>
      )}
    </button>
  );
}

/** The details' head: how full the window is, what the count is, why it went down, and where the window's size came from. */
function DetailsHead({ f }: { f: MeterFigures }) {
  const { context, used, win, pct, since, lowered, loweredText, source } = f;
  return (
    <div>
      <p className="font-medium">
        {context ? `${used.toLocaleString('en-US')} of ${win.toLocaleString('en-US')} tokens (${pct.toFixed(0)}%)` : win ? `Window of ${win.toLocaleString('en-US')} tokens; nothing sent yet` : 'No context yet'}
      </p>
      {context && (
        <p className="text-xs text-zinc-500">
          {since
            ? `Clamp's estimate after the compaction at step ${since.step} (${formatTokens(since.beforeTokens)} before it); the breakdown comes with the next step`
            : context.estimated
              ? `What the request at step ${context.step} holds: the provider's count of the one before, and Clamp's estimate of what was added`
              : `The request at step ${context.step} as the provider counted it, and its answer: what the next request starts from`}
        </p>
      )}
      {loweredText && (
        <p className="text-xs text-amber-800 dark:text-amber-300">
          {loweredText} before step {context?.step}:{' '}
          {lowered?.by === 'pruning' ? 'older tool results are sent as short stubs (marked on their cards; the full text stays).' : 'older turns are sent as a summary (the divider in the conversation).'}
        </p>
      )}
      <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" data-window-source={source?.kind}>
        Window size from {sourceText(source)}
      </p>
    </div>
  );
}

function TotalsBlock({ ledger, hasSession }: { ledger: ReturnType<typeof useSessionLedger>; hasSession: boolean }) {
  return (
    <div className="border-t border-zinc-100 pt-2 dark:border-zinc-800">
      <p className="mb-1 text-[11px] font-medium uppercase tracking-wide text-zinc-500">Session totals</p>
      {ledger.data ? (
        <SessionTotals totals={ledger.data.totals} limits={ledger.data.limits} />
      ) : ledger.error ? (
        <p className="text-xs text-rose-700 dark:text-rose-400">The totals could not be read: {ledger.error.message}</p>
      ) : (
        <p className="text-xs text-zinc-500">{hasSession ? 'Reading the ledger…' : 'Open a session to see its totals.'}</p>
      )}
    </div>
  );
}

function CompactRow({ view, hasContext }: { view: ContextView | null; hasContext: boolean }) {
  const compactBlocked = !view ? 'Open a session first.' : view.busy ? 'Compacting waits until the running turn ends.' : !hasContext ? 'Nothing to compact yet: no step has run.' : null;
  return (
    <div className="flex items-center gap-2 border-t border-zinc-100 pt-2 dark:border-zinc-800">
      <button
        type="button"
        disabled={!!compactBlocked || view?.compacting}
        onClick={() => view?.compact()}
        className="shrink-0 whitespace-nowrap rounded-md bg-violet-600 px-3 py-1 text-xs font-medium text-white hover:bg-violet-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50"
      >
        {view?.compacting ? 'Compacting…' : 'Compact now'}
      </button>
      <p className="text-[11px] text-zinc-500">{compactBlocked ?? 'Summarises older turns for the model; every message stays here. Or type /compact <focus> in the message box.'}</p>
    </div>
  );
}

/**
 * The header's context meter: a bar split by kind (system + tools, project docs, conversation, tool
 * results) over the window. Clicking it opens the details: where the window came from, the
 * breakdown, the newest turn's ledger on demand, the session's totals and a Compact button.
 */
export function ContextMeter({ view, windowTokens, windowSource }: { view: ContextView | null; windowTokens?: number; windowSource?: ContextWindowSource }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const f = meterFigures(view, windowTokens, windowSource);
  const ledger = useSessionLedger(view?.sessionId ?? null, open);
  useDismiss(open, useCallback(() => setOpen(false), []), box);
  // the totals change with every step: read them again when a turn ends
  const { refetch } = ledger;
  useEffect(() => {
    if (open && !view?.busy) void refetch();
  }, [open, view?.busy, refetch]);

  return (
    <div ref={box} className="relative">
      <MeterButton f={f} open={open} onToggle={() => setOpen(!open)} />
      {open && (
        <div role="dialog" aria-label="Context details" className="absolute right-0 top-full z-40 mt-1.5 w-[32rem] max-w-[calc(100vw-1rem)] space-y-3 rounded-md border border-zinc-200 bg-white p-3 text-sm text-zinc-800 shadow-lg dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100">
          <DetailsHead f={f} />
          {f.breakdown && (
            <div className="space-y-1.5">
              <StackedBar breakdown={f.breakdown} usedTokens={f.used} windowTokens={f.win} className="h-2.5 w-full" />
              <BreakdownLegend breakdown={f.breakdown} usedTokens={f.used} />
            </div>
          )}
          <div className="border-t border-zinc-100 pt-2 dark:border-zinc-800">
            <TurnLedger steps={view?.turnLedger ?? []} />
          </div>
          <TotalsBlock ledger={ledger} hasSession={!!view} />
          <CompactRow view={view} hasContext={!!f.context} />
        </div>
      )}
    </div>
  );
}
