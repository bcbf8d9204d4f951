'use client';

import { useQuery } from '@tanstack/react-query';
import type { ClampMessage } from '@/lib/contract/protocol';
import { ApiError, fetchJson } from './api';

/** The change a file went through, as git names them. */
export type FileChange = 'added' | 'modified' | 'deleted' | 'mode' | 'type';

/** One file a rewind of code would change (current workspace → its state before the message). */
export interface RewindFile {
  path: string;
  change: FileChange;
  binary: boolean;
  /** unified, bounded (a note says when it was cut) */
  diff: string;
}

/** GET /api/sessions/:id/rewind?messageId=M */
export interface RewindPreview {
  messageId: string;
  checkpointId: string | null;
  files: RewindFile[];
  truncated: boolean;
  /** plain sentences: what a rewind cannot undo */
  cannotUndo: string[];
  runningTasks: Array<{ id: string; command: string }>;
  laterMessages: number;
}

/** POST /api/sessions/:id/rewind */
export interface RewindRequest {
  messageId: string;
  code: boolean;
  conversation: boolean;
  stopTasks?: boolean;
}
export interface RewindResult {
  restored: string[];
  branchId: string | null;
  messages: ClampMessage[];
}

export interface BranchSummary {
  id: string;
  createdAt: number;
  fromMessageId: string;
  messageCount: number;
  preview: string;
}

export interface ChangedFile {
  path: string;
  change: FileChange;
  binary: boolean;
  additions: number;
  deletions: number;
  diff: string;
}
/** GET /api/sessions/:id/changes */
export interface ChangesAnswer {
  baselineId: string | null;
  files: ChangedFile[];
  truncated: boolean;
}
/** POST /api/sessions/:id/changes/commit */
export interface CommitAnswer {
  ok: boolean;
  text: string;
}

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
  const b = e.body as { runningTasks?: unknown } | undefined;
  return Array.isArray(b?.runningTasks) && b.runningTasks.length > 0 ? (b.runningTasks as RewindPreview['runningTasks']) : null;
}

/** Rewind code, conversation or both; throws ApiError (409 with runningTasks while a background task runs). */
export function postRewind(sessionId: string, body: RewindRequest): Promise<RewindResult> {
  return fetchJson<RewindResult>(`${base(sessionId)}/rewind`, post(body));
}

export function useBranches(sessionId: string) {
  return useQuery({ queryKey: checkpointKeys.branches(sessionId), queryFn: async () => (await fetchJson<{ branches: BranchSummary[] }>(`${base(sessionId)}/branches`)).branches });
}

/** One branch's messages, read-only. */
export function fetchBranch(sessionId: string, branchId: string): Promise<{ branch: BranchSummary; messages: ClampMessage[] }> {
  return fetchJson(`${base(sessionId)}/branches/${encodeURIComponent(branchId)}`);
}

export function useChanges(sessionId: string | null, enabled: boolean) {
  return useQuery({
    queryKey: checkpointKeys.changes(sessionId ?? ''),
    queryFn: () => fetchJson<ChangesAnswer>(`${base(sessionId!)}/changes`),
    enabled: enabled && !!sessionId,
  });
}

/** Put one file back as it was at the session's start (a file the session created is removed). */
export function postRevert(sessionId: string, path: string): Promise<{ reverted: string }> {
  return fetchJson(`${base(sessionId)}/changes/revert`, post({ path }));
}

/** Commit these files with this message through git_commit; ok false carries the refusal's text. */
export function postCommit(sessionId: string, paths: string[], message: string): Promise<CommitAnswer> {
  return fetchJson<CommitAnswer>(`${base(sessionId)}/changes/commit`, post({ paths, message }));
}
