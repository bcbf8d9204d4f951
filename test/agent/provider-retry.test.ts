/**
 * A model server that fails a request is asked again after a wait, and the page hears of each retry
 * before the wait: "retrying (1/2) in 2 s…" as a notice of the turn, updated in place to say how it
 * ended. A stopped server (connection refused) and a busy one (503 with retry-after) alike.
 */
import { APICallError, type UIMessageChunk } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../lib/agent/run-turn';
import { retryDelayMs } from '../../lib/agent/provider-retry';
import { createRegistry } from '../../lib/dispatch/registry';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { mockStep, OK_TEXT, peekTool, scriptedStatus, TEST_APPROVAL_SECRET } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const URL_ = 'http://127.0.0.1:9/v1/chat/completions';
const refused = () =>
  new APICallError({ message: 'Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9', url: URL_, requestBodyValues: {}, isRetryable: true, cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });

type Notice = { id: string; data: { level: string; message: string } };

/** One turn whose model fails `failures` times before answering; the chunks as they came, and the notices each 2nd, 3rd… request found already sent. */
async function flakyTurn(failures: number, error: () => Error = refused) {
  const chunks: UIMessageChunk[] = [];
  const noticesAtCall: string[][] = [];
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      noticesAtCall.push(chunks.filter((c) => c.type === 'data-notice').map((c) => (c as unknown as Notice).data.message));
      if (++calls <= failures) throw error();
      return mockStep(OK_TEXT, 'stop');
    },
  });
  const { host } = memoryHost(ws.workspace, ws.dataDir);
  const stream = runTurn({
    host,
    reg: createRegistry([peekTool()]),
    model,
    status: scriptedStatus({ model: 'fake' }),
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] } as ClampMessage],
    signal: new AbortController().signal,
    approvalSecret: TEST_APPROVAL_SECRET,
    maxRetries: 2,
    retryFirstDelayMs: 50,
    save: () => undefined,
  });
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(structuredClone(r.value));
  const notices = chunks.filter((c) => c.type === 'data-notice') as unknown as Notice[];
  return { chunks, notices, calls, noticesAtCall };
}

describe('retries of a failing model server, shown while they wait', () => {
  it('a stopped server: each retry is announced before its wait; the answer after the second one says so', async () => {
    const r = await flakyTurn(2);
    expect(r.calls).toBe(3);
    const retry = r.notices.filter((n) => n.id.startsWith('provider-retry-'));
    expect(new Set(retry.map((n) => n.id)).size).toBe(1);
    expect(retry.map((n) => [n.data.level, n.data.message])).toEqual([
      ['warning', `Could not reach fake at ${URL_} (ECONNREFUSED): retrying (1/2) in 0 s…`],
      ['warning', `Could not reach fake at ${URL_} (ECONNREFUSED): retrying (2/2) in 0 s…`],
      ['info', 'fake answered after 2 retries.'],
    ]);
    // the page had each notice before the request it announced went out
    expect(r.noticesAtCall[1]).toEqual([retry[0].data.message]);
    expect(r.noticesAtCall[2]).toEqual([retry[0].data.message, retry[1].data.message]);
    expect(r.chunks.some((c) => c.type === 'text-delta' && c.delta === 'ok')).toBe(true);
    expect(r.notices.some((n) => n.data.level === 'error')).toBe(false);
    // the notices come after the message's start, so the page keeps one assistant message
    expect(r.chunks.findIndex((c) => c.type === 'start')).toBeLessThan(r.chunks.findIndex((c) => c.type === 'data-notice'));
  });

  it('a server that never answers: two announced retries, then the error with its next step', async () => {
    const r = await flakyTurn(5);
    expect(r.calls).toBe(3);
    const retry = r.notices.filter((n) => n.id.startsWith('provider-retry-'));
    expect(retry.map((n) => n.data.message)).toEqual([
      `Could not reach fake at ${URL_} (ECONNREFUSED): retrying (1/2) in 0 s…`,
      `Could not reach fake at ${URL_} (ECONNREFUSED): retrying (2/2) in 0 s…`,
      'fake did not answer after 2 retries.',
    ]);
    const error = r.notices.find((n) => n.id === 'provider-error');
    expect(error?.data).toMatchObject({ level: 'error', message: `Could not reach fake at ${URL_} (ECONNREFUSED).` });
  });

  it('an error no retry can mend (a refused key) is not retried', async () => {
    const r = await flakyTurn(5, () => new APICallError({ message: 'Incorrect API key', url: URL_, requestBodyValues: {}, statusCode: 401, isRetryable: false }));
    expect(r.calls).toBe(1);
    expect(r.notices.filter((n) => n.id.startsWith('provider-retry-'))).toEqual([]);
  });

  it('a busy server’s retry-after is waited when it is under a minute', () => {
    const busy = (headers: Record<string, string>) => new APICallError({ message: 'busy', url: URL_, requestBodyValues: {}, statusCode: 503, responseHeaders: headers, isRetryable: true });
    expect(retryDelayMs(busy({ 'retry-after': '3' }), 2000)).toBe(3000);
    expect(retryDelayMs(busy({ 'retry-after-ms': '250' }), 2000)).toBe(250);
    expect(retryDelayMs(busy({ 'retry-after': '600' }), 2000)).toBe(2000);
    expect(retryDelayMs(refused(), 4000)).toBe(4000);
  });
});
