import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClampDataParts } from '../contract/protocol';
import type { HookService } from '../contract/hooks';
import type { HookView, HooksBody, HooksView } from '../contract/hooks-rest';
import { openDb, type Db } from '../store/db';
import { loadMessages } from '../store/messages';
import { sessionHome } from '../store/worktrees';
import { createHookService } from '../hooks/service';
import { HookConfigError, parseHooksText, type HookEntry } from '../hooks/config';
import { claudeUserHooksOn, claudeUserSettingsPath, personHooksPath, readHookSources, setClaudeUserHooks, setHookApproval } from '../hooks/sources';
import { HttpError, type ServerConfig } from './http';
import { onShutdown } from '../contract/shutdown';
import { claudeUserFilesOn, setClaudeUserFiles } from '../tools/skills/command-files';

const STARTED = Symbol.for('clamp.hookSessionsStarted');

/** The person's Claude Code folder (~/.claude). */
const claudeDir = () => path.join(process.env.HOME || os.homedir(), '.claude');

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

const RUNNING = Symbol.for('clamp.hookSessionsRunning');

/**
 * The sessions this server process ran a turn of, with their hooks: when the server stops, each ends (SessionEnd,
 * reason "other", clamp_reason "shutdown"). The shutdown hook is registered with the first.
 */
function runningSessions(): Map<string, HookService> {
  const g = globalThis as unknown as Record<symbol, Map<string, HookService> | undefined>;
  let m = g[RUNNING];
  if (!m) {
    const running = (m = g[RUNNING] = new Map());
    onShutdown(async () => {
      await Promise.all([...running].map(([id, hooks]) => hooks.sessionEnd(id, 'shutdown').catch(() => [])));
      running.clear();
    });
  }
  return m;
}

/** SessionEnd for a deleted session (its hooks: the workspace's it belonged to); never throws. */
export async function sessionEndHooks(cfg: ServerConfig, sessionId: string): Promise<void> {
  runningSessions().delete(sessionId);
  await hookServiceFor(openDb(cfg.dataDir), { workspace: cfg.workspace, dataDir: cfg.dataDir, sessionId })
    .sessionEnd(sessionId, 'deleted')
    .catch(() => []);
}

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
  runningSessions().set(sessionId, hooks);
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

function viewOf(e: HookEntry, workspace: string, approved?: boolean): HookView {
  return {
    event: e.event,
    matcher: e.matcher,
    command: e.command,
    name: e.name,
    ...(e.timeoutMs !== undefined ? { timeoutSeconds: e.timeoutMs / 1000 } : {}),
    file: e.source === 'workspace' ? path.relative(workspace, e.file) : e.file,
    hash: e.hash,
    ...(approved !== undefined ? { approved } : {}),
  };
}

/** GET /api/hooks: the person's file, the Claude Code switch, every hook by where it comes from, and what could not be read. */
export function hooksView(cfg: ServerConfig): HooksView {
  const db = openDb(cfg.dataDir);
  const src = readHookSources(db, cfg.workspace, cfg.dataDir);
  const personFile = personHooksPath(cfg.dataDir);
  let personText = '';
  try {
    personText = fs.readFileSync(personFile, 'utf8');
  } catch {
    // no file yet
  }
  return {
    personFile,
    personText,
    claudeUser: { on: claudeUserHooksOn(db), file: claudeUserSettingsPath() },
    claudeFiles: { on: claudeUserFilesOn(db), commands: path.join(claudeDir(), 'commands'), agents: path.join(claudeDir(), 'agents') },
    person: src.active.filter((e) => e.source !== 'workspace').map((e) => viewOf(e, cfg.workspace)),
    workspace: [...src.active.filter((e) => e.source === 'workspace').map((e) => viewOf(e, cfg.workspace, true)), ...src.pending.map((e) => viewOf(e, cfg.workspace, false))],
    problems: src.problems,
    skippedEvents: [...new Set(src.skippedEvents)],
  };
}

/** PUT /api/hooks: save the person's file (parsed first: a bad one is refused with the fix), the switch, or an approval. Throws HttpError 400. */
export function saveHooks(cfg: ServerConfig, body: HooksBody): HooksView {
  const db = openDb(cfg.dataDir);
  if (body.personText !== undefined) {
    const file = personHooksPath(cfg.dataDir);
    if (body.personText.trim() === '') fs.rmSync(file, { force: true });
    else {
      try {
        parseHooksText(body.personText, 'person', 'hooks.json');
      } catch (err) {
        if (err instanceof HookConfigError) throw new HttpError(400, `Not saved: ${err.message}`);
        throw err;
      }
      fs.writeFileSync(file, body.personText, { mode: 0o600 });
    }
  }
  if (body.claudeUser !== undefined) setClaudeUserHooks(db, body.claudeUser);
  if (body.claudeFiles !== undefined) setClaudeUserFiles(db, body.claudeFiles);
  if (body.approve) {
    const known = readHookSources(db, cfg.workspace, cfg.dataDir);
    if (![...known.pending, ...known.active].some((e) => e.source === 'workspace' && e.hash === body.approve!.hash)) {
      throw new HttpError(404, 'The workspace has no hook with that definition (its file changed?). Reload the settings and approve it again.');
    }
    setHookApproval(db, cfg.workspace, body.approve.hash, body.approve.approved);
  }
  return hooksView(cfg);
}
