import { BUDGET } from '@/lib/contract/budget';
import { approvalAnswerBody, type ApprovalAnswerResult } from '@/lib/contract/rest';
import { answerToolCall } from '@/lib/server/approvals';
import { routeId } from '@/lib/server/http';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The person's answer to a call that waits for approval (ApprovalAnswerBody): { approval }; 409 with the earlier answer when it was answered already. */
export const POST = route({ body: approvalAnswerBody, maxBytes: BUDGET.APPROVAL_BODY_MAX_BYTES }, (c): ApprovalAnswerResult => {
  // the ids are checked after the body, as this route always has
  const sessionId = routeId(c.params.id, 'Session');
  // the rule an answer saves is the session's own workspace's
  return { approval: answerToolCall(c.forSession(sessionId), sessionId, routeId(c.params.toolCallId, 'Tool call'), c.body) };
});
