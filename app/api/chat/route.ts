import { chatBodySchema } from '@/lib/agent/chat-request';
import { handleChat } from '@/lib/server/chat';
import { errorResponse, parseJson, serverConfig } from '@/lib/server/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const CHAT_BODY_MAX_BYTES = 2 * 1024 * 1024;

export async function POST(req: Request) {
  try {
    const body = await parseJson(req, chatBodySchema, CHAT_BODY_MAX_BYTES);
    return await handleChat(serverConfig(), body, req.signal);
  } catch (err) {
    return errorResponse(err);
  }
}
