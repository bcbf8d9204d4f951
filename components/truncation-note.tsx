'use client';

import type { Truncation, TurnCut } from '@/lib/contract/protocol';
import { useChatUi } from './chat-context';
import { cutBy, formatBytes, truncationText } from './format';

function Note({ text, by, spillPath, title }: { text: string; by: string; spillPath?: string; title: string }) {
  const { openViewer } = useChatUi();
  return (
    <div
      role="note"
      className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200"
    >
      <span aria-hidden="true">✂</span>
      <span className="font-medium">{text}</span>
      <span className="text-amber-700 dark:text-amber-400">· cut by {by}</span>
      {spillPath ? (
        <button
          type="button"
          onClick={() => openViewer({ kind: 'file', path: spillPath }, title)}
          className="ml-auto rounded border border-amber-300 bg-white px-2 py-0.5 font-medium text-amber-900 hover:bg-amber-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100 dark:hover:bg-amber-900"
        >
          Open full output
        </button>
      ) : (
        <span className="ml-auto text-amber-700 dark:text-amber-400">the model was told how to get the rest</span>
      )}
    </div>
  );
}

/**
 * Every cut made to a result, each as its own note: the tool's cap or the exit clamp (truncation)
 * and the per-step budget (turnCut). Each opens the full text when it was spilled to a file.
 */
export function TruncationNotes({ truncation, turnCut, toolName, title }: { truncation: Truncation | null | undefined; turnCut?: TurnCut; toolName: string; title: string }) {
  if (!truncation && !turnCut) return null;
  const fullPath = truncation?.spillPath ?? turnCut?.truncation.spillPath;
  return (
    <div className="space-y-1">
      {truncation && <Note text={truncationText(truncation)} by={cutBy(truncation, toolName)} spillPath={truncation.spillPath} title={title} />}
      {turnCut && (
        <Note
          text={`${truncationText(turnCut.truncation)} (step budget ${formatBytes(turnCut.budgetBytes)})`}
          by={cutBy(turnCut.truncation, toolName)}
          spillPath={turnCut.truncation.spillPath ?? fullPath}
          title={title}
        />
      )}
    </div>
  );
}
