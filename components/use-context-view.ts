'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ClampMessage } from '@/lib/contract/protocol';
import { compactedSinceOf, latestData, prunedOf, turnLedgerOf, type PrunedMark } from './chat-derive';
import { compactSession, ledgerKey } from './context-api';
import type { ContextView } from './context-meter';

/**
 * The chat's side of the session's context: the pruned results by toolCallId (the same Map while
 * the set does not change, so cards re-render only when theirs does), the view the header's meter
 * shows, and Compact by hand, which reloads the conversation so the divider appears. Errors come
 * back in words of what the person did.
 */
export function useContextView({
  sessionId,
  messages,
  busy,
  setMessages,
  onContext,
  onCompacted,
}: {
  sessionId: string;
  messages: ClampMessage[];
  busy: boolean;
  setMessages: (m: ClampMessage[]) => void;
  onContext: (v: ContextView | null) => void;
  onCompacted: () => void;
}) {
  const qc = useQueryClient();
  const [compacting, setCompacting] = useState(false);
  const [compactError, setCompactError] = useState<string | null>(null);

  const allPruned = useMemo(() => prunedOf(messages), [messages]);
  const prunedKey = [...allPruned.keys()].join('\n');
  const pruned: ReadonlyMap<string, PrunedMark> = useMemo(() => allPruned, [prunedKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const context = useMemo(() => latestData(messages, 'context'), [messages]);
  const turnLedger = useMemo(() => turnLedgerOf(messages), [messages]);
  const compactedSince = useMemo(() => compactedSinceOf(messages), [messages]);

  const compact = useCallback(
    (focus?: string) => {
      if (compacting) return;
      if (busy) {
        setCompactError('Compact waits until the running turn ends: stop it or wait, then compact again.');
        return;
      }
      setCompacting(true);
      setCompactError(null);
      compactSession(sessionId, focus || undefined)
        .then((detail) => {
          setMessages(detail.messages);
          void qc.invalidateQueries({ queryKey: ledgerKey(sessionId) });
          onCompacted();
        })
        .catch((err: unknown) => {
          const why = (err instanceof Error ? err.message : String(err)).replace(/[.\s]+$/, '');
          setCompactError(`Compacting the context failed: ${why}. Nothing was changed; the conversation is as it was.`);
        })
        .finally(() => setCompacting(false));
    },
    [busy, compacting, sessionId, setMessages, qc, onCompacted],
  );

  const ledgerKeyStr = turnLedger.map((s) => s.step).join(',');
  const view = useMemo<ContextView>(
    () => ({ sessionId, context, compactedSince, turnLedger, busy, compacting, compact }),
    // the header re-renders when the numbers it shows change, not on every streamed chunk
    [sessionId, context?.usedTokens, context?.windowTokens, context?.step, context?.estimated, context?.lowered?.fromTokens, ledgerKeyStr, compactedSince?.id, busy, compacting, compact], // eslint-disable-line react-hooks/exhaustive-deps
  );
  useEffect(() => onContext(view), [view, onContext]);

  return { pruned, compact, compacting, compactError, clearCompactError: () => setCompactError(null) };
}
