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

/** Whether a message has calls still waiting for a person. */
function pendingIn(m: ClampMessage): boolean {
  return m.parts.some((p) => isToolPart(p) && p.state === 'approval-requested');
}

/** The part of a chat body that adds to the conversation: a user message, or a continuation. */
export type Incoming = Pick<ChatBody, 'message' | 'continue'>;

/** The parts the model wrote or its tools answered (not step marks, not Clamp's data parts). */
function contentParts(m: ClampMessage): ClampMessage['parts'] {
  return m.parts.filter((p) => p.type !== 'step-start' && !p.type.startsWith('data-'));
}

/**
 * Whether the turn of the conversation's end was cut short and the model still owes its next step: a
 * failure (or Stop) left nothing after the user's message, or the assistant message ends with a call's
 * result or in the middle of a text. A turn the model ended (its last step a finished text) is complete.
 */
function unfinished(stored: readonly ClampMessage[]): boolean {
  const last = stored.at(-1);
  if (!last || last.role === 'user') return !!last;
  if (last.role !== 'assistant') return false;
  const p = contentParts(last).at(-1) as { type: string; state?: string } | undefined;
  if (!p) return true;
  if (p.type === 'text' || p.type === 'reasoning') return p.state === 'streaming';
  return isToolPart(p as { type: string }) && ['output-available', 'output-error', 'output-denied', 'approval-responded'].includes(p.state ?? '');
}

/**
 * Build the conversation for a turn from what is stored, never from what the page claims:
 * - a user message is appended (its text, then its attachments);
 * - a continuation names the last stored message, an assistant one, and only its pending approvals
 *   change, each to the answer recorded on the server (a forged or replayed answer has nothing to
 *   match). A denial carries dispatch's denial text, which the model reads.
 * - Retry after a failed turn (the page sends its latest message again: the user message, or a
 *   continuation with no new answer) resumes the stored conversation when that turn was cut short;
 *   nothing that ran runs again.
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
    const at = stored.findIndex((m) => m.id === id);
    if (at >= 0) {
      // Retry: the latest user message again, its turn cut short; the turn resumes from what is stored
      const latestUser = stored.findLastIndex((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text'));
      if (at === latestUser && stored.length - at <= 2 && unfinished(stored) && !pendingIn(stored.at(-1)!)) return stored;
      throw new ChatRequestError(`Message ${id} was already sent${at === latestUser ? ' and its turn has ended' : ''}. Reload the page to see the conversation as stored.`, 409);
    }
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
  if (answered === 0) {
    if (pendingIn(last)) throw new ChatRequestError('No pending approval of this message has been answered. Answer it in the approval bar first.', 409);
    // Retry after a failure: the model continues from the stored conversation
    if (unfinished(stored)) return stored;
    throw new ChatRequestError('The turn of this message has ended: there is nothing to continue. Send a new message, or reload the page to see the conversation as stored.', 409);
  }
  return [...stored.slice(0, -1), { ...last, parts } as ClampMessage];
}
