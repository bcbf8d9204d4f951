'use client';

import { useId, useState } from 'react';
import type { CompactionInfo } from '@/lib/contract/protocol';
import { useChatUi } from './chat-context';
import { HookNotes } from './hook-notes';
import { formatDuration, formatTokens } from './format';

const TRIGGER: Record<CompactionInfo['trigger'], string> = {
  auto: 'automatic',
  manual: 'by hand',
  overflow: 'after the provider said the request was too long',
};

/** The divider's one line: "Context compacted at step 57: 148k → 12k tokens". */
export function compactionHeadline(c: CompactionInfo): string {
  const tokens = `${formatTokens(c.beforeTokens)} → ${formatTokens(c.afterTokens)} tokens`;
  return c.outcome === 'summary' ? `Context compacted at step ${c.step}: ${tokens}` : `Context reduced at step ${c.step} without a summary: ${tokens}`;
}

/**
 * Where older messages were summarised for the model. The messages above stay in the list (and in
 * the store); from here on the model is sent the summary, then the steps from firstKeptStep on
 * verbatim. The summary is one click away; a fallback (no usable summary) is said plainly.
 */
export function CompactionDivider({ compaction: c }: { compaction: CompactionInfo }) {
  const { cardOpen } = useChatUi();
  // kept by the chat, so the summary stays open when the row scrolls away and back
  const key = `compaction:${c.id}`;
  const [open, setOpenState] = useState(() => cardOpen.get(key) ?? false);
  const setOpen = (o: boolean) => {
    cardOpen.set(key, o);
    setOpenState(o);
  };
  const bodyId = useId();
  const fallback = c.outcome === 'fallback-pruning';
  const tone = fallback ? 'border-amber-300 text-amber-800 dark:border-amber-800 dark:text-amber-300' : 'border-violet-300 text-violet-800 dark:border-violet-800 dark:text-violet-300';
  return (
    <div role="separator" aria-label={compactionHeadline(c)} data-compaction-id={c.id} data-outcome={c.outcome} className="py-1">
      <div className="flex items-center gap-3">
        <span aria-hidden="true" className={`h-px min-w-6 flex-1 border-t border-dashed ${tone}`} />
        <span className={`flex min-w-0 max-w-[80%] flex-wrap items-center justify-center gap-x-2 gap-y-0.5 text-xs ${tone}`}>
          <span className="font-medium">{compactionHeadline(c)}</span>
          <span className="rounded bg-zinc-100 px-1.5 text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">{TRIGGER[c.trigger]}</span>
          <span className="text-zinc-500">{formatDuration(c.durationMs)}</span>
          <button
            type="button"
            aria-expanded={open}
            aria-controls={bodyId}
            onClick={() => setOpen(!open)}
            className="rounded border border-current px-1.5 py-px text-[11px] font-medium hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-zinc-800"
          >
            {open ? 'Hide' : fallback ? 'What happened' : 'Show summary'}
          </button>
        </span>
        <span aria-hidden="true" className={`h-px min-w-6 flex-1 border-t border-dashed ${tone}`} />
      </div>
      <p className="mt-1 text-center text-[11px] text-zinc-500">
        {fallback
          ? `The summary could not be written, so older tool results were pruned harder instead. Your messages are all kept; from step ${c.firstKeptStep} on the model sees them verbatim.`
          : `The messages above are kept here and in the store; the model is sent this summary instead, then step ${c.firstKeptStep} on verbatim.`}
      </p>
      <div className="mx-auto max-w-[80%]">
        <HookNotes notes={c.hooks} />
      </div>
      {open && (
        <div id={bodyId} className="mt-2 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 dark:border-zinc-800 dark:bg-zinc-900">
          <p className="mb-1 text-[11px] font-medium uppercase tracking-wide text-zinc-500">{fallback ? 'What the model is told' : 'The summary the model is sent'}</p>
          <pre className="max-h-96 overflow-auto whitespace-pre-wrap font-sans text-sm text-zinc-800 dark:text-zinc-200">{c.summary}</pre>
        </div>
      )}
    </div>
  );
}
