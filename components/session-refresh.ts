'use client';

import type { QueryClient } from '@tanstack/react-query';
import type { BoardSession } from '@/lib/contract/board';
import { queryKeys } from './api';

/** How long a burst of triggers is gathered before the one refresh it asks for. */
export const REFRESH_GATHER_MS = 100;

const pending = new WeakMap<QueryClient, ReturnType<typeof setTimeout>>();

/**
 * Read again the session list (at once) and everything under its key (each open session's changes, branches and
 * worktree): once for a burst of triggers. A turn's end reaches the page twice (the board's state and the chat stream's end),
 * and each refresh of the changes view is a sandboxed git run on the server; the refresh starts after the last
 * trigger of the burst, so it always sees what that trigger saw.
 */
export function refreshSessions(qc: QueryClient): void {
  refreshSessionList(qc);
  const t = pending.get(qc);
  if (t) clearTimeout(t);
  pending.set(
    qc,
    setTimeout(() => {
      pending.delete(qc);
      // under the list's key: the changes view, branches and worktree of each open session
      void qc.invalidateQueries({ queryKey: queryKeys.sessions, predicate: (q) => q.queryKey.length > 1 });
    }, REFRESH_GATHER_MS),
  );
}

/** Read again the session list alone (a session's state or title changed; its files did not). */
export function refreshSessionList(qc: QueryClient): void {
  void qc.invalidateQueries({ queryKey: queryKeys.sessions, exact: true });
}

/** The board's states as one string, to compare one message with the next. */
export function boardStates(sessions: ReadonlyArray<Pick<BoardSession, 'id' | 'state' | 'waiting'>>): string {
  return sessions.map((s) => `${s.id}:${s.state}:${s.waiting}`).join(',');
}

/**
 * What a new board message asks the page to read again, given the states of the one before: nothing when no state
 * changed; the list alone when sessions only started working (or left); the list and the changes under it when a
 * session stopped working (it waits, it is done or failed), since its files may have changed.
 */
export function boardRefresh(before: string, sessions: ReadonlyArray<Pick<BoardSession, 'id' | 'state' | 'waiting'>>): 'none' | 'list' | 'all' {
  const now = boardStates(sessions);
  if (!before || now === before) return 'none';
  const was = new Set(before.split(','));
  return sessions.some((s) => s.state !== 'working' && !was.has(`${s.id}:${s.state}:${s.waiting}`)) ? 'all' : 'list';
}
