import { compactNow } from '../agent/compact-now';
import { sessionLedger } from '../agent/context/ledger';
import type { CompactionInfo, SessionLedger } from '../contract/protocol';
import { createToolRegistry } from '../dispatch/all-tools';
import { listPending } from '../store/approvals';
import { openDb, type Db } from '../store/db';
import { loadMessages, saveMessages } from '../store/messages';
import { requireSession } from '../store/sessions';
import { getTaskManager } from '../tasks/manager';
import { storeHost } from './agent-host';
import { whileHeld } from './turn-hold';
import { HttpError, type ServerConfig } from './http';
import { sessionPlace } from './worktrees';
import { currentModelWithWindow } from './model';
import { limitUses, spendGuard } from './limits';
import { SPEND_SERVICE } from '../contract/limits';

/**
 * POST /api/sessions/[id]/compact: summarise the session's older steps now, store the compaction
 * (a message after the conversation, holding the data-compaction part) and return it. The stored
 * messages are never changed. Throws HttpError 409 while a turn runs (here or in another process) or an approval waits, when no
 * model is configured, or when there is nothing to compact yet.
 */
export async function compactSession(server: ServerConfig, sessionId: string, focus?: string): Promise<CompactionInfo> {
  const db = openDb(server.dataDir);
  requireSession(db, sessionId, server.workspace);
  // a session on its own worktree: its checkpoints, files and git are the worktree's
  const cfg = sessionPlace(server, db, sessionId);
  return whileHeld(db, sessionId, 'compact', () => compactHeld(db, cfg, sessionId, focus));
}

async function compactHeld(db: Db, cfg: ServerConfig, sessionId: string, focus?: string): Promise<CompactionInfo> {
  if (listPending(db, sessionId).length > 0) throw new HttpError(409, 'A tool call is waiting for your approval. Answer it first, then compact.');
  const resolved = await currentModelWithWindow(cfg);
  if (!resolved.ok) throw new HttpError(409, resolved.status.help ?? 'No model is configured.');
  const messages = loadMessages(db, sessionId);
  const host = storeHost(db, { sessionId, workspace: cfg.workspace, dataDir: cfg.dataDir, services: { tasks: getTaskManager(cfg.dataDir), [SPEND_SERVICE]: spendGuard(db, { sessionId }) } });
  const r = await compactNow({ host, reg: createToolRegistry(), model: resolved.model, status: resolved.status, messages, focus });
  if (!r) throw new HttpError(409, 'Nothing to compact yet: the session has no steps before the most recent ones. Compact again after more work.');
  // appended after everything stored, so a later turn starts from it and the page shows the divider there
  saveMessages(db, sessionId, [...loadMessages(db, sessionId), r.message]);
  return r.compaction;
}

/** GET /api/sessions/[id]/ledger: every step's ledger entry and the session's totals. 404 for an unknown session. */
export function ledgerOfSession(cfg: ServerConfig, sessionId: string): SessionLedger {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  return { ...sessionLedger(loadMessages(db, sessionId)), limits: limitUses(cfg, sessionId) };
}
