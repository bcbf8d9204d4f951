import { z } from 'zod';

/** Ids the page sends: the session's and the messages' (the SDK's and the store's are short). */
const id = z.string().min(1).max(200);

/**
 * The body of POST /api/chat, exactly what the server uses: a user message (its id and text), or a
 * continuation after the person answered approvals (the assistant message's id). The answers
 * themselves went to the approvals route and are read from the store; the server holds the
 * conversation, so nothing else of it is sent back.
 */
export const chatBodySchema = z
  .strictObject({
    sessionId: id,
    /** a user message: the page's id for it and its text */
    message: z.strictObject({ id, text: z.string() }).optional(),
    /** resume the latest assistant message, whose pending approvals have been answered */
    continue: z.strictObject({ messageId: id }).optional(),
  })
  .refine((b) => (b.message === undefined) !== (b.continue === undefined), {
    message: 'send either "message" ({ id, text }: a user message) or "continue" ({ messageId }: after answering approvals), not both',
  });
export type ChatBody = z.infer<typeof chatBodySchema>;

/** What the page's chat transport knows of the message it sends. */
interface OutgoingMessage {
  id: string;
  role: string;
  parts: ReadonlyArray<{ type: string; text?: unknown }>;
}

/**
 * The body the page sends for the conversation's latest message: a user message's text, or, for an
 * assistant message (the SDK resends it once every approval has an answer), a continuation by id.
 */
export function chatRequestBody(sessionId: string, last: OutgoingMessage): ChatBody {
  if (last.role !== 'user') return { sessionId, continue: { messageId: last.id } };
  const text = last.parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  return { sessionId, message: { id: last.id, text } };
}
