import type { AttachedFile, ChatBody } from './request-bodies';

/**
 * What the page sends to POST /api/chat. The body's schema is in request-bodies.ts, which the page does not load (zod
 * stays out of its bundle); its types are re-exported here.
 */
export type { AttachedFile, ChatBody } from './request-bodies';

/** The image types models take as file parts. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Whether an attached file is sent to the model as an image (else it must be text). */
export function isImageType(mediaType: string): boolean {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType.toLowerCase());
}

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
