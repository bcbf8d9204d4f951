import { BUDGET } from '@/lib/contract/budget';
import { answerToolCall } from '@/lib/server/approvals';
import { approvalAnswerBody, type ApprovalAnswerResult } from '@/lib/contract/rest';
import { errorResponse, json, parseJson, routeId, serverConfig } from '@/lib/server/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(req: Request, { params }: { params: Promise<{ id: string; toolCallId: string }> }) {
  try {
    const { id, toolCallId } = await params;
    const body = await parseJson(req, approvalAnswerBody, BUDGET.APPROVAL_BODY_MAX_BYTES);
    const approval = answerToolCall(serverConfig(), routeId(id, 'Session'), routeId(toolCallId, 'Tool call'), body);
    return json<ApprovalAnswerResult>({ approval });
  } catch (err) {
    return errorResponse(err);
  }
}
