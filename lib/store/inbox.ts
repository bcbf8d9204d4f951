import type { StoredApproval } from '../contract/protocol';
import type { Db } from './db';
import { listPending } from './approvals';

/** A pending approval with the listed session it belongs to (a subagent's session belongs to its parent). */
export interface WorkspacePending extends StoredApproval {
  topId: string;
  topTitle: string;
}

/** Every approval still pending in a workspace's sessions, subagents' included, oldest first. */
export function workspacePending(db: Db, workspace: string): WorkspacePending[] {
  const owners = db
    .prepare(
      `SELECT DISTINCT s.id, COALESCE(p.id, s.id) AS top_id, COALESCE(p.title, s.title) AS top_title
       FROM approvals a JOIN sessions s ON s.id = a.session_id LEFT JOIN sessions p ON p.id = s.parent_id
       WHERE a.status = 'pending' AND s.workspace = ?`,
    )
    .all(workspace) as { id: string; top_id: string; top_title: string }[];
  const out: WorkspacePending[] = [];
  for (const o of owners) for (const a of listPending(db, o.id)) out.push({ ...a, topId: o.top_id, topTitle: o.top_title });
  return out.sort((a, b) => a.createdAt - b.createdAt);
}
