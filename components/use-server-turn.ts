'use client';

import { useEffect, useRef } from 'react';
import type { ClampMessage, SessionDetail } from '@/lib/contract/protocol';
import { fetchJson } from './api';
import { useBoard } from './use-board';

/**
 * A turn of this session that runs on the server without this chat's stream (resumed from the inbox, started in
 * another tab): while the board says it works, the chat shows the conversation as stored after each step, and
 * once more when it ends.
 */
export function useServerTurn(sessionId: string, busy: boolean, setMessages: (m: ClampMessage[]) => void): void {
  const board = useBoard();
  const s = board.data?.sessions.find((x) => x.id === sessionId);
  const working = s?.state === 'working';
  const followed = useRef(false);
  const set = useRef(setMessages);
  useEffect(() => {
    set.current = setMessages;
  });
  const updatedAt = s?.updatedAt;
  useEffect(() => {
    if (busy) {
      followed.current = false;
      return;
    }
    if (!working && !followed.current) return;
    followed.current = working;
    let live = true;
    fetchJson<SessionDetail>(`/api/sessions/${encodeURIComponent(sessionId)}`)
      .then((d) => live && set.current(d.messages))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [sessionId, busy, working, updatedAt]);
}
