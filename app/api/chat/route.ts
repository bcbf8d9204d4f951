import { BUDGET } from '@/lib/contract/budget';
import { chatBodySchema } from '@/lib/contract/request-bodies';
import { handleChat } from '@/lib/server/chat';
import { capTextBody } from '@/lib/server/chat-body-read';
import { parseJson } from '@/lib/server/http';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Run a turn of a session (ChatBody): the UI message stream. */
export const POST = route({}, async (c) => {
  // a body without images is held to CHAT_BODY_MAX_BYTES; one with images to the larger cap
  const checked = await capTextBody(c.req);
  const body = await parseJson(checked, chatBodySchema, BUDGET.CHAT_BODY_WITH_IMAGES_MAX_BYTES);
  // the turn runs in the session's own workspace, whatever else the request names
  return handleChat(c.forSession(body.sessionId), body, c.req.signal);
});
