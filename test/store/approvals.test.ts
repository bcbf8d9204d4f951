import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalInfo } from '../../lib/contract/protocol';
import { closeDb, openDb, type Db } from '../../lib/store/db';
import { answerApproval, ApprovalAnsweredError, getApproval, getByToolCallId, listPending, markConsumed, recordPending } from '../../lib/store/approvals';
import { createSession } from '../../lib/store/sessions';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let db: Db;
let sessionId: string;

const info: ApprovalInfo = {
  toolCallId: 'c1',
  approvalId: 'ap1',
  toolName: 'run_command',
  summary: 'npm test && git push --force',
  subcommands: ['npm test', 'git push --force'],
  decision: { action: 'ask', reason: 'force push rewrites history', tier: 2 },
};

function pending(n: number, extra: Partial<Parameters<typeof recordPending>[1]> = {}) {
  return recordPending(db, { approvalId: `ap${n}`, sessionId, toolCallId: `c${n}`, toolName: 'run_command', input: { command: `cmd ${n}` }, ...extra });
}

beforeEach(() => {
  ws = tempWorkspace('clamp-approvals-');
  db = openDb(ws.dataDir);
  sessionId = createSession(db, { workspace: ws.workspace }).id;
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

describe('approvals', () => {
  it('records a pending approval with its input and info, idempotently per tool call', () => {
    const a = pending(1, { info });
    expect(a).toMatchObject({
      approvalId: 'ap1',
      sessionId,
      toolCallId: 'c1',
      toolName: 'run_command',
      input: { command: 'cmd 1' },
      info,
      status: 'pending',
      answer: null,
      editedCommand: null,
      reason: null,
      answeredAt: null,
    });
    expect(pending(1, { approvalId: 'ap1-again', input: { command: 'other' } })).toEqual(a);
    expect(getApproval(db, 'ap1-again')).toBeUndefined();
    expect(getByToolCallId(db, sessionId, 'c1')).toEqual(a);
    expect(getByToolCallId(db, 'other-session', 'c1')).toBeUndefined();
  });

  it('refuses an approval id already used by another tool call, and an unknown session', () => {
    pending(1);
    expect(() => recordPending(db, { approvalId: 'ap1', sessionId, toolCallId: 'c9', toolName: 'x', input: {} })).toThrow(
      'Approval id ap1 is already used by another tool call.',
    );
    expect(() => recordPending(db, { approvalId: 'z', sessionId: 'nope', toolCallId: 'c', toolName: 'x', input: {} })).toThrow(
      'Session nope not found; cannot record an approval for it.',
    );
  });

  it('lists a session\'s pending approvals oldest first, and survives a restart', () => {
    pending(1);
    pending(2);
    pending(3);
    answerApproval(db, sessionId, 'ap2', { answer: 'once' });
    closeDb(ws.dataDir);
    db = openDb(ws.dataDir);
    expect(listPending(db, sessionId).map((a) => a.approvalId)).toEqual(['ap1', 'ap3']);
    // a pending approval asked before the restart can still be answered after it
    expect(answerApproval(db, sessionId, 'ap1', { answer: 'session' })).toMatchObject({ status: 'answered', answer: 'session' });
  });

  it('answers once: a second answer is a conflict that names the first', () => {
    pending(1);
    const a = answerApproval(db, sessionId, 'ap1', { answer: 'always' });
    expect(a).toMatchObject({ status: 'answered', answer: 'always' });
    expect(a.answeredAt).toBeGreaterThanOrEqual(a.createdAt);
    let err: unknown;
    try {
      answerApproval(db, sessionId, 'ap1', { answer: 'deny' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApprovalAnsweredError);
    expect(err).toMatchObject({ code: 'conflict', message: 'Approval ap1 was already answered (always). Reload the session to see its current state.' });
    expect(getApproval(db, 'ap1')?.answer).toBe('always');
  });

  it('keeps the edited command for edit and the reason for deny, and nothing else', () => {
    pending(1);
    pending(2);
    pending(3);
    expect(answerApproval(db, sessionId, 'ap1', { answer: 'edit', editedCommand: 'npm test -- --run' })).toMatchObject({
      answer: 'edit',
      editedCommand: 'npm test -- --run',
      reason: null,
    });
    expect(answerApproval(db, sessionId, 'ap2', { answer: 'deny', reason: '  not now ' })).toMatchObject({ answer: 'deny', reason: 'not now', editedCommand: null });
    expect(answerApproval(db, sessionId, 'ap3', { answer: 'once', editedCommand: 'x', reason: 'y' })).toMatchObject({ editedCommand: null, reason: null });
  });

  it('refuses an edit without a command, an unknown approval, and another session\'s approval', () => {
    pending(1);
    expect(() => answerApproval(db, sessionId, 'ap1', { answer: 'edit', editedCommand: ' ' })).toThrow(
      'An "edit" answer needs the edited command in editedCommand.',
    );
    expect(getApproval(db, 'ap1')?.status).toBe('pending');
    expect(() => answerApproval(db, sessionId, 'nope', { answer: 'once' })).toThrow(
      'Approval nope not found in this session. Reload the session to see what is pending.',
    );
    const other = createSession(db, { workspace: ws.workspace }).id;
    expect(() => answerApproval(db, other, 'ap1', { answer: 'once' })).toThrow(expect.objectContaining({ code: 'not-found' }));
    expect(getApproval(db, 'ap1')?.status).toBe('pending');
  });

  it('marks an answered approval consumed once; a pending one cannot be consumed', () => {
    pending(1);
    expect(() => markConsumed(db, 'ap1')).toThrow('Approval ap1 has not been answered yet.');
    answerApproval(db, sessionId, 'ap1', { answer: 'once' });
    expect(markConsumed(db, 'ap1')).toBe(true);
    expect(markConsumed(db, 'ap1')).toBe(false);
    expect(getApproval(db, 'ap1')?.status).toBe('consumed');
    expect(() => answerApproval(db, sessionId, 'ap1', { answer: 'deny' })).toThrow(ApprovalAnsweredError);
    expect(() => markConsumed(db, 'nope')).toThrow('Approval nope not found.');
  });
});
