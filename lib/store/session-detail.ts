import type { SessionDetail } from '../contract/protocol';
import type { Db } from './db';
import { loadMessages } from './messages';
import { listChildrenPending, listPending } from './approvals';
import { requireSession, toSummary } from './sessions';

/** A workspace's session with its whole conversation and pending approvals (GET /api/sessions/[id]). */
export function loadSessionDetail(db: Db, workspace: string, id: string): SessionDetail {
  const s = requireSession(db, id, workspace);
  // a child's calls wait in the parent's approval bar
  return { session: toSummary(s), messages: loadMessages(db, id), pendingApprovals: [...listPending(db, id), ...listChildrenPending(db, id)] };
}
