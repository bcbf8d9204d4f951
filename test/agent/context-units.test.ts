import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { describeProviderError, isContextOverflow, windowFromError } from '../../lib/agent/provider-errors';
import { lookupCatalogue } from '../../lib/agent/context/catalogue';
import { clearWindowCache, discoverServerWindow } from '../../lib/agent/context/discover';
import { contextWindowFor, DEFAULT_WINDOW_TOKENS, withServerWindow } from '../../lib/agent/windows';
import { describeCall, stubText } from '../../lib/agent/context/prune';
import { contextLimits, correctionRatio } from '../../lib/agent/context/estimate';
import { costOf, sessionLedger } from '../../lib/agent/context/ledger';
import { BUDGET, budgetTable } from '../../lib/contract/budget';
import type { ClampMessage, LedgerStep, ModelStatus } from '../../lib/contract/protocol';

const apiError = (statusCode: number, responseBody: string, message = 'Bad Request') =>
  new APICallError({ message, url: 'http://x/v1/chat/completions', requestBodyValues: {}, statusCode, responseBody, isRetryable: false });

describe('context-length errors, as each server sends them', () => {
  it('recognises OpenAI/vLLM, Anthropic, llama.cpp, Ollama and LM Studio bodies, and nothing else', () => {
    const over = [
      apiError(400, JSON.stringify({ error: { message: "This model's maximum context length is 16384 tokens. However, your messages resulted in 17001 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } })),
      apiError(400, JSON.stringify({ object: 'error', message: "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion).", type: 'BadRequestError', code: 400 })),
      apiError(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208421 tokens > 200000 maximum' } })),
      apiError(400, JSON.stringify({ error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } })),
      apiError(500, JSON.stringify({ error: { message: 'input length exceeds the context length', type: 'api_error' } })),
      apiError(400, JSON.stringify({ error: 'Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens. Context length exceeded.' })),
    ];
    for (const e of over) expect(isContextOverflow(e), e.responseBody).toBe(true);
    const other = [apiError(401, '{"error":{"message":"Incorrect API key provided"}}'), apiError(429, '{"error":{"message":"Rate limit reached"}}'), apiError(404, '{"error":{"message":"model not found"}}')];
    for (const e of other) expect(isContextOverflow(e)).toBe(false);
    expect(describeProviderError(over[0], 'm').next).toMatch(/^Press Compact/);
    // the window each error names
    expect(over.map(windowFromError)).toEqual([16_384, 32_768, 200_000, 4096, null, 8192]);
  });
});

let server: http.Server | undefined;
afterEach(async () => {
  clearWindowCache();
  if (server) await new Promise<void>((r) => server!.close(() => r()));
  server = undefined;
});

/** A loopback server answering fixed JSON by method and path. */
async function serve(routes: Record<string, unknown>): Promise<string> {
  server = http.createServer((req, res) => {
    const body = routes[`${req.method} ${req.url}`];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('asking a local server for its window', () => {
  it('LM Studio: the loaded context length first', async () => {
    const root = await serve({ 'GET /api/v0/models': { data: [{ id: 'qwen', loaded_context_length: 8192, max_context_length: 32768 }] } });
    expect(await discoverServerWindow('openai-compatible', `${root}/v1`, 'qwen')).toEqual({ tokens: 8192, detail: 'LM Studio /api/v0/models (loaded_context_length)' });
  });
  it('llama.cpp: n_ctx from /props', async () => {
    const root = await serve({ 'GET /props': { default_generation_settings: { n_ctx: 4096 } } });
    expect(await discoverServerWindow('openai-compatible', `${root}/v1`, 'any')).toEqual({ tokens: 4096, detail: 'llama.cpp /props (n_ctx)' });
  });
  it('Ollama: num_ctx when the model sets one, else the trained length', async () => {
    let root = await serve({ 'POST /api/show': { parameters: 'stop "<|im_end|>"\nnum_ctx 16384', model_info: { 'qwen3.context_length': 40960 } } });
    expect(await discoverServerWindow('ollama', `${root}/v1`, 'qwen3')).toEqual({ tokens: 16384, detail: 'Ollama /api/show (num_ctx)' });
    clearWindowCache();
    await new Promise<void>((r) => server!.close(() => r()));
    root = await serve({ 'POST /api/show': { model_info: { 'llama.context_length': 131072 } } });
    expect(await discoverServerWindow('ollama', `${root}/v1`, 'llama3.1')).toEqual({ tokens: 131072, detail: 'Ollama /api/show (llama.context_length)' });
  });
  it('a server that says nothing leaves the catalogue window; the settings override is never asked over', async () => {
    const root = await serve({});
    const status: ModelStatus = { configured: true, provider: 'openai-compatible', model: 'm', label: 'm', windowTokens: 32768, windowSource: { kind: 'default', detail: 'x' }, scripted: false };
    expect(await withServerWindow(status, `${root}/v1`)).toBe(status);
    const pinned = { ...status, windowSource: { kind: 'settings' as const, detail: 'the settings override' } };
    let asked = false;
    await withServerWindow(pinned, `${root}/v1`, { fetch: (async () => ((asked = true), new Response('{}'))) as unknown as typeof fetch });
    expect(asked).toBe(false);
  });
});

describe('the catalogue', () => {
  it('has windows and prices for Anthropic and OpenAI models, nearest family first; an unknown model gets the conservative default', () => {
    expect(lookupCatalogue('anthropic', 'claude-sonnet-4-20250514')).toMatchObject({ windowTokens: 200_000, prices: { inputPerMTokUsd: 3, outputPerMTokUsd: 15 } });
    expect(lookupCatalogue('openai', 'gpt-5')).toMatchObject({ id: 'openai/gpt-5', windowTokens: 400_000 });
    expect(lookupCatalogue('anthropic', 'claude-sonnet-4-5')?.id).toMatch(/^anthropic\/claude-sonnet-4/);
    // a local model is found by name elsewhere in the catalogue, without a reseller's price
    expect(lookupCatalogue('ollama', 'qwen2.5-coder-32b-instruct:q4')).toMatchObject({ windowTokens: 32_768, prices: null });
    expect(contextWindowFor('openai-compatible', 'my-own-finetune')).toMatchObject({ tokens: DEFAULT_WINDOW_TOKENS, source: { kind: 'default' } });
    expect(contextWindowFor('anthropic', 'claude-sonnet-4-5', 50_000)).toMatchObject({ tokens: 50_000, source: { kind: 'settings' } });
  });
});

describe('small parts of the context', () => {
  it('a stub names the call, the step, the bytes and the way back', () => {
    expect(stubText(describeCall('read_file', { path: 'src/app.ts', offset: 1, limit: 400 }), 12, 14_233, '/d/spill/x.txt')).toBe(
      '[read_file src/app.ts lines 1–400, step 12: 14,233 bytes elided to save context; full output at /d/spill/x.txt — read it with read_file (offset/limit) if you need it]',
    );
    expect(describeCall('run_command', { command: 'npm   test' })).toBe('run_command npm test');
  });
  it('limits come from the budget table', () => {
    const l = contextLimits(16_384, budgetTable());
    expect(l).toEqual({
      pruneAt: Math.floor(16_384 * BUDGET.CONTEXT_PRUNE_AT_RATIO),
      pruneTo: Math.floor(16_384 * BUDGET.CONTEXT_PRUNE_TO_RATIO),
      compactAt: Math.floor(16_384 * BUDGET.CONTEXT_COMPACT_AT_RATIO),
      hardMax: 16_384 - Math.floor(16_384 * BUDGET.CONTEXT_OUTPUT_RESERVE_RATIO),
      summaryMax: Math.floor(16_384 * BUDGET.COMPACTION_SUMMARY_MAX_WINDOW_RATIO),
    });
    expect(correctionRatio(300, 100, budgetTable())).toBe(BUDGET.CONTEXT_ESTIMATE_CORRECTION_MAX_RATIO);
    expect(correctionRatio(undefined, 100, budgetTable())).toBe(1);
  });
  it('money from the prices, and the session totals', () => {
    expect(costOf({ inputPerMTokUsd: 3, outputPerMTokUsd: 15, cacheReadPerMTokUsd: 0.3, cacheWritePerMTokUsd: 3.75 }, { fresh: 1e6, cacheRead: 1e6, cacheWrite: 1e6 }, 1e6)).toBeCloseTo(22.05);
    expect(costOf(null, { fresh: 1, cacheRead: 0, cacheWrite: 0 }, 1)).toBeNull();
    const step = (n: number, cost: number | null): LedgerStep => ({ step: n, inputTokens: { fresh: 10, cacheRead: 5, cacheWrite: 1 }, outputTokens: 2, estimatedInputTokens: 15, toolBytesProduced: 100, toolBytesShown: 40, costUsd: cost, model: 'm' });
    const messages: ClampMessage[] = [{ id: 'a', role: 'assistant', parts: [{ type: 'data-ledger', data: step(1, null) }, { type: 'data-ledger', data: step(2, 0.5) }] }];
    const l = sessionLedger(messages);
    expect(l.steps.map((s) => [s.step, s.messageId])).toEqual([[1, 'a'], [2, 'a']]);
    expect(l.totals).toMatchObject({ steps: 2, inputTokens: { fresh: 20, cacheRead: 10, cacheWrite: 2 }, outputTokens: 4, toolBytesProduced: 200, toolBytesShown: 80, costUsd: 0.5, compactions: 0, pruned: 0 });
  });
});
