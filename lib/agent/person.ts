import type { UIMessageChunk } from 'ai';
import type { ApprovalInfo } from '../contract/protocol';
import type { AskService, LiveWait, WaitOrigin } from '../contract/subagents';
import type { AgentHost, RecordedAnswer } from './host';
import { waitForAnswer } from './waits';

/** Writes a chunk to the parent turn's stream (the page). */
export type Emit = (chunk: UIMessageChunk) => void;

/**
 * A call waits for the person while the turn runs: recorded pending with the host (it survives a reload
 * of the page, and the approvals route answers it), shown in the bar as a data-wait part, and awaited
 * until it is answered or the signal stops the turn (then its pending record is dropped).
 */
export async function awaitPerson(o: { host: AgentHost; info: ApprovalInfo; input: unknown; signal: AbortSignal; pollMs: number; emit: Emit; from?: WaitOrigin }): Promise<RecordedAnswer | 'stopped'> {
  const info: ApprovalInfo = o.from ? { ...o.info, from: o.from } : o.info;
  const wait = (state: LiveWait['state']): UIMessageChunk =>
    ({
      type: 'data-wait',
      id: `wait-${o.host.sessionId}-${info.toolCallId}`,
      data: { sessionId: o.host.sessionId, toolCallId: info.toolCallId, toolName: info.toolName, input: o.input, info, state } satisfies LiveWait,
    }) as UIMessageChunk;
  o.host.recordPending(info, o.input);
  o.emit(wait('pending'));
  const a = await waitForAnswer({ sessionId: o.host.sessionId, toolCallId: info.toolCallId, answerFor: () => o.host.answerFor(info.toolCallId), signal: o.signal, pollMs: o.pollMs });
  if (a === 'stopped') o.host.dropPending?.(info.toolCallId);
  o.emit(wait(a === 'stopped' ? 'stopped' : 'answered'));
  return a;
}

/** ask_user's capability for a turn a person follows: the question waits in the approval bar. */
export function askService(host: AgentHost, emit: Emit, pollMs: number): AskService {
  return async (q, toolCallId, signal) => {
    const info: ApprovalInfo = { toolCallId, toolName: 'ask_user', summary: q.question, decision: { action: 'ask', reason: 'a question for you' }, question: q };
    const a = await awaitPerson({ host, info, input: q, signal, pollMs, emit });
    if (a === 'stopped') return { kind: 'stopped' };
    host.markConsumed(toolCallId);
    if (a.answer === 'deny') return { kind: 'declined', ...(a.reason ? { reason: a.reason } : {}) };
    return { kind: 'answer', text: a.reply ?? '' };
  };
}
