import { describe, expect, it } from 'vitest';
import { ChatRequestError, mergeIncoming } from '../../lib/agent/chat-request';
import type { ClampMessage } from '../../lib/contract/protocol';

const user = (id: string, text = 'go'): ClampMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const assistant = (id: string, parts: unknown[]): ClampMessage => ({ id, role: 'assistant', parts: [{ type: 'step-start' }, ...parts] as ClampMessage['parts'] });
const text = (t: string, state: 'done' | 'streaming' = 'done') => ({ type: 'text', text: t, state });
const call = (id: string, state: string, extra: object = {}) => ({ type: 'tool-read_file', toolCallId: id, state, input: { path: 'a' }, ...extra });
const notice = { type: 'data-notice', id: 'provider-error', data: { level: 'error', message: 'The server failed.', next: 'Retry.' } };
const none = () => undefined;

function refusal(f: () => unknown): ChatRequestError {
  try {
    f();
  } catch (err) {
    if (err instanceof ChatRequestError) return err;
    throw err;
  }
  throw new Error('it was not refused');
}

describe('Retry after a failed turn', () => {
  it('the latest user message sent again resumes its turn when the turn was cut short, and nothing is added', () => {
    // failed before the model answered anything
    const alone = [user('u0'), assistant('a0', [text('done')]), user('u1')];
    expect(mergeIncoming(alone, { message: { id: 'u1', text: 'go' } }, none)).toBe(alone);
    // failed after a call's result, with the error notice the turn left
    const afterCall = [user('u1'), assistant('a1', [text('Reading.'), call('c1', 'output-available', { output: { status: 'ok', output: 'x' } }), notice])];
    expect(mergeIncoming(afterCall, { message: { id: 'u1', text: 'go' } }, none)).toBe(afterCall);
    // failed in the middle of the model's text
    const midText = [user('u1'), assistant('a1', [text('I will', 'streaming'), notice])];
    expect(mergeIncoming(midText, { message: { id: 'u1', text: 'go' } }, none)).toBe(midText);
  });

  it('a continuation with no new answer resumes a turn cut short after a result', () => {
    const stored = [user('u1'), assistant('a1', [call('c1', 'output-error', { errorText: 'Stopped' }), notice])];
    expect(mergeIncoming(stored, { continue: { messageId: 'a1' } }, none)).toBe(stored);
  });

  it('refuses to redo a finished turn, a call still waiting and an older message', () => {
    const done = [user('u1'), assistant('a1', [call('c1', 'output-available', { output: { status: 'ok', output: 'x' } }), text('All done.')])];
    const again = refusal(() => mergeIncoming(done, { message: { id: 'u1', text: 'go' } }, none));
    expect(again.status).toBe(409);
    expect(again.message).toBe('Message u1 was already sent and its turn has ended. Reload the page to see the conversation as stored.');
    expect(refusal(() => mergeIncoming(done, { continue: { messageId: 'a1' } }, none)).message).toMatch(/^The turn of this message has ended: there is nothing to continue\./);

    const waiting = [user('u1'), assistant('a1', [call('c1', 'approval-requested', { approval: { id: 'ap1' } })])];
    expect(refusal(() => mergeIncoming(waiting, { continue: { messageId: 'a1' } }, none)).message).toMatch(/No pending approval of this message has been answered/);
    expect(refusal(() => mergeIncoming(waiting, { message: { id: 'u1', text: 'go' } }, none)).status).toBe(409);

    const older = [user('u0'), assistant('a0', [text('ok')]), user('u1')];
    expect(refusal(() => mergeIncoming(older, { message: { id: 'u0', text: 'go' } }, none)).message).toBe('Message u0 was already sent. Reload the page to see the conversation as stored.');
  });
});
