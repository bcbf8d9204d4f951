'use client';

import { useEffect, useRef } from 'react';
import type { ClampMessage, SessionDetail } from '@/lib/contract/protocol';
import { fetchJson } from './api';

/**
 * The server adds what a user message carries (each @-mention's read, attached text files) when it
 * stores the message, before the model is asked anything. Once the turn streams, take the stored user
 * messages' parts, so the message's card shows the attachments as the model read them.
 */
export function useStoredUserParts(sessionId: string, status: string, setMessages: (fn: (m: ClampMessage[]) => ClampMessage[]) => void): void {
  const prev = useRef(status);
  useEffect(() => {
    const was = prev.current;
    prev.current = status;
    if (status !== 'streaming' || was === 'streaming') return;
    let live = true;
    fetchJson<SessionDetail>(`/api/sessions/${encodeURIComponent(sessionId)}`)
      .then((d) => {
        if (!live) return;
        const stored = new Map(d.messages.filter((m) => m.role === 'user').map((m) => [m.id, m]));
        setMessages((list) =>
          list.map((m) => {
            const s = m.role === 'user' ? stored.get(m.id) : undefined;
            return s && s.parts.length !== m.parts.length ? { ...m, parts: s.parts } : m;
          }),
        );
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [status, sessionId, setMessages]);
}
