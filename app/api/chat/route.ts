import { BUDGET } from '@/lib/contract/budget';
import { chatBodySchema } from '@/lib/contract/chat-body';
import { handleChat } from '@/lib/server/chat';
import { errorResponse, parseJson, serverConfig } from '@/lib/server/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(req: Request) {
  try {
    const body = await parseJson(req, chatBodySchema, BUDGET.CHAT_BODY_MAX_BYTES);
    return await handleChat(serverConfig(), body, req.signal);
  } catch (err) {
    return errorResponse(err);
  }
}
