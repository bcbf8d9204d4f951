import { describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ClampMessage } from '../../lib/contract/protocol';
import type { DiagnosticsMeta, LateDiagnostics } from '../../lib/contract/diagnostics';
import { rowsOf } from '../../components/chat-rows';
import { RowView } from '../../components/message-view';
import { waitingLateIds, withArrivals } from '../../components/late-diagnostics';

/**
 * A card whose diagnostics were pending shows them when their late report is in the conversation — matched by
 * the pending result's lateId, wherever the report was stored — and the idle page knows which it still waits for.
 */
const pending = (lateId: string): DiagnosticsMeta => ({ servers: ['typescript'], state: 'pending', newErrors: [], shown: 0, preexisting: 0, note: 'it is still starting', durationMs: 1500, lateId });
const writeCall = (toolCallId: string, diagnostics: DiagnosticsMeta) => ({
  type: 'tool-write_file',
  toolCallId,
  state: 'output-available',
  input: { path: 'src/a.ts', content: 'x' },
  output: { status: 'ok', output: 'Created src/a.ts', truncation: null, meta: { diagnostics } },
});
const late = (lateId: string, toolCallId: string): LateDiagnostics => ({
  lateId,
  toolCallId,
  toolName: 'write_file',
  paths: ['src/a.ts'],
  diagnostics: { servers: ['typescript'], state: 'checked', newErrors: [{ path: 'src/a.ts', line: 1, column: 14, severity: 'error', message: "Type 'string' is not assignable to type 'number'.", code: 2322, source: 'ts' }], shown: 1, preexisting: 0, durationMs: 5200 },
  at: 1,
});

const conversation = () =>
  [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'write it' }] },
    { id: 'a1', role: 'assistant', parts: [writeCall('call_0', pending('late-1'))] },
    { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'again' }] },
    // a server that names every call call_0: the second call is another one
    { id: 'a2', role: 'assistant', parts: [writeCall('call_0', pending('late-2'))] },
  ] as unknown as ClampMessage[];

const html = (messages: ClampMessage[], messageId: string) => {
  const row = rowsOf(messages).find((r) => r.kind === 'tool' && r.messageId === messageId)!;
  return renderToStaticMarkup(createElement(RowView, { row, cuts: new Map(), pruned: new Map(), idle: true }));
};

describe('late diagnostics on the page', () => {
  it('a pending card says "checking…"; its late report, stored in a later message, replaces it on that card only', () => {
    const before = conversation();
    expect(html(before, 'a1')).toContain('data-diagnostics="pending"');
    expect(html(before, 'a1')).toContain('checking…');
    expect(waitingLateIds(before)).toEqual(['late-1', 'late-2']);
    // the report of the first call, streamed into the second turn's message
    const after = before.map((m) => (m.id === 'a2' ? { ...m, parts: [...m.parts, { type: 'data-diagnostics', id: 'diagnostics-late-1', data: late('late-1', 'call_0') }] } : m)) as ClampMessage[];
    expect(html(after, 'a1')).toContain('data-diagnostics="checked"');
    expect(html(after, 'a1')).toContain('1 new error');
    expect(html(after, 'a1')).toContain('title="Checked by typescript in 5.2 s"');
    expect(html(after, 'a2')).toContain('data-diagnostics="pending"');
    expect(waitingLateIds(after)).toEqual(['late-2']);
  });

  it("the idle page's arrivals go to the message of their call", () => {
    const merged = withArrivals(conversation(), [late('late-2', 'call_0')]);
    expect(merged[1].parts.some((p) => p.type === 'data-diagnostics')).toBe(false);
    expect(merged[3].parts.at(-1)).toEqual({ type: 'data-diagnostics', id: 'diagnostics-late-2', data: late('late-2', 'call_0') });
    expect(waitingLateIds(merged)).toEqual(['late-1']);
    expect(html(merged, 'a2')).toContain('1 new error');
  });
});
