import type { ChatBody } from '../contract/chat-body';
import type { ClampMessage } from '../contract/protocol';
import { denialText } from '../dispatch/dispatch';
import type { RecordedAnswer } from './host';

export class ChatRequestError extends Error {
  constructor(
    message: string,
    public readonly status: 400 | 409,
  ) {
    super(message);
  }
}

function isToolPart(p: { type: string }): p is { type: string; toolCallId: string; state: string; approval?: { id: string; approved?: boolean; reason?: string } } {
  return (p.type.startsWith('tool-') || p.type === 'dynamic-tool') && 'toolCallId' in p;
}

/** The part of a chat body that adds to the conversation: a user message, or a continuation. */
export type Incoming = Pick<ChatBody, 'message' | 'continue'>;

/**
 * Build the conversation for a turn from what is stored, never from what the page claims:
 * - a user message is appended (its text, then its attachments);
 * - a continuation names the last stored message, an assistant one, and only its pending approvals
 *   change, each to the answer recorded on the server (a forged or replayed answer has nothing to
 *   match). A denial carries dispatch's denial text, which the model reads.
 * Throws ChatRequestError with a status and the next step.
 */
export function mergeIncoming(
  stored: ClampMessage[],
  incoming: Incoming,
  answerFor: (toolCallId: string) => RecordedAnswer | undefined,
  /** what the message carries besides its text: attachments, images, a skill request (lib/server/attach.ts) */
  extra: ClampMessage['parts'] = [],
): ClampMessage[] {
  if (incoming.message) {
    const { id, text } = incoming.message;
    if (stored.some((m) => m.id === id)) throw new ChatRequestError(`Message ${id} was already sent.`, 409);
    if (text.trim() === '' && extra.length === 0) throw new ChatRequestError('The message is empty. Type something to send.', 400);
    return [...stored, { id, role: 'user', parts: [{ type: 'text', text }, ...extra], metadata: { createdAt: Date.now() } }];
  }
  const messageId = incoming.continue?.messageId;
  const last = stored[stored.length - 1];
  if (!last || last.id !== messageId || last.role !== 'assistant') {
    throw new ChatRequestError('Only the latest assistant message can be continued. Reload the page to see the current conversation.', 409);
  }
  let answered = 0;
  const parts = last.parts.map((p) => {
    if (!isToolPart(p) || p.state !== 'approval-requested' || !p.approval) return p;
    const a = answerFor(p.toolCallId);
    if (!a) return p;
    answered++;
    const approved = a.answer !== 'deny';
    const toolName = p.type === 'dynamic-tool' ? String((p as { toolName?: unknown }).toolName) : p.type.slice('tool-'.length);
    return {
      ...p,
      state: 'approval-responded',
      approval: { ...p.approval, approved, ...(approved ? {} : { reason: denialText(toolName, { by: 'user', reason: a.reason }) }) },
    } as unknown as typeof p;
  });
  if (answered === 0) throw new ChatRequestError('No pending approval of this message has been answered. Answer it in the approval bar first.', 409);
  return [...stored.slice(0, -1), { ...last, parts } as ClampMessage];
}
