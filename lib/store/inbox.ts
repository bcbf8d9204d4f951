import type { StoredApproval } from '../contract/protocol';
import type { Db } from './db';
import { getApproval } from './approvals';

/** A pending approval with the listed session it belongs to (a subagent's session belongs to its parent). */
export interface WorkspacePending extends StoredApproval {
  topId: string;
  topTitle: string;
}

/** Every approval still pending in a workspace's sessions, subagents' included, oldest first. */
export function workspacePending(db: Db, workspace: string): WorkspacePending[] {
  const rows = db
    .prepare(
      `SELECT a.approval_id, COALESCE(p.id, s.id) AS top_id, COALESCE(p.title, s.title) AS top_title
       FROM approvals a JOIN sessions s ON s.id = a.session_id LEFT JOIN sessions p ON p.id = s.parent_id
       WHERE a.status = 'pending' AND s.workspace = ? ORDER BY a.created_at, a.rowid`,
    )
    .all(workspace) as { approval_id: string; top_id: string; top_title: string }[];
  const out: WorkspacePending[] = [];
  for (const r of rows) {
    const a = getApproval(db, r.approval_id);
    if (a) out.push({ ...a, topId: r.top_id, topTitle: r.top_title });
  }
  return out;
}
