import type { SubagentType } from '../contract/subagents';
import { newId, stamp, StoreError, type Db } from './db';
import { clipTitle } from './sessions';

/** A subagent's stored session: its parent, the parent's call that started it, and its kind. */
export interface ChildRecord {
  id: string;
  parentId: string;
  parentCallId: string;
  type: SubagentType;
}

/**
 * Store a new child session of a parent (same workspace, same mode at the start; the child reads the
 * parent's mode at each call). Its title is its description. Throws 'not-found' for an unknown parent.
 */
export function createChildSession(db: Db, init: { parentId: string; parentCallId: string; type: SubagentType; description: string }): ChildRecord {
  return db.transaction(() => {
    const parent = db.prepare('SELECT workspace, mode FROM sessions WHERE id = ?').get(init.parentId) as { workspace: string; mode: string } | undefined;
    if (!parent) throw new StoreError(`Session ${init.parentId} not found; cannot start a subagent in it.`, 'not-found');
    const id = newId();
    const now = stamp();
    db.prepare(
      `INSERT INTO sessions (id, workspace, title, title_set, mode, created_at, updated_at, parent_id, parent_call_id, agent_type)
       VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
    ).run(id, parent.workspace, clipTitle(`${init.type}: ${init.description}`), parent.mode, now, now, init.parentId, init.parentCallId, init.type);
    return { id, parentId: init.parentId, parentCallId: init.parentCallId, type: init.type };
  })();
}

/** The children of a session, oldest first. */
export function listChildren(db: Db, parentId: string): ChildRecord[] {
  const rows = db.prepare('SELECT id, parent_id, parent_call_id, agent_type FROM sessions WHERE parent_id = ? ORDER BY created_at, rowid').all(parentId) as {
    id: string;
    parent_id: string;
    parent_call_id: string;
    agent_type: SubagentType;
  }[];
  return rows.map((r) => ({ id: r.id, parentId: r.parent_id, parentCallId: r.parent_call_id, type: r.agent_type }));
}
