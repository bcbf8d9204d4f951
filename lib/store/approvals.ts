import type { ApprovalAnswer, ApprovalAnswerBody, ApprovalInfo, StoredApproval } from '../contract/protocol';
import { pastSpan } from '../contract/trace';
import { stamp, StoreError, type Db } from './db';

/**
 * An answer to an approval that no longer waits: answered before, or withdrawn (a rewind took its call
 * out of the conversation). The approval route answers 409 with the approval as it stands; the answer is
 * never applied to another call.
 */
export class ApprovalAnsweredError extends StoreError {
  constructor(public readonly approval: StoredApproval) {
    super(
      approval.answer
        ? `Approval ${approval.approvalId} was already answered (${approval.answer}). Reload the session to see its current state.`
        : `Approval ${approval.approvalId} no longer waits: a rewind took its ${approval.toolName} call out of the conversation, so this answer was not applied (to it or to any other call). Reload the session to see what waits now.`,
      'conflict',
    );
    this.name = 'ApprovalAnsweredError';
  }
}

interface ApprovalRow {
  approval_id: string;
  session_id: string;
  tool_call_id: string;
  tool_name: string;
  input_json: string;
  info_json: string | null;
  status: StoredApproval['status'];
  answer: ApprovalAnswer | null;
  edited_command: string | null;
  reason: string | null;
  network: number;
  reply?: string | null;
  created_at: number;
  answered_at: number | null;
}

function toApproval(r: ApprovalRow): StoredApproval {
  return {
    approvalId: r.approval_id,
    sessionId: r.session_id,
    toolCallId: r.tool_call_id,
    toolName: r.tool_name,
    input: JSON.parse(r.input_json) as unknown,
    info: r.info_json === null ? null : (JSON.parse(r.info_json) as ApprovalInfo),
    status: r.status,
    answer: r.answer,
    editedCommand: r.edited_command,
    reason: r.reason,
    network: r.network === 1,
    reply: r.reply ?? null,
    createdAt: r.created_at,
    answeredAt: r.answered_at,
  };
}

function notFound(approvalId: string): StoreError {
  return new StoreError(`Approval ${approvalId} not found in this session. Reload the session to see what is pending.`, 'not-found');
}

export interface PendingInit {
  approvalId: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  info?: ApprovalInfo | null;
}

/**
 * Record that a tool call waits for a person. Idempotent: recording the same tool call again
 * returns the first record unchanged. Throws 'not-found' for an unknown session.
 */
export function recordPending(db: Db, init: PendingInit): StoredApproval {
  return db.transaction(() => {
    if (!db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(init.sessionId)) {
      throw new StoreError(`Session ${init.sessionId} not found; cannot record an approval for it.`, 'not-found');
    }
    db.prepare(
      `INSERT INTO approvals (approval_id, session_id, tool_call_id, tool_name, input_json, info_json, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT DO NOTHING`,
    ).run(
      init.approvalId,
      init.sessionId,
      init.toolCallId,
      init.toolName,
      JSON.stringify(init.input ?? null),
      init.info ? JSON.stringify(init.info) : null,
      stamp(),
    );
    const stored = getByToolCallId(db, init.sessionId, init.toolCallId);
    if (!stored) throw new StoreError(`Approval id ${init.approvalId} is already used by another tool call.`, 'conflict');
    return stored;
  })();
}

/** Whether a session has an approval, in any state, for this tool call id. */
export function hasApprovalFor(db: Db, sessionId: string, toolCallId: string): boolean {
  return !!db.prepare('SELECT 1 FROM approvals WHERE session_id = ? AND tool_call_id = ?').get(sessionId, toolCallId);
}

/** An approval by its id, or undefined. */
export function getApproval(db: Db, approvalId: string): StoredApproval | undefined {
  const row = db.prepare('SELECT * FROM approvals WHERE approval_id = ?').get(approvalId) as ApprovalRow | undefined;
  return row && toApproval(row);
}

/** The approval of a session's tool call, or undefined. */
export function getByToolCallId(db: Db, sessionId: string, toolCallId: string): StoredApproval | undefined {
  const row = db.prepare('SELECT * FROM approvals WHERE session_id = ? AND tool_call_id = ?').get(sessionId, toolCallId) as ApprovalRow | undefined;
  return row && toApproval(row);
}

/**
 * Answer a pending approval of a session. Only a pending approval can be answered: a second answer
 * throws ApprovalAnsweredError (409); an unknown one 'not-found'; 'edit' without a command 'invalid'.
 * The edited command is kept only for 'edit', the reason only for 'deny'.
 */
export function answerApproval(db: Db, sessionId: string, approvalId: string, body: ApprovalAnswerBody): StoredApproval {
  const edited = body.answer === 'edit' ? (body.editedCommand ?? '') : null;
  if (edited !== null && edited.trim() === '') {
    throw new StoreError('An "edit" answer needs the edited command in editedCommand.', 'invalid');
  }
  const reason = body.answer === 'deny' && body.reason?.trim() ? body.reason.trim() : null;
  // "allow network" goes with an approval, never with a denial
  const network = body.network === true && body.answer !== 'deny' ? 1 : 0;
  // ask_user's answer rides with a plain approval
  const reply = body.answer === 'once' && typeof body.reply === 'string' ? body.reply : null;
  const stored = db.transaction(() => {
    const res = db
      .prepare(
        `UPDATE approvals SET status = 'answered', answer = ?, edited_command = ?, reason = ?, network = ?, reply = ?, answered_at = ?
         WHERE approval_id = ? AND session_id = ? AND status = 'pending'`,
      )
      .run(body.answer, edited, reason, network, reply, stamp(), approvalId, sessionId);
    const stored = getApproval(db, approvalId);
    if (!stored || stored.sessionId !== sessionId) throw notFound(approvalId);
    if (res.changes === 0) throw new ApprovalAnsweredError(stored);
    return stored;
  })();
  // how long the call waited for the person, from its request to this answer (they may be days and processes apart)
  pastSpan('clamp.approval.wait', stored.createdAt, stored.answeredAt ?? Date.now(), {
    'gen_ai.conversation.id': sessionId,
    'gen_ai.tool.name': stored.toolName,
    'gen_ai.tool.call.id': stored.toolCallId,
    'clamp.approval.answer': stored.answer ?? undefined,
    'clamp.approval.wait_ms': (stored.answeredAt ?? Date.now()) - stored.createdAt,
  });
  return stored;
}

/**
 * Mark an answered approval as used by the loop, so it is not applied twice. Returns false when it
 * was already consumed; throws 'not-found' for an unknown one and 'conflict' while still pending.
 */
export function markConsumed(db: Db, approvalId: string): boolean {
  return db.transaction(() => {
    const stored = getApproval(db, approvalId);
    if (!stored) throw new StoreError(`Approval ${approvalId} not found.`, 'not-found');
    if (stored.status === 'consumed') return false;
    if (stored.status === 'pending') throw new StoreError(`Approval ${approvalId} has not been answered yet.`, 'conflict');
    db.prepare(`UPDATE approvals SET status = 'consumed' WHERE approval_id = ?`).run(approvalId);
    return true;
  })();
}

/** A session's approvals still waiting for a person, oldest first. */
export function listPending(db: Db, sessionId: string): StoredApproval[] {
  const rows = db
    .prepare(`SELECT * FROM approvals WHERE session_id = ? AND status = 'pending' ORDER BY created_at, rowid`)
    .all(sessionId) as ApprovalRow[];
  return rows.map(toApproval);
}

/** The pending approvals of a session's children (subagents), oldest first: they wait in the parent's bar. */
export function listChildrenPending(db: Db, parentId: string): StoredApproval[] {
  const rows = db
    .prepare(
      `SELECT a.* FROM approvals a JOIN sessions s ON s.id = a.session_id
       WHERE s.parent_id = ? AND a.status = 'pending' ORDER BY a.created_at, a.rowid`,
    )
    .all(parentId) as ApprovalRow[];
  return rows.map(toApproval);
}

/** Forget a session's call that still waits (it was stopped unanswered); answered ones stay. */
export function dropPending(db: Db, sessionId: string, toolCallId: string): void {
  db.prepare(`DELETE FROM approvals WHERE session_id = ? AND tool_call_id = ? AND status = 'pending'`).run(sessionId, toolCallId);
}
