import { BUDGET } from '@/lib/contract/budget';
import { chatBodySchema } from '@/lib/contract/chat-body';
import { handleChat } from '@/lib/server/chat';
import { capTextBody } from '@/lib/server/chat-body-read';
import { errorResponse, parseJson, serverConfig } from '@/lib/server/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(req: Request) {
  try {
    // a body without images is held to CHAT_BODY_MAX_BYTES; one with images to the larger cap
    const checked = await capTextBody(req);
    const body = await parseJson(checked, chatBodySchema, BUDGET.CHAT_BODY_WITH_IMAGES_MAX_BYTES);
    return await handleChat(serverConfig(), body, req.signal);
  } catch (err) {
    return errorResponse(err);
  }
}
