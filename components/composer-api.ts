'use client';

import { useQuery } from '@tanstack/react-query';
import { BUDGET } from '@/lib/contract/budget';
import { looksLikePath, parseMentions } from '@/lib/contract/mentions';
import type { MentionCheckAnswer, ModelCapabilityAnswer, ModelChoicesAnswer, PathCompletionAnswer, SkillListAnswer, SteerAnswer } from '@/lib/contract/rest';
import type { SessionLedger } from '@/lib/contract/protocol';
import type { McpPromptCommand } from '@/lib/contract/command-text';
import { fetchJson } from './api';

/** The skills and the commands from files the server finds (for /<name>). */
export function useSkills() {
  return useQuery({ queryKey: ['skills'], queryFn: () => fetchJson<SkillListAnswer>('/api/skills'), staleTime: 30_000 });
}

/** The MCP servers' prompts (for /mcp__<server>__<prompt>). */
export function usePrompts() {
  return useQuery({ queryKey: ['prompts'], queryFn: async () => (await fetchJson<{ prompts: McpPromptCommand[] }>('/api/prompts')).prompts, staleTime: 30_000 });
}

/** The models the header's picker offers. */
export function useModelChoices(enabled: boolean) {
  return useQuery({ queryKey: ['models'], queryFn: () => fetchJson<ModelChoicesAnswer>('/api/models'), enabled, staleTime: 60_000 });
}

/** Whether a model takes images (the session's own pick; without one, the status's default answers). */
export function useModelCapability(spec: string | undefined) {
  return useQuery({ queryKey: ['model-capability', spec], queryFn: () => fetchJson<ModelCapabilityAnswer>(`/api/models?spec=${encodeURIComponent(spec!)}`), enabled: !!spec, staleTime: 60_000 });
}

/** `&session=<id>`: paths are the session's folder's (its own worktree, when it has one). */
const inSession = (sessionId?: string) => (sessionId ? `&session=${encodeURIComponent(sessionId)}` : '');

/** Completions for an @-mention. */
export function completePaths(q: string, signal?: AbortSignal, sessionId?: string): Promise<PathCompletionAnswer> {
  return fetchJson<PathCompletionAnswer>(`/api/paths?q=${encodeURIComponent(q)}${inSession(sessionId)}`, { signal });
}

/** Whether a mentioned path is a file of the workspace (of the session's worktree, when it has one). */
export function checkMention(path: string, sessionId?: string): Promise<MentionCheckAnswer> {
  return fetchJson<MentionCheckAnswer>(`/api/paths?check=${encodeURIComponent(path)}${inSession(sessionId)}`);
}

/** "Send now": ask the running turn to end at its next safe point. */
export async function steerTurn(sessionId: string): Promise<boolean> {
  return (await fetchJson<SteerAnswer>(`/api/sessions/${encodeURIComponent(sessionId)}/steer`, { method: 'POST' })).steering;
}

/** The session's ledger (for /cost). */
export function fetchLedger(sessionId: string): Promise<SessionLedger> {
  return fetchJson<SessionLedger>(`/api/sessions/${encodeURIComponent(sessionId)}/ledger`);
}

/** What is wrong with the message's @-mentions of paths ("@src/x.ts: not found …"); empty when every one is a workspace file. */
export async function mentionProblems(text: string, sessionId?: string): Promise<string[]> {
  const mentions = parseMentions(text, BUDGET.MENTION_MAX_COUNT).filter((m) => looksLikePath(m.path));
  const checks = await Promise.all(mentions.map((m) => checkMention(m.path, sessionId).catch((e: Error) => ({ path: m.path, ok: false, error: e.message }))));
  return checks.filter((c) => !c.ok).map((c) => `@${c.path}: ${c.error}`);
}
