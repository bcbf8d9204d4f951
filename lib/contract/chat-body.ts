import { z } from 'zod';
import { BUDGET } from './budget';

/** Ids the page sends: the session's and the messages' (the SDK's and the store's are short). */
const id = z.string().min(1).max(200);

/** A file the person attached: an image, or a text file (its bytes as a data: URL either way). */
export const attachedFileSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  mediaType: z.string().trim().min(1).max(200),
  /** `data:<type>;base64,…`; the server decodes it and checks the size */
  url: z.string().startsWith('data:', { message: 'must be a data: URL (the file\'s bytes, base64)' }),
});
export type AttachedFile = z.infer<typeof attachedFileSchema>;

/** The image types models take as file parts. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Whether an attached file is sent to the model as an image (else it must be text). */
export function isImageType(mediaType: string): boolean {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType.toLowerCase());
}

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
    message: z
      .strictObject({
        id,
        text: z.string(),
        /** images and text files attached (paste, drop, the attach button) */
        files: z.array(attachedFileSchema).max(BUDGET.ATTACH_IMAGES_MAX_COUNT + BUDGET.ATTACH_TEXT_FILES_MAX_COUNT).optional(),
        /** sent as /<skill> [args]: the model is asked to load the skill */
        skill: z.strictObject({ name: z.string().trim().min(1).max(200), args: z.string().max(BUDGET.SKILL_ARGS_MAX_BYTES) }).optional(),
        /** sent as a command from a file (the text is its expansion): its allowed-tools and model hold for the turn */
        command: z.strictObject({ name: z.string().trim().min(1).max(200), args: z.string().max(BUDGET.SKILL_ARGS_MAX_BYTES) }).optional(),
      })
      .optional(),
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
  parts: ReadonlyArray<{ type: string; text?: unknown; mediaType?: unknown; url?: unknown; filename?: unknown; data?: unknown }>;
}

/**
 * The body the page sends for the conversation's latest message: a user message's text, or, for an
 * assistant message (the SDK resends it once every approval has an answer), a continuation by id.
 */
export function chatRequestBody(sessionId: string, last: OutgoingMessage): ChatBody {
  if (last.role !== 'user') return { sessionId, continue: { messageId: last.id } };
  const text = last.parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  const files: AttachedFile[] = [];
  let skill: { name: string; args: string } | undefined;
  let command: { name: string; args: string } | undefined;
  for (const p of last.parts) {
    if (p.type === 'file' && typeof p.url === 'string' && typeof p.mediaType === 'string') {
      files.push({ name: typeof p.filename === 'string' && p.filename ? p.filename : 'attachment', mediaType: p.mediaType, url: p.url });
    }
    if (p.type === 'data-skill-request' && p.data && typeof p.data === 'object') skill = p.data as { name: string; args: string };
    if (p.type === 'data-file-command' && p.data && typeof p.data === 'object') {
      const d = p.data as { name: string; args: string };
      command = { name: d.name, args: d.args };
    }
  }
  return { sessionId, message: { id: last.id, text, ...(files.length ? { files } : {}), ...(skill ? { skill } : {}), ...(command ? { command } : {}) } };
}
