'use client';

import { useQuery } from '@tanstack/react-query';
import type {
  BranchAnswer,
  BranchListAnswer,
  BranchView,
  ChangesAnswer,
  CommitChangesAnswer,
  CommitChangesBody,
  FileChangeKind,
  RevertAnswer,
  RevertBody,
  RewindAnswer,
  RewindBody,
  RewindPreview,
  RewindTasksConflict,
} from '@/lib/contract/rest';
import { ApiError, fetchJson } from './api';

export type { ChangedFile, ChangesAnswer, RewindFile, RewindPreview } from '@/lib/contract/rest';
/** The change a file went through, as git names them. */
export type FileChange = FileChangeKind;
export type RewindRequest = RewindBody;
export type RewindResult = RewindAnswer;
export type BranchSummary = BranchView;
export type CommitAnswer = CommitChangesAnswer;

const base = (sessionId: string) => `/api/sessions/${encodeURIComponent(sessionId)}`;
const post = <B>(data: B): RequestInit => ({ method: 'POST', body: JSON.stringify(data) });

/**
 * React Query keys under the session list's key: whatever refreshes the sessions (each finished turn,
 * each answered approval) refreshes the changes and the branches too.
 */
export const checkpointKeys = {
  changes: (sessionId: string) => ['sessions', sessionId, 'changes'] as const,
  branches: (sessionId: string) => ['sessions', sessionId, 'branches'] as const,
  preview: (sessionId: string, messageId: string) => ['sessions', sessionId, 'rewind', messageId] as const,
};

/** The preview of a rewind to before messageId: the files that would change, what cannot be undone, running tasks. */
export function fetchRewindPreview(sessionId: string, messageId: string): Promise<RewindPreview> {
  return fetchJson<RewindPreview>(`${base(sessionId)}/rewind?messageId=${encodeURIComponent(messageId)}`);
}

/** The tasks a 409 of the rewind route names (a background task runs), or null for any other failure. */
export function runningTasksOf(e: unknown): RewindPreview['runningTasks'] | null {
  if (!(e instanceof ApiError) || e.status !== 409) return null;
  const b = e.body as Partial<RewindTasksConflict> | undefined;
  return Array.isArray(b?.runningTasks) && b.runningTasks.length > 0 ? (b.runningTasks as RewindPreview['runningTasks']) : null;
}

/** Rewind code, conversation or both; throws ApiError (409 with runningTasks while a background task runs). */
export function postRewind(sessionId: string, body: RewindRequest): Promise<RewindResult> {
  return fetchJson<RewindAnswer>(`${base(sessionId)}/rewind`, post<RewindBody>(body));
}

export function useBranches(sessionId: string) {
  return useQuery({ queryKey: checkpointKeys.branches(sessionId), queryFn: async () => (await fetchJson<BranchListAnswer>(`${base(sessionId)}/branches`)).branches });
}

/** One branch's messages, read-only. */
export function fetchBranch(sessionId: string, branchId: string): Promise<BranchAnswer> {
  return fetchJson<BranchAnswer>(`${base(sessionId)}/branches/${encodeURIComponent(branchId)}`);
}

export function useChanges(sessionId: string | null, enabled: boolean) {
  return useQuery({
    queryKey: checkpointKeys.changes(sessionId ?? ''),
    queryFn: () => fetchJson<ChangesAnswer>(`${base(sessionId!)}/changes`),
    enabled: enabled && !!sessionId,
  });
}

/** Put one file back as it was at the session's start (a file the session created is removed). */
export function postRevert(sessionId: string, path: string): Promise<RevertAnswer> {
  return fetchJson<RevertAnswer>(`${base(sessionId)}/changes/revert`, post<RevertBody>({ path }));
}

/** Commit these files with this message through git_commit; ok false carries the refusal's text. */
export function postCommit(sessionId: string, paths: string[], message: string): Promise<CommitAnswer> {
  return fetchJson<CommitChangesAnswer>(`${base(sessionId)}/changes/commit`, post<CommitChangesBody>({ paths, message }));
}
