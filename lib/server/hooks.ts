import type { ClampDataParts } from '../contract/protocol';
import type { HookService } from '../contract/hooks';
import type { Db } from '../store/db';
import { loadMessages } from '../store/messages';
import { sessionHome } from '../store/worktrees';
import { createHookService } from '../hooks/service';
import { HttpError } from './http';

const STARTED = Symbol.for('clamp.hookSessionsStarted');

/** The hooks of a session's workspace (its worktree's files, its repository's approvals). */
export function hookServiceFor(db: Db, o: { workspace: string; dataDir: string; sessionId: string }): HookService {
  return createHookService({ db, workspace: o.workspace, dataDir: o.dataDir, home: sessionHome(db, o.sessionId) ?? o.workspace });
}

/** The person's message was blocked by a UserPromptSubmit hook: nothing is stored and nothing runs. */
export class PromptBlockedError extends HttpError {
  constructor(reason: string) {
    super(422, `Your message was not sent: ${reason}. Change the message, or the hook (Settings → Hooks).`);
    this.name = 'PromptBlockedError';
  }
}

/** A user message's part holding what its prompt hooks added. */
export type HookContextPart = { type: 'data-hook-context'; id: string; data: ClampDataParts['hook-context'] };

/** Whether this is the session's first message in this server process: SessionStart's source then, else undefined. */
function sessionStarting(db: Db, sessionId: string): 'startup' | 'resume' | undefined {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  const started = (g[STARTED] ??= new Set());
  if (started.has(sessionId)) return undefined;
  started.add(sessionId);
  return loadMessages(db, sessionId).length ? 'resume' : 'startup';
}

/**
 * The parts a user message gets from the prompt's hooks: SessionStart's context on the session's first message in
 * this server process, UserPromptSubmit's on every one (the model reads both). Throws PromptBlockedError when a
 * UserPromptSubmit hook blocks the prompt.
 */
export async function promptHookParts(db: Db, hooks: HookService, sessionId: string, text: string, signal: AbortSignal): Promise<HookContextPart[]> {
  const parts: HookContextPart[] = [];
  const source = sessionStarting(db, sessionId);
  if (source) {
    const s = await hooks.sessionStart(sessionId, source);
    if (s.notes.length) parts.push({ type: 'data-hook-context', id: 'hook-session-start', data: { event: 'SessionStart', text: s.context ?? '', notes: s.notes } });
  }
  const u = await hooks.userPromptSubmit(sessionId, text, signal);
  if (u.block) throw new PromptBlockedError(u.block);
  if (u.notes.length) parts.push({ type: 'data-hook-context', id: 'hook-prompt', data: { event: 'UserPromptSubmit', text: u.context ?? '', notes: u.notes } });
  return parts;
}
