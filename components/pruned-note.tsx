'use client';

import { useId, useState } from 'react';
import { useChatUi } from './chat-context';
import type { PrunedMark } from './chat-derive';
import { formatBytes } from './format';

/**
 * On a card whose result is no longer sent to the model: since which step, what the model sees
 * instead (the stub, on demand) and that the full output is still here.
 */
export function PrunedNote({ mark, title }: { mark: PrunedMark; title: string }) {
  const { openViewer, cardOpen } = useChatUi();
  const key = `pruned:${mark.toolCallId}`;
  const [open, setOpenState] = useState(() => cardOpen.get(key) ?? false);
  const setOpen = (o: boolean) => {
    cardOpen.set(key, o);
    setOpenState(o);
  };
  const stubId = useId();
  return (
    <div role="note" data-pruned-step={mark.step} className="rounded border border-violet-200 bg-violet-50 px-2 py-1 text-xs text-violet-900 dark:border-violet-900/60 dark:bg-violet-950/40 dark:text-violet-200">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span aria-hidden="true">⤓</span>
        <span className="font-medium">
          Pruned from context at step {mark.step}: the model sees a stub instead of these {formatBytes(mark.bytes)}; full output kept
        </span>
        <span className="ml-auto flex gap-2">
          <button
            type="button"
            aria-expanded={open}
            aria-controls={stubId}
            onClick={() => setOpen(!open)}
            className="rounded border border-violet-300 bg-white px-2 py-0.5 font-medium hover:bg-violet-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-violet-800 dark:bg-violet-950 dark:hover:bg-violet-900"
          >
            {open ? 'Hide the stub' : 'Show the stub'}
          </button>
          {mark.spillPath && (
            <button
              type="button"
              onClick={() => openViewer({ kind: 'file', path: mark.spillPath as string }, title)}
              className="rounded border border-violet-300 bg-white px-2 py-0.5 font-medium hover:bg-violet-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-violet-800 dark:bg-violet-950 dark:hover:bg-violet-900"
            >
              Open full output
            </button>
          )}
        </span>
      </div>
      {open && (
        <pre id={stubId} aria-label="What the model is sent instead" className="mt-1 whitespace-pre-wrap break-all rounded bg-white px-2 py-1 font-mono text-[11.5px] text-zinc-800 dark:bg-zinc-950 dark:text-zinc-200">
          {mark.stub}
        </pre>
      )}
    </div>
  );
}
