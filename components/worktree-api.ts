'use client';

import { useQuery } from '@tanstack/react-query';
import type { WorktreeAnswer, WorktreeFinishAnswer, WorktreeFinishBody } from '@/lib/contract/worktree';
import { fetchJson } from './api';

export type { WorktreeFinishAnswer, WorktreeView } from '@/lib/contract/worktree';

/** Under the session list's key: a finished turn (the first one makes a pending worktree) refreshes it too. */
export const worktreeKey = (sessionId: string) => ['sessions', sessionId, 'worktree'] as const;

/** The session's own worktree, or null when it works in the workspace itself. */
export function useWorktree(sessionId: string | null) {
  return useQuery({
    queryKey: worktreeKey(sessionId ?? ''),
    queryFn: async () => (await fetchJson<WorktreeAnswer>(`/api/sessions/${encodeURIComponent(sessionId!)}/worktree`)).worktree,
    enabled: !!sessionId,
  });
}

/** Merge, keep or discard the session's worktree; the answer says what happened or why nothing did. */
export function postWorktreeFinish(sessionId: string, body: WorktreeFinishBody): Promise<WorktreeFinishAnswer> {
  return fetchJson<WorktreeFinishAnswer>(`/api/sessions/${encodeURIComponent(sessionId)}/worktree`, { method: 'POST', body: JSON.stringify(body) });
}
