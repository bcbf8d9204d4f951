import type { ClampMessage } from '../contract/protocol';
import type { BranchView, CheckpointView, SkippedFile } from '../contract/rest';
import { newId, stamp, type Db } from './db';

/** A checkpoint as stored: the view plus its commit in the shadow repository. */
export interface StoredCheckpoint extends CheckpointView {
  sessionId: string;
  commit: string;
}

interface CheckpointRow {
  id: string;
  session_id: string;
  message_id: string | null;
  tool_call_id: string | null;
  kind: CheckpointView['kind'];
  commit_sha: string;
  file_count: number;
  skipped_json: string;
  created_at: number;
}

function checkpointOf(r: CheckpointRow): StoredCheckpoint {
  return {
    id: r.id,
    sessionId: r.session_id,
    messageId: r.message_id,
    ...(r.tool_call_id ? { toolCallId: r.tool_call_id } : {}),
    kind: r.kind,
    commit: r.commit_sha,
    createdAt: r.created_at,
    fileCount: r.file_count,
    skipped: JSON.parse(r.skipped_json) as SkippedFile[],
  };
}

/** Record a checkpoint taken in the shadow repository; returns it with its new id. */
export function addCheckpoint(
  db: Db,
  c: { sessionId: string; messageId: string | null; toolCallId?: string; kind: CheckpointView['kind']; commit: string; fileCount: number; skipped: SkippedFile[] },
): StoredCheckpoint {
  const row: CheckpointRow = {
    id: newId(),
    session_id: c.sessionId,
    message_id: c.messageId,
    tool_call_id: c.toolCallId ?? null,
    kind: c.kind,
    commit_sha: c.commit,
    file_count: c.fileCount,
    skipped_json: JSON.stringify(c.skipped),
    created_at: stamp(),
  };
  db.prepare(
    `INSERT INTO checkpoints (id, session_id, message_id, tool_call_id, kind, commit_sha, file_count, skipped_json, created_at)
     VALUES (@id, @session_id, @message_id, @tool_call_id, @kind, @commit_sha, @file_count, @skipped_json, @created_at)`,
  ).run(row);
  return checkpointOf(row);
}

/** A session's checkpoints, oldest first. */
export function listCheckpoints(db: Db, sessionId: string): StoredCheckpoint[] {
  const rows = db.prepare('SELECT * FROM checkpoints WHERE session_id = ? ORDER BY created_at, rowid').all(sessionId) as CheckpointRow[];
  return rows.map(checkpointOf);
}

/** One checkpoint of a session, or undefined. */
export function getCheckpoint(db: Db, sessionId: string, id: string): StoredCheckpoint | undefined {
  const r = db.prepare('SELECT * FROM checkpoints WHERE session_id = ? AND id = ?').get(sessionId, id) as CheckpointRow | undefined;
  return r ? checkpointOf(r) : undefined;
}

/** Whether a turn checkpoint was already taken for this user message (one per turn). */
export function hasTurnCheckpoint(db: Db, sessionId: string, messageId: string): boolean {
  return !!db.prepare("SELECT 1 FROM checkpoints WHERE session_id = ? AND message_id = ? AND kind = 'turn'").get(sessionId, messageId);
}

interface BranchRow {
  id: string;
  from_message_id: string;
  messages_json: string;
  message_count: number;
  preview: string;
  created_at: number;
}

function branchOf(r: BranchRow): BranchView {
  return { id: r.id, createdAt: r.created_at, fromMessageId: r.from_message_id, messageCount: r.message_count, preview: r.preview };
}

/** Keep messages a rewind took out as a branch of the session; returns it. */
export function addBranch(db: Db, sessionId: string, fromMessageId: string, messages: readonly ClampMessage[], preview: string): BranchView {
  const row: BranchRow = { id: newId(), from_message_id: fromMessageId, messages_json: JSON.stringify(messages), message_count: messages.length, preview, created_at: stamp() };
  db.prepare(
    'INSERT INTO branches (id, session_id, from_message_id, messages_json, message_count, preview, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(row.id, sessionId, row.from_message_id, row.messages_json, row.message_count, row.preview, row.created_at);
  return branchOf(row);
}

/** A session's branches, newest first. */
export function listBranches(db: Db, sessionId: string): BranchView[] {
  const rows = db.prepare('SELECT * FROM branches WHERE session_id = ? ORDER BY created_at DESC, rowid DESC').all(sessionId) as BranchRow[];
  return rows.map(branchOf);
}

/** One branch with its messages, or undefined. */
export function getBranch(db: Db, sessionId: string, id: string): { branch: BranchView; messages: ClampMessage[] } | undefined {
  const r = db.prepare('SELECT * FROM branches WHERE session_id = ? AND id = ?').get(sessionId, id) as BranchRow | undefined;
  return r ? { branch: branchOf(r), messages: JSON.parse(r.messages_json) as ClampMessage[] } : undefined;
}

/** Approvals still pending for calls a rewind took out of the conversation: nothing can answer them any more. */
export function retirePendingApprovals(db: Db, sessionId: string, toolCallIds: readonly string[]): number {
  const stmt = db.prepare("UPDATE approvals SET status = 'consumed' WHERE session_id = ? AND tool_call_id = ? AND status = 'pending'");
  let n = 0;
  for (const id of toolCallIds) n += stmt.run(sessionId, id).changes;
  return n;
}
