'use client';

import { useChatUi } from './chat-context';
import { useRewind } from './rewind-context';

/** The stored error of a call the server died while running begins with this. */
export const INTERRUPTED_PREFIX = 'Interrupted by a restart';

/** True for a call that was running when the server stopped (stored as output-error with that text). */
export function isInterrupted(part: { state: string; errorText?: string }): boolean {
  return part.state === 'output-error' && typeof part.errorText === 'string' && part.errorText.startsWith(INTERRUPTED_PREFIX);
}

/**
 * On a card whose call was interrupted by a restart: says so plainly, and offers the rewind to the
 * checkpoint taken before it (its turn's), and the command's whole log when it had one. The captured
 * output is the card's error text above.
 */
export function InterruptedNote({ toolCallId }: { toolCallId: string }) {
  const { openRewindBefore, interruptedNote, blocked, readOnly } = useRewind();
  const { openViewer } = useChatUi();
  const logPath = interruptedNote(toolCallId)?.logPath;
  return (
    <div className="flex flex-wrap items-center gap-2 rounded border border-amber-200 bg-amber-50 px-2 py-1.5 text-xs text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200" data-testid="interrupted-note">
      <p className="flex-1">Clamp stopped while this call ran, so it never finished; what it printed until then is above. Files it changed may be half-written.</p>
      {logPath && (
        <button type="button" onClick={() => openViewer({ kind: 'file', path: logPath }, `Log of the interrupted call ${toolCallId}`)} className="rounded border border-amber-300 bg-white px-2 py-0.5 font-medium hover:bg-amber-100 dark:border-amber-800 dark:bg-amber-950">
          Open log
        </button>
      )}
      {!readOnly && (
        <button type="button" disabled={!!blocked} title={blocked ?? undefined} onClick={() => openRewindBefore(toolCallId)} className="rounded border border-amber-300 bg-white px-2 py-0.5 font-medium hover:bg-amber-100 disabled:opacity-50 dark:border-amber-800 dark:bg-amber-950">
          Rewind to before this call…
        </button>
      )}
    </div>
  );
}
