import { BUDGET } from '../contract/budget';
import { chatBodySchema, isImageType, type ChatBody } from '../contract/chat-body';
import { HttpError, parseJsonText, readBody } from './http';

/** Whether a parsed (not yet validated) chat body attaches an image. */
function hasImage(data: unknown): boolean {
  const files = (data as { message?: { files?: unknown } } | null)?.message?.files;
  return Array.isArray(files) && files.some((f) => typeof (f as { mediaType?: unknown })?.mediaType === 'string' && isImageType((f as { mediaType: string }).mediaType));
}

/**
 * Read POST /api/chat's body: a message with images may be up to CHAT_BODY_WITH_IMAGES_MAX_BYTES, any
 * other body (text, mentions, text files, a continuation) up to CHAT_BODY_MAX_BYTES, counted on the
 * bytes received. Throws HttpError 413 past the cap that applies, 400 for a body the schema refuses.
 */
export async function readChatBody(req: Request): Promise<ChatBody> {
  const text = await readBody(req, BUDGET.CHAT_BODY_WITH_IMAGES_MAX_BYTES);
  if (Buffer.byteLength(text) > BUDGET.CHAT_BODY_MAX_BYTES) {
    let data: unknown = null;
    try {
      data = JSON.parse(text);
    } catch {
      // not JSON: refused as too big below, like any other body over the text cap
    }
    if (!hasImage(data)) throw new HttpError(413, `The request body is larger than ${BUDGET.CHAT_BODY_MAX_BYTES} bytes. Send less.`);
  }
  return parseJsonText(text, chatBodySchema);
}
