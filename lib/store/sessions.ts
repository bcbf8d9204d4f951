import { PERMISSION_MODES, type PermissionMode } from '../contract/types';
import type { ClampMessage, SessionSummary } from '../contract/protocol';
import { BUDGET } from '../contract/budget';
import { newId, stamp, StoreError, type Db } from './db';
import { getModelSettings } from './settings';

/** The title of a session before its first user message names it. */
export const PLACEHOLDER_TITLE = 'New session';

/** A stored session: the summary plus the workspace it belongs to. */
export interface SessionRecord extends SessionSummary {
  workspace: string;
}

interface SessionRow {
  id: string;
  workspace: string;
  title: string;
  mode: string;
  created_at: number;
  updated_at: number;
  message_count: number;
  pending_approvals: number;
  parent_id: string | null;
  model: string | null;
}

const SELECT = `
  SELECT s.id, s.workspace, s.title, s.mode, s.created_at, s.updated_at, s.parent_id, s.model,
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count,
    (SELECT COUNT(*) FROM approvals a WHERE a.session_id = s.id AND a.status = 'pending') AS pending_approvals
  FROM sessions s`;

function toMode(value: string): PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(value) ? (value as PermissionMode) : 'default';
}

function toRecord(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    workspace: r.workspace,
    title: r.title,
    mode: toMode(r.mode),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    messageCount: r.message_count,
    pendingApprovals: r.pending_approvals,
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
    ...(r.model ? { model: r.model } : {}),
  };
}

/** A session record without its workspace, as the page lists it. */
export function toSummary(r: SessionRecord): SessionSummary {
  const { workspace: _workspace, ...rest } = r;
  return rest;
}

function assertMode(mode: string): asserts mode is PermissionMode {
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new StoreError(`"${mode}" is not a permission mode. Use one of: ${PERMISSION_MODES.join(', ')}.`, 'invalid');
  }
}

/** A title cut to SESSION_TITLE_MAX_CHARS code points with an ellipsis; whitespace collapsed. */
export function clipTitle(text: string, maxChars: number = BUDGET.SESSION_TITLE_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= maxChars ? flat : `${chars.slice(0, maxChars - 1).join('').trimEnd()}…`;
}

/** The title the first user message with text gives a session, or undefined when none has text yet. */
export function titleFromMessages(messages: readonly ClampMessage[]): string | undefined {
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const text = m.parts
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join(' ')
      .trim();
    if (text) return clipTitle(text);
  }
  return undefined;
}

/**
 * Create a session in a workspace (its realpath). Without a title, the first user message names it;
 * without a mode, it starts in the settings' default mode (which falls back to defaultMode, CLAMP_MODE).
 */
export function createSession(
  db: Db,
  init: { workspace: string; mode?: PermissionMode; title?: string },
  defaultMode: PermissionMode = 'default',
): SessionRecord {
  const mode = init.mode ?? getModelSettings(db, defaultMode).defaultMode;
  assertMode(mode);
  const id = newId();
  const now = stamp();
  const title = init.title?.trim() ? clipTitle(init.title, BUDGET.SESSION_TITLE_MAX_CHARS) : undefined;
  db.prepare('INSERT INTO sessions (id, workspace, title, title_set, mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    id,
    init.workspace,
    title ?? PLACEHOLDER_TITLE,
    title ? 1 : 0,
    mode,
    now,
    now,
  );
  return requireSession(db, id);
}

/** getSession's statement per database. */
const BY_ID = new WeakMap<Db, ReturnType<Db['prepare']>>();

/** A session by id, or undefined. */
export function getSession(db: Db, id: string): SessionRecord | undefined {
  // prepared once per database: every step of a turn reads its session
  let stmt = BY_ID.get(db);
  if (!stmt) BY_ID.set(db, (stmt = db.prepare(`${SELECT} WHERE s.id = ?`)));
  const row = stmt.get(id) as SessionRow | undefined;
  return row && toRecord(row);
}

/** The cheap reads of one session's row, prepared once per database: every step of a turn asks for its mode many times. */
const COLUMNS = new WeakMap<Db, { mode: ReturnType<Db['prepare']>; model: ReturnType<Db['prepare']> }>();

function columns(db: Db) {
  let c = COLUMNS.get(db);
  if (!c) COLUMNS.set(db, (c = { mode: db.prepare('SELECT mode FROM sessions WHERE id = ?'), model: db.prepare('SELECT model FROM sessions WHERE id = ?') }));
  return c;
}

/** A session's permission mode as getSession would give it, or undefined for an unknown session (without counting its messages). */
export function getSessionMode(db: Db, id: string): PermissionMode | undefined {
  const row = columns(db).mode.get(id) as { mode: string } | undefined;
  return row && toMode(row.mode);
}

/** The model picked for a session (`provider:model`), undefined when none is or the session is unknown. */
export function getSessionModel(db: Db, id: string): string | undefined {
  const row = columns(db).model.get(id) as { model: string | null } | undefined;
  return row?.model || undefined;
}

/** A session by id, optionally required to belong to a workspace; throws StoreError 'not-found' otherwise. */
export function requireSession(db: Db, id: string, workspace?: string): SessionRecord {
  const s = getSession(db, id);
  if (!s || (workspace !== undefined && s.workspace !== workspace)) {
    throw new StoreError(`Session ${id} not found. List the sessions with GET /api/sessions.`, 'not-found');
  }
  return s;
}

/** The sessions of a workspace, most recently active first, with message and pending-approval counts. */
export function listSessions(db: Db, workspace: string): SessionSummary[] {
  // a subagent's session is opened from its parent's card, not listed
  const rows = db.prepare(`${SELECT} WHERE s.workspace = ? AND s.parent_id IS NULL ORDER BY s.updated_at DESC, s.rowid DESC`).all(workspace) as SessionRow[];
  return rows.map((r) => toSummary(toRecord(r)));
}

/** Rename and/or switch the mode of a workspace's session; returns the updated summary. Throws 'not-found'. */
export function updateSession(db: Db, workspace: string, id: string, patch: { title?: string; mode?: PermissionMode; model?: string | null }): SessionSummary {
  requireSession(db, id, workspace);
  if (patch.mode !== undefined) assertMode(patch.mode);
  const title = patch.title === undefined ? undefined : clipTitle(patch.title, BUDGET.SESSION_TITLE_MAX_CHARS);
  if (title === '') throw new StoreError('A session title cannot be empty.', 'invalid');
  db.transaction(() => {
    if (title !== undefined) db.prepare('UPDATE sessions SET title = ?, title_set = 1 WHERE id = ?').run(title, id);
    if (patch.mode !== undefined) db.prepare('UPDATE sessions SET mode = ? WHERE id = ?').run(patch.mode, id);
    if (patch.model !== undefined) db.prepare('UPDATE sessions SET model = ? WHERE id = ?').run(patch.model, id);
    db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(stamp(), id);
  })();
  return toSummary(requireSession(db, id));
}

/** Delete a workspace's session with its messages, approvals and session rules; false when there was none. */
export function deleteSession(db: Db, workspace: string, id: string): boolean {
  return db.prepare('DELETE FROM sessions WHERE id = ? AND workspace = ?').run(id, workspace).changes > 0;
}

/** Mark a session active now (called when its messages change). */
export function touchSession(db: Db, id: string, now = stamp()): void {
  db.prepare('UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?').run(now, id);
}

/** Name a placeholder-titled session after its first user message (once). */
export function nameFromMessages(db: Db, id: string, messages: readonly ClampMessage[]): void {
  const row = db.prepare('SELECT title_set FROM sessions WHERE id = ?').get(id) as { title_set: number } | undefined;
  if (!row || row.title_set) return;
  const title = titleFromMessages(messages);
  if (title) db.prepare('UPDATE sessions SET title = ?, title_set = 1 WHERE id = ?').run(title, id);
}
