'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ModelCheck, ModelCheckRequest, SessionDetail, SessionSummary, SettingsView, StoredApproval } from '@/lib/contract/protocol';
import type {
  ApprovalAnswerBody,
  ApprovalAnswerResult,
  DeletedAnswer,
  RuleListAnswer,
  SessionAnswer,
  SessionCreateBody,
  SessionListAnswer,
  SessionPatchBody,
  SettingsUpdate,
  StatusAnswer,
} from '@/lib/contract/rest';
import { workspaceHeaders } from '@/lib/ui/workspace';

/** A failed API call: the HTTP status and the server's own message (it names the next step). */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Fetch JSON from a same-origin route; throws ApiError with the server's { error } text on a non-2xx answer. */
export async function fetchJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, {
    ...init,
    // the page's workspace goes with every call; a session's routes answer from the session's own whatever it says
    headers: { ...(init?.body ? { 'content-type': 'application/json' } : {}), ...workspaceHeaders(), ...init?.headers },
    cache: 'no-store',
  });
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!res.ok) {
    const msg =
      body && typeof body === 'object' && 'error' in body && typeof (body as { error: unknown }).error === 'string'
        ? (body as { error: string }).error
        : `${url} answered ${res.status} ${res.statusText}${typeof body === 'string' && body ? `: ${body.slice(0, 300)}` : ''}`;
    throw new ApiError(res.status, msg, body);
  }
  return body as T;
}

/** A request with a JSON body of the route's declared type. */
const jsonBody = <B>(method: string, data: B): RequestInit => ({ method, body: JSON.stringify(data) });

export const queryKeys = {
  status: ['status'] as const,
  sessions: ['sessions'] as const,
  session: (id: string) => ['session', id] as const,
  settings: ['settings'] as const,
  rules: ['rules'] as const,
};

/** The workspace, data dir and model status. */
export function useStatus() {
  return useQuery({ queryKey: queryKeys.status, queryFn: () => fetchJson<StatusAnswer>('/api/status') });
}

/** The workspace's sessions, newest first. */
export function useSessions() {
  return useQuery({
    queryKey: queryKeys.sessions,
    queryFn: async () => (await fetchJson<SessionListAnswer>('/api/sessions')).sessions,
  });
}

/**
 * One session's whole conversation. Loaded once per mount: after that useChat owns the messages,
 * so it never refetches on its own (a refetch would not reach useChat anyway).
 */
export function useSessionDetail(id: string | null) {
  return useQuery({
    queryKey: queryKeys.session(id ?? ''),
    queryFn: () => fetchJson<SessionDetail>(`/api/sessions/${encodeURIComponent(id!)}`),
    enabled: !!id,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

export function useCreateSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: SessionCreateBody) => (await fetchJson<SessionAnswer>('/api/sessions', jsonBody('POST', body))).session,
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
}

export function usePatchSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, ...body }: { id: string } & SessionPatchBody) =>
      (await fetchJson<SessionAnswer>(`/api/sessions/${encodeURIComponent(id)}`, jsonBody<SessionPatchBody>('PATCH', body))).session,
    onSuccess: (s) => {
      qc.setQueryData<SessionSummary[]>(queryKeys.sessions, (list) => list?.map((x) => (x.id === s.id ? s : x)));
      void qc.invalidateQueries({ queryKey: queryKeys.sessions });
    },
  });
}

export function useDeleteSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<DeletedAnswer>(`/api/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
}

export function useSettings(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.settings, queryFn: () => fetchJson<SettingsView>('/api/settings'), enabled });
}

export function useSaveSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsUpdate) => fetchJson<SettingsView>('/api/settings', jsonBody('PUT', body)),
    onSuccess: (view) => {
      qc.setQueryData(queryKeys.settings, view);
      void qc.invalidateQueries({ queryKey: queryKeys.status });
    },
  });
}

/** Test model settings without saving them: the provider reached or what is wrong, and the models it lists. */
export function useCheckModel() {
  return useMutation({ mutationFn: (body: ModelCheckRequest) => fetchJson<ModelCheck>('/api/settings/check', jsonBody('POST', body)) });
}

export function useRules(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.rules,
    queryFn: async () => (await fetchJson<RuleListAnswer>('/api/rules')).rules,
    enabled,
  });
}

export function useDeleteRule() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<DeletedAnswer>(`/api/rules/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.rules }),
  });
}

/** POST an approval answer; resolves with the stored approval; throws ApiError (409 when the call no longer waits: answered before, or withdrawn by a rewind). */
export async function postApproval(sessionId: string, toolCallId: string, body: ApprovalAnswerBody): Promise<StoredApproval> {
  const url = `/api/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(toolCallId)}`;
  return (await fetchJson<ApprovalAnswerResult>(url, jsonBody('POST', body))).approval;
}

/** Ask the server to stop a session's running turn (aborts the model and every running tool); never throws. */
export async function stopTurnOnServer(sessionId: string): Promise<void> {
  await fetchJson(`/api/sessions/${encodeURIComponent(sessionId)}/stop`, { method: 'POST' }).catch(() => undefined);
}
