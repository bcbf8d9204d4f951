/**
 * A call written into its conversation after a restart (interrupted, or finished in a step the crash
 * kept from being saved) carries its tool's one-line summary, so its card's header reads like a live
 * card's ("run_command sleep 120 …"), not its input as JSON.
 */
import { describe, expect, it } from 'vitest';
import { withInterrupted } from '../../lib/server/write-ahead';
import type { JournaledCall } from '../../lib/store/tool-calls';
import type { ClampMessage } from '../../lib/contract/protocol';
import { callSummary } from '../../lib/agent/tool-summaries';
import { createToolRegistry } from '../../lib/dispatch/all-tools';

const call = (o: Partial<JournaledCall>): JournaledCall => ({
  sessionId: 's1',
  toolCallId: 'c1',
  messageId: 'a1',
  userMessageId: 'u1',
  toolName: 'run_command',
  input: { command: 'sleep 120' },
  stepParts: [],
  status: 'running',
  bootId: 'b',
  checkpointId: null,
  result: undefined,
  startedAt: 0,
  ...o,
});

const summaries = (messages: ClampMessage[]) =>
  messages.flatMap((m) => m.parts.filter((p) => p.type === 'data-tool-summary').map((p) => (p as { data: { toolCallId: string; summary: string } }).data));

describe('calls written in after a restart', () => {
  it('carry their tool’s summary, interrupted or finished, once', () => {
    const reg = createToolRegistry();
    const user: ClampMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go' }] };
    const done = call({ toolCallId: 'c0', toolName: 'write_file', input: { path: 'a.txt', content: 'x\n' }, status: 'done', result: { status: 'ok', output: 'Wrote a.txt', truncation: null } });
    const out = withInterrupted([user], [done, call({})], '/nonexistent');
    expect(summaries(out)).toEqual([
      // write_file's and run_command's traits open their cards
      { toolCallId: 'c0', summary: callSummary(reg, 'write_file', done.input, done.result as never)!, open: true },
      { toolCallId: 'c1', summary: callSummary(reg, 'run_command', { command: 'sleep 120' })!, open: true },
    ]);
    expect(summaries(out)[1].summary).toContain('sleep 120');
    expect(summaries(out)[1].summary).not.toMatch(/^\{/);
    // a message saved with the call's summary keeps its own
    const saved: ClampMessage = { id: 'a1', role: 'assistant', parts: [{ type: 'tool-run_command', toolCallId: 'c1', state: 'input-available', input: { command: 'sleep 120' } } as never, { type: 'data-tool-summary', id: 'summary-c1', data: { toolCallId: 'c1', summary: 'as saved' } }] };
    expect(summaries(withInterrupted([user, saved], [call({})], '/nonexistent'))).toEqual([{ toolCallId: 'c1', summary: 'as saved' }]);
  });
});
