import { z } from 'zod';
import type { ClampMessage } from '../contract/protocol';
import type { RecordedAnswer } from './host';

/** The chat endpoint's body: the session and the one message the page adds (a user message, or the answered assistant message). */
export const chatBodySchema = z.object({
  sessionId: z.string().min(1),
  message: z.object({
    id: z.string().min(1),
    role: z.enum(['user', 'assistant']),
    parts: z.array(z.looseObject({ type: z.string() })),
    metadata: z.unknown().optional(),
  }),
});
export type ChatBody = z.infer<typeof chatBodySchema>;

export class ChatRequestError extends Error {
  constructor(
    message: string,
    public readonly status: 400 | 404 | 409,
  ) {
    super(message);
  }
}

/** The denial text the model reads (the person's reason, if any, inside an instruction). */
export function denialInstruction(reason?: string | null): string {
  const why = reason && reason.trim() ? reason.trim() : 'no reason given';
  return `The user denied this call: ${why}. Do not retry it; ask the user what to do instead.`;
}

function isToolPart(p: { type: string }): p is { type: string; toolCallId: string; state: string; approval?: { id: string; approved?: boolean; reason?: string } } {
  return (p.type.startsWith('tool-') || p.type === 'dynamic-tool') && 'toolCallId' in p;
}

/**
 * Build the conversation for a turn from what is stored, never from what the page claims:
 * - a user message is appended (its text parts only);
 * - an assistant message must be the last stored one, and only its pending approvals change,
 *   each to the answer recorded on the server (a forged or replayed answer has nothing to match).
 * Throws ChatRequestError with a status and the next step.
 */
export function mergeIncoming(stored: ClampMessage[], incoming: ChatBody['message'], answerFor: (toolCallId: string) => RecordedAnswer | undefined): ClampMessage[] {
  if (incoming.role === 'user') {
    if (stored.some((m) => m.id === incoming.id)) throw new ChatRequestError(`Message ${incoming.id} was already sent.`, 409);
    const parts = incoming.parts
      .filter((p) => p.type === 'text' && typeof (p as { text?: unknown }).text === 'string')
      .map((p) => ({ type: 'text' as const, text: (p as unknown as { text: string }).text }));
    if (parts.length === 0 || parts.every((p) => p.text.trim() === '')) throw new ChatRequestError('The message is empty. Type something to send.', 400);
    return [...stored, { id: incoming.id, role: 'user', parts, metadata: { createdAt: Date.now() } }];
  }
  const last = stored[stored.length - 1];
  if (!last || last.id !== incoming.id || last.role !== 'assistant') {
    throw new ChatRequestError('Only the latest assistant message can be continued. Reload the page to see the current conversation.', 409);
  }
  let answered = 0;
  const parts = last.parts.map((p) => {
    if (!isToolPart(p) || p.state !== 'approval-requested' || !p.approval) return p;
    const a = answerFor(p.toolCallId);
    if (!a) return p;
    answered++;
    const approved = a.answer !== 'deny';
    return {
      ...p,
      state: 'approval-responded',
      approval: { ...p.approval, approved, ...(approved ? {} : { reason: denialInstruction(a.reason) }) },
    } as unknown as typeof p;
  });
  if (answered === 0) throw new ChatRequestError('No pending approval of this message has been answered. Answer it in the approval bar first.', 409);
  return [...stored.slice(0, -1), { ...last, parts } as ClampMessage];
}
