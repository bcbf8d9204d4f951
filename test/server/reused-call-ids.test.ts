/**
 * A model server that numbers tool calls afresh in every answer (`call_0`, `call_1` … each time, as some
 * OpenAI-compatible servers do): every call of a session is still its own call. Driven over HTTP as the
 * page drives it: the chat stream names the call waiting for approval, the approvals route answers it,
 * the continuation runs it. The model still reads the ids it wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, stopBed, type RunningClamp } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

const write = (file: string) => ({ toolCalls: [{ name: 'write_file', args: { path: file, content: `${file}\n` }, id: 'call_0' }] });

beforeAll(async () => {
  ws = tempWorkspace('clamp-call-ids-');
  // one turn asks twice (both calls in one assistant message), the next turn asks once more: every call is call_0
  fake = await startFakeOpenAI([write('a.txt'), write('b.txt'), { text: 'Wrote a and b.' }, write('c.txt'), { text: 'Wrote c.' }]);
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'default' });
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

type Chunk = Record<string, unknown>;

/** The call a stream left waiting for approval (the page reads it from the same chunk). */
function waiting(chunks: Chunk[]): string {
  const asks = chunks.filter((c) => c.type === 'tool-approval-request');
  expect(asks, JSON.stringify(chunks.filter((c) => c.type === 'error' || c.type === 'data-notice'))).toHaveLength(1);
  return asks[0]!.toolCallId as string;
}

async function lastAssistantId(sessionId: string): Promise<string> {
  const detail = (await (await clamp.api(`/api/sessions/${sessionId}`)).json()) as { messages: Array<{ id: string; role: string }> };
  return detail.messages.at(-1)!.id;
}

async function pendingOf(sessionId: string): Promise<string[]> {
  const detail = (await (await clamp.api(`/api/sessions/${sessionId}`)).json()) as { pendingApprovals: Array<{ toolCallId: string }> };
  return detail.pendingApprovals.map((a) => a.toolCallId);
}

describe('a server that calls every tool call call_0', () => {
  it('asks for each call, runs each once approved, refuses a stale answer, and the model reads its own ids', { timeout: 180_000 }, async () => {
    const created = await clamp.api('/api/sessions', { json: {} });
    const sessionId = ((await created.json()) as { session: { id: string } }).session.id;
    const chat = (body: object) => clamp.api('/api/chat', { json: { sessionId, ...body } });
    const answer = (toolCallId: string, body: object) => clamp.api(`/api/sessions/${sessionId}/approvals/${encodeURIComponent(toolCallId)}`, { json: body });

    // 1. the first call waits; approved, it runs
    const first = waiting(await readChunks(await chat({ message: { id: 'u-1', text: 'write a and b' } })));
    expect(await pendingOf(sessionId)).toEqual([first]);
    expect((await answer(first, { answer: 'once' })).status).toBe(200);
    const c1 = await readChunks(await chat({ continue: { messageId: await lastAssistantId(sessionId) } }));
    expect(ws.read('a.txt')).toBe('a.txt\n');

    // 2. the model's next call in the same turn is call_0 again: a call of its own, waiting for its own answer
    const second = waiting(c1);
    expect(second).not.toBe(first);
    expect(await pendingOf(sessionId)).toEqual([second]);
    // the answer to the first call, sent again (a stale tab), is refused and does not answer the second
    const stale = await answer(first, { answer: 'deny' });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toMatch(/already answered/);
    expect(await pendingOf(sessionId)).toEqual([second]);
    expect((await answer(second, { answer: 'once' })).status).toBe(200);
    const c2 = await readChunks(await chat({ continue: { messageId: await lastAssistantId(sessionId) } }));
    expect(c2.filter((c) => c.type === 'tool-approval-request')).toEqual([]);
    expect(ws.read('b.txt')).toBe('b.txt\n');
    // the page's card of the first call still shows its own result
    const detail = (await (await clamp.api(`/api/sessions/${sessionId}`)).json()) as { messages: Array<{ role: string; parts: Array<{ type: string; toolCallId?: string; state?: string; input?: { path: string } }> }> };
    const calls = detail.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool-write_file'));
    expect(calls.map((p) => [p.toolCallId, p.input?.path, p.state])).toEqual([
      [first, 'a.txt', 'output-available'],
      [second, 'b.txt', 'output-available'],
    ]);

    // 3. a new turn: call_0 once more, asked and run
    const third = waiting(await readChunks(await chat({ message: { id: 'u-2', text: 'write c' } })));
    expect(new Set([first, second, third]).size).toBe(3);
    expect((await answer(third, { answer: 'once' })).status).toBe(200);
    const c3 = await readChunks(await chat({ continue: { messageId: await lastAssistantId(sessionId) } }));
    expect(c3.some((c) => c.type === 'tool-output-available' && c.toolCallId === third)).toBe(true);
    expect(ws.read('c.txt')).toBe('c.txt\n');
    expect(await pendingOf(sessionId)).toEqual([]);

    // the model read back the ids it wrote: every call and every result is call_0 in its requests
    const last = fake.requests.at(-1)!.body.messages;
    const sentIds = last.flatMap((m) => [...((m.tool_calls ?? []) as Array<{ id: string }>).map((t) => t.id), ...(m.tool_call_id ? [m.tool_call_id] : [])]);
    expect(sentIds).toEqual(['call_0', 'call_0', 'call_0', 'call_0', 'call_0', 'call_0']);
  });
});
