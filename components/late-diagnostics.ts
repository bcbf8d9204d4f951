'use client';

import { isToolUIPart } from 'ai';
import { useEffect, useMemo } from 'react';
import type { LateDiagnostics, LateDiagnosticsAnswer } from '@/lib/contract/diagnostics';
import type { ClampMessage } from '@/lib/contract/protocol';
import { fetchJson } from './api';
import { pendingIdOf } from './chat-rows';

/** How often an idle chat asks for diagnostics its cards wait for. */
const POLL_MS = 1000;

/** The lateIds of calls whose diagnostics were pending and have not arrived in the conversation. */
export function waitingLateIds(messages: readonly ClampMessage[]): string[] {
  const arrived = new Set<string>();
  const pending: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'data-diagnostics') arrived.add(p.data.lateId);
      else if (isToolUIPart(p)) {
        const id = pendingIdOf(p);
        if (id) pending.push(id);
      }
    }
  }
  return pending.filter((id) => !arrived.has(id));
}

/** The conversation with each late report added to the message of its call (as the server stores it). */
export function withArrivals(messages: ClampMessage[], arrivals: readonly LateDiagnostics[]): ClampMessage[] {
  if (arrivals.length === 0) return messages;
  const byId = new Map(arrivals.map((l) => [l.lateId, l]));
  return messages.map((m) => {
    const add = m.parts.flatMap((p) => {
      const late = isToolUIPart(p) ? byId.get(pendingIdOf(p) ?? '') : undefined;
      return late ? [{ type: 'data-diagnostics' as const, id: `diagnostics-${late.lateId}`, data: late }] : [];
    });
    return add.length ? { ...m, parts: [...m.parts, ...add] } : m;
  });
}

/**
 * A change's diagnostics that arrive after its turn ended: while the chat is idle and a card says "checking",
 * ask the server (GET /api/sessions/[id]/diagnostics) every POLL_MS and put each arrival on its card. A check
 * the server no longer knows of (it restarted meanwhile) is shown as never delivered. A running turn brings
 * them in its own stream.
 */
export function useLateDiagnostics(sessionId: string, messages: ClampMessage[], busy: boolean, setMessages: (fn: (m: ClampMessage[]) => ClampMessage[]) => void): void {
  const waiting = useMemo(() => waitingLateIds(messages), [messages]);
  const key = waiting.join(' ');
  useEffect(() => {
    if (busy || !key) return;
    const ids = new Set(key.split(' '));
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const tick = async () => {
      let next = true;
      try {
        const answer = await fetchJson<LateDiagnosticsAnswer>(`/api/sessions/${encodeURIComponent(sessionId)}/diagnostics`);
        if (stopped) return;
        const arrived = answer.arrived.filter((l) => ids.has(l.lateId));
        const known = new Set([...answer.checking, ...answer.arrived.map((l) => l.lateId)]);
        const lost = [...ids].filter((id) => !known.has(id));
        if (arrived.length || lost.length) {
          setMessages((list) => withArrivals(list, [...arrived, ...lost.flatMap((id) => neverDelivered(list, id))]));
          next = false; // the messages changed: the effect runs again for what is still waited for
        }
      } catch {
        // the server is restarting or away: ask again
      }
      if (next && !stopped) timer = setTimeout(tick, POLL_MS);
    };
    timer = setTimeout(tick, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [busy, key, sessionId, setMessages]);
}

/** The page's own word for a check the server forgot (it restarted before the answer): not stored, shown until a reload asks again. */
function neverDelivered(messages: readonly ClampMessage[], lateId: string): LateDiagnostics[] {
  for (const m of messages) {
    for (const p of m.parts) {
      if (!isToolUIPart(p) || pendingIdOf(p) !== lateId || p.state !== 'output-available') continue;
      const d = (p.output as { meta?: { diagnostics?: LateDiagnostics['diagnostics'] } }).meta?.diagnostics;
      if (!d) continue;
      const diagnostics = { ...d, state: 'not-ready' as const, note: 'Clamp stopped before the language server answered' };
      return [{ lateId, toolCallId: p.toolCallId, toolName: p.type === 'dynamic-tool' ? p.toolName : p.type.slice('tool-'.length), paths: [], diagnostics, at: Date.now() }];
    }
  }
  return [];
}
