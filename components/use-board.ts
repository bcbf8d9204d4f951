'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { BoardAnswer, ContinueAnswer } from '@/lib/contract/board';
import { sharedEventSource } from '@/lib/ui/shared-events';
import { withWorkspace } from '@/lib/ui/workspace';
import { fetchJson, queryKeys } from './api';

export const BOARD_KEY = ['board'] as const;

/** The board and the inbox as the live feed last gave them (read once at first; useBoardFeed keeps them live). */
export function useBoard() {
  return useQuery({ queryKey: BOARD_KEY, queryFn: () => fetchJson<BoardAnswer>('/api/board'), staleTime: Infinity });
}

/**
 * Keep the board live for the whole page: /api/board/events sends it at once and whenever it changes (the
 * browser reconnects the stream by itself; the page's tabs share one stream); the sessions list is read again when a session's state changes.
 * Mounted once, by the page.
 */
export function useBoardFeed(): void {
  const qc = useQueryClient();
  useEffect(() => {
    let states = '';
    const onMessage = (data: string) => {
      let board: BoardAnswer;
      try {
        board = JSON.parse(data) as BoardAnswer;
      } catch {
        return;
      }
      qc.setQueryData(BOARD_KEY, board);
      const now = board.sessions.map((s) => `${s.id}:${s.state}:${s.waiting}`).join(',');
      if (states && now !== states) void qc.invalidateQueries({ queryKey: queryKeys.sessions });
      states = now;
    };
    // one stream for every tab of the page (each message is the whole board, so a tab that joins is given the last)
    return sharedEventSource(withWorkspace('/api/board/events'), { onMessage }, { replay: true });
  }, [qc]);
}

/** Resume on the server a session's turn that stopped for approvals (once every one is answered); never throws. */
export async function continueOnServer(sessionId: string): Promise<ContinueAnswer | null> {
  return fetchJson<ContinueAnswer>(`/api/sessions/${encodeURIComponent(sessionId)}/continue`, { method: 'POST' }).catch(() => null);
}
