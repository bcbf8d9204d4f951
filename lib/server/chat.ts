import { createUIMessageStreamResponse } from 'ai';
import type { ChatBody } from '../contract/chat-body';
import { json } from './http';
import { asDiskFull } from '../contract/disk-full';
import type { ServerConfig } from './http';
import { NoModelError, startSessionTurn } from './turn';
import { trackTurn } from './turn-progress';

export { isTurnRunning, stopTurn } from './turn';

/**
 * Run one chat turn for a session from the page: the turn's setup is startSessionTurn's (approvals wait
 * for the person); the UI message stream is the response. Throws HttpError for bad requests, DiskFullError when
 * the message cannot be stored.
 */
export async function handleChat(cfg: ServerConfig, body: ChatBody, requestSignal: AbortSignal): Promise<Response> {
  let stream;
  try {
    stream = await startSessionTurn(cfg, body, { signal: requestSignal });
  } catch (err) {
    if (err instanceof NoModelError) return json({ error: err.message }, 409);
    // the session's hold, the message or its attachments found no room: nothing of it is stored (a 507 naming the disk)
    throw asDiskFull(err, 'Your message', cfg.dataDir);
  }
  // the board follows the turn's steps and calls from its stream
  return createUIMessageStreamResponse({ stream: trackTurn(body.sessionId, stream) });
}
