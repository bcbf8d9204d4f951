'use client';

import { useQuery } from '@tanstack/react-query';
import type { CompactBody, SessionDetail, SessionLedger } from '@/lib/contract/protocol';
import { fetchJson } from './api';

const sessionUrl = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export const ledgerKey = (sessionId: string) => ['ledger', sessionId] as const;

/** The session's ledger (every step and the totals), while `enabled` (the meter's details are open). */
export function useSessionLedger(sessionId: string | null, enabled: boolean) {
  return useQuery({
    queryKey: ledgerKey(sessionId ?? ''),
    queryFn: () => fetchJson<SessionLedger>(`${sessionUrl(sessionId!)}/ledger`),
    enabled: enabled && !!sessionId,
    retry: 1,
  });
}

/**
 * Compact the session's context by hand (POST …/compact), then read its conversation again, which
 * now holds the compaction; throws ApiError with the server's words when it refuses or fails.
 */
export async function compactSession(sessionId: string, focus?: string): Promise<SessionDetail> {
  const body: CompactBody = focus ? { focus } : {};
  await fetchJson<unknown>(`${sessionUrl(sessionId)}/compact`, { method: 'POST', body: JSON.stringify(body) });
  return fetchJson<SessionDetail>(sessionUrl(sessionId));
}

/** `/compact` or `/compact <focus>` typed in the composer: the focus ('' for none), else null (an ordinary message). */
export function compactCommand(text: string): string | null {
  const m = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? (m[1] ?? '').trim() : null;
}
