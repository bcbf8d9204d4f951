import type { ClampMessage } from '../contract/protocol';
import { StoreError, type Db } from './db';
import { nameFromMessages, touchSession } from './sessions';

interface MessageRow {
  position: number;
  id: string;
  json: string;
}

function requireSessionRow(db: Db, sessionId: string): void {
  if (!db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) {
    throw new StoreError(`Session ${sessionId} not found. Create it first (POST /api/sessions).`, 'not-found');
  }
}

/**
 * Store a session's whole conversation, in order, in one transaction: rows that did not change are
 * left alone, changed ones rewritten, extra old ones removed. Idempotent. Throws 'not-found' for an unknown session.
 *
 * `storedBefore`: the caller knows the first that many messages are stored as they are (a turn saving
 * after each step: only its own message grows), so only the rest are serialised and compared — a cost
 * that no longer grows with the history before. When the store does not hold that many rows with those
 * ids, the whole conversation is saved as without it.
 */
export function saveMessages(db: Db, sessionId: string, messages: readonly ClampMessage[], o: { storedBefore?: number } = {}): void {
  db.transaction(() => {
    requireSessionRow(db, sessionId);
    const from = keptPrefix(db, sessionId, messages, o.storedBefore ?? 0);
    const existing = db.prepare('SELECT position, id, json FROM messages WHERE session_id = ? AND position >= ? ORDER BY position').all(sessionId, from) as MessageRow[];
    const upsert = db.prepare(
      `INSERT INTO messages (session_id, position, id, role, json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, position) DO UPDATE SET id = excluded.id, role = excluded.role, json = excluded.json`,
    );
    let changed = from + existing.length !== messages.length;
    for (let position = from; position < messages.length; position++) {
      const m = messages[position];
      const json = JSON.stringify(m);
      const old = existing[position - from];
      if (old && old.position === position && old.id === m.id && old.json === json) continue;
      upsert.run(sessionId, position, m.id, m.role, json);
      changed = true;
    }
    db.prepare('DELETE FROM messages WHERE session_id = ? AND position >= ?').run(sessionId, messages.length);
    if (changed) {
      nameFromMessages(db, sessionId, messages);
      touchSession(db, sessionId);
    }
  })();
}

/** How many leading messages saveMessages may skip: `claimed`, when the store holds exactly those ids at positions 0 … claimed-1; else 0. */
function keptPrefix(db: Db, sessionId: string, messages: readonly ClampMessage[], claimed: number): number {
  const n = Math.min(claimed, messages.length);
  if (n <= 0) return 0;
  const ids = db.prepare('SELECT id FROM messages WHERE session_id = ? AND position < ? ORDER BY position').all(sessionId, n) as { id: string }[];
  if (ids.length !== n) return 0;
  for (let i = 0; i < n; i++) if (ids[i].id !== messages[i].id) return 0;
  return n;
}

/**
 * Add one message at the end of a session's conversation, or replace the stored message with the
 * same id in place (a streamed assistant message is saved again as it grows). Returns its position.
 */
export function appendMessage(db: Db, sessionId: string, message: ClampMessage): number {
  return db.transaction(() => {
    requireSessionRow(db, sessionId);
    const json = JSON.stringify(message);
    const same = db.prepare('SELECT position FROM messages WHERE session_id = ? AND id = ? ORDER BY position LIMIT 1').get(sessionId, message.id) as
      | { position: number }
      | undefined;
    let position: number;
    if (same) {
      position = same.position;
      db.prepare('UPDATE messages SET role = ?, json = ? WHERE session_id = ? AND position = ?').run(message.role, json, sessionId, position);
    } else {
      const { next } = db.prepare('SELECT COALESCE(MAX(position) + 1, 0) AS next FROM messages WHERE session_id = ?').get(sessionId) as { next: number };
      position = next;
      db.prepare('INSERT INTO messages (session_id, position, id, role, json) VALUES (?, ?, ?, ?, ?)').run(sessionId, position, message.id, message.role, json);
    }
    nameFromMessages(db, sessionId, [message]);
    touchSession(db, sessionId);
    return position;
  })();
}

/** A session's conversation in order (empty for an unknown session). */
export function loadMessages(db: Db, sessionId: string): ClampMessage[] {
  const rows = db.prepare('SELECT json FROM messages WHERE session_id = ? ORDER BY position').all(sessionId) as { json: string }[];
  return rows.map((r) => JSON.parse(r.json) as ClampMessage);
}
