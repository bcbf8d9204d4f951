import type { ApprovalAnswerBody, StoredApproval } from '../contract/protocol';
import { rulePatterns } from '../contract/rule-patterns';
import { openDb } from '../store/db';
import { answerApproval, getByToolCallId } from '../store/approvals';
import { addRule } from '../store/rules';
import { requireSession } from '../store/sessions';
import { HttpError, type ServerConfig } from './http';
import { wakeWaiters } from '../agent/waits';
import { newLimitProblem } from '../contract/limits';

/**
 * Record a person's answer to a pending call (by tool call id) and save the rule it implies:
 * "this session" and "always" save the safety policy's rule key(s); opaque commands cannot be saved.
 * Throws HttpError / StoreError (404 unknown, 409 already answered, 400 an answer that cannot apply).
 */
export function answerToolCall(cfg: ServerConfig, sessionId: string, toolCallId: string, body: ApprovalAnswerBody): StoredApproval {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  const stored = getByToolCallId(db, sessionId, toolCallId);
  if (!stored) throw new HttpError(404, `No approval is pending for tool call ${toolCallId} in this session. Reload the page.`);
  if (body.answer === 'edit' && typeof (stored.input as { command?: unknown })?.command !== 'string') {
    throw new HttpError(400, `Only commands can be edited before approval; ${stored.toolName} cannot. Approve or deny it.`);
  }
  if (body.network && !stored.info?.command) {
    throw new HttpError(400, `"Allow network" applies to commands only; ${stored.toolName} does not reach the network. Approve it without.`);
  }
  if (body.network && body.answer === 'deny') throw new HttpError(400, '"Allow network" goes with an approval, not a denial.');
  const question = !!stored.info?.question;
  if (question && body.answer !== 'once' && body.answer !== 'deny') throw new HttpError(400, 'A question is answered with a reply (answer "once" and reply) or declined (answer "deny").');
  if (question && body.answer === 'once' && !body.reply?.trim()) throw new HttpError(400, 'The answer to the question is empty. Type an answer or pick a choice.');
  // a spending limit is continued with a new limit above what is used
  const limit = stored.info?.question?.limit;
  const limitProblem = limit && body.answer === 'once' ? newLimitProblem(limit, body.reply) : null;
  if (limitProblem) throw new HttpError(400, limitProblem);
  if (!question && body.reply !== undefined) throw new HttpError(400, `A reply answers a question (ask_user); ${stored.toolName} is approved or denied.`);
  // a subagent's "this session" rule belongs to the session the person works in: its parent
  const ruleSession = requireSession(db, sessionId).parentId ?? sessionId;
  let patterns: string[] | undefined;
  if (body.answer === 'session' || body.answer === 'always') {
    patterns = rulePatterns(stored.info);
    if (!patterns) {
      throw new HttpError(400, 'This call cannot be saved as a rule (Clamp cannot judge what it would run). Approve it once instead.');
    }
  }
  const result = db.transaction(() => {
    const answered = answerApproval(db, sessionId, stored.approvalId, body);
    for (const pattern of patterns ?? []) {
      addRule(db, { workspace: cfg.workspace, sessionId: body.answer === 'session' ? ruleSession : null, tool: stored.toolName, pattern, action: 'allow' });
    }
    return answered;
  })();
  // a call waiting while its turn runs (a subagent's, ask_user) resumes now
  wakeWaiters(sessionId, toolCallId);
  return result;
}
