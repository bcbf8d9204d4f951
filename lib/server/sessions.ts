import type { SessionDetail, SessionSummary } from '../contract/protocol';
import type { SessionCreateBody, SessionPatchBody } from '../contract/rest';
import type { SessionExport } from '../contract/session-export';
import type { LateDiagnosticsAnswer } from '../contract/diagnostics';
import { openDb } from '../store/db';
import { loadSessionDetail } from '../store/session-detail';
import { createSession, deleteSession, listSessions, requireSession, updateSession } from '../store/sessions';
import { lateDiagnosticsView } from './diagnostics';
import { HttpError, json, type ServerConfig } from './http';
import { exportJson, exportMarkdown, ImportError, importSession } from './session-io';
import { whileHeld } from './turn-hold';
import { requestWorktree } from './worktrees';
import { cleanUpAfterSession, sessionLeftovers } from './session-cleanup';
import { sessionEndHooks } from './hooks';

/** The workspace's sessions, most recently active first. */
export function sessionList(cfg: ServerConfig): SessionSummary[] {
  return listSessions(openDb(cfg.dataDir), cfg.workspace);
}

/**
 * A new session of the workspace (its mode: the body's, else the settings' or CLAMP_MODE); with `worktree`, on
 * its own git worktree (lib/server/worktrees.ts). HttpError 409 when the worktree cannot be: no session is left.
 */
export async function newSession(cfg: ServerConfig, body: SessionCreateBody): Promise<SessionSummary> {
  const { worktree, ...init } = body;
  const db = openDb(cfg.dataDir);
  const { workspace: _workspace, ...session } = createSession(db, { workspace: cfg.workspace, ...init }, cfg.mode);
  if (worktree) {
    try {
      await requestWorktree(cfg, session.id, worktree);
    } catch (err) {
      deleteSession(db, cfg.workspace, session.id);
      throw err;
    }
  }
  return session;
}

/** One session with its whole conversation and pending approvals; StoreError not-found when the workspace has none such. */
export function sessionDetail(cfg: ServerConfig, id: string): SessionDetail {
  return loadSessionDetail(openDb(cfg.dataDir), cfg.workspace, id);
}

/** The session's late diagnostics: reports that arrived after their calls' results, and the checks going on; StoreError not-found when unknown. */
export function sessionLateDiagnostics(cfg: ServerConfig, id: string): LateDiagnosticsAnswer {
  return lateDiagnosticsView(openDb(cfg.dataDir), cfg.workspace, id);
}

/** Rename a session and/or switch its mode. */
export function patchSession(cfg: ServerConfig, id: string, body: SessionPatchBody): SessionSummary {
  return updateSession(openDb(cfg.dataDir), cfg.workspace, id, body);
}

/** Delete a session with its messages, approvals and session rules; HttpError 404 when unknown, 409 while a turn of it runs (here or in another process). */
export async function removeSession(cfg: ServerConfig, id: string): Promise<void> {
  const db = openDb(cfg.dataDir);
  requireSession(db, id, cfg.workspace);
  // what only it named (logs, spills) and its checkpoint refs go with it; read before its rows are gone
  const left = sessionLeftovers(db, cfg.dataDir, id);
  await whileHeld(db, id, 'delete it', () => {
    if (!deleteSession(db, cfg.workspace, id)) throw new HttpError(404, `Session ${id} not found.`);
  });
  // the files go at once; the refs follow (a git run per repository holding one), never throwing
  void cleanUpAfterSession(cfg.dataDir, left);
  // its SessionEnd hooks run on their own: a delete does not wait for them
  void sessionEndHooks(cfg, id);
}

/** Import a JSON export as a new session; HttpError 400 for an export that parses but cannot be imported. */
export function importAsSession(cfg: ServerConfig, data: SessionExport): SessionSummary {
  try {
    return importSession(openDb(cfg.dataDir), cfg.workspace, data, cfg.mode);
  } catch (err) {
    if (err instanceof ImportError) throw new HttpError(400, err.message);
    throw err;
  }
}

function fileName(title: string, ext: string): string {
  const base = title.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session';
  return `clamp-${base}.${ext}`;
}

/** A session as a download: format json (every stored message, importable) or md (for people); HttpError 400 for another. */
export function exportDownload(cfg: ServerConfig, id: string, format: string): Response {
  const db = openDb(cfg.dataDir);
  if (format === 'md') {
    const { title, text } = exportMarkdown(db, cfg.workspace, id);
    return new Response(text, { headers: { 'content-type': 'text/markdown; charset=utf-8', 'content-disposition': `attachment; filename="${fileName(title, 'md')}"`, 'cache-control': 'no-store' } });
  }
  if (format !== 'json') throw new HttpError(400, `Unknown export format "${format}". Use ?format=json or ?format=md.`);
  const data = exportJson(db, cfg.workspace, id);
  const res = json<SessionExport>(data);
  res.headers.set('content-disposition', `attachment; filename="${fileName(data.session.title, 'json')}"`);
  return res;
}
