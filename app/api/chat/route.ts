import { handleChat } from '@/lib/server/chat';
import { readChatBody } from '@/lib/server/chat-body-read';
import { errorResponse, serverConfig } from '@/lib/server/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(req: Request) {
  try {
    const body = await readChatBody(req);
    return await handleChat(serverConfig(), body, req.signal);
  } catch (err) {
    return errorResponse(err);
  }
}
