import { BUDGET } from '../contract/budget';
import { isImageType } from '../contract/chat-body';
import { HttpError, readBody } from './http';

/** Whether a parsed (not yet validated) chat body attaches an image. */
function hasImage(data: unknown): boolean {
  const files = (data as { message?: { files?: unknown } } | null)?.message?.files;
  return Array.isArray(files) && files.some((f) => typeof (f as { mediaType?: unknown })?.mediaType === 'string' && isImageType((f as { mediaType: string }).mediaType));
}

/**
 * POST /api/chat's text cap: a message with images may be up to CHAT_BODY_WITH_IMAGES_MAX_BYTES (the
 * route's parseJson cap), any other body (text, mentions, text files, a continuation) only up to
 * CHAT_BODY_MAX_BYTES, counted on the bytes received. Returns the request with its body read, for
 * parseJson; throws HttpError 413 past the cap that applies.
 */
export async function capTextBody(req: Request): Promise<Request> {
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
  return new Request(req.url, { method: 'POST', headers: req.headers, body: text, signal: req.signal });
}
