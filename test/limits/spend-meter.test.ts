import { generateText, streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { SPEND_SERVICE, type SpendGuard, type SpendStep } from '../../lib/contract/limits';
import { spendMetered, spendMeteredAny } from '../../lib/agent/spend-gate';

const usage = { inputTokens: { total: 1000, noCache: 700, cacheRead: 200, cacheWrite: 100 }, outputTokens: { total: 50, text: 50, reasoning: undefined } };
const prices = { inputPerMTokUsd: 3, outputPerMTokUsd: 15, cacheReadPerMTokUsd: 0.3, cacheWritePerMTokUsd: 3.75 };

function guard(): { g: SpendGuard; steps: SpendStep[] } {
  const steps: SpendStep[] = [];
  return { steps, g: { record: (s) => steps.push(s), reached: () => null, raise: () => undefined, stop: () => undefined, stoppedAt: () => null } };
}

describe('spendMetered', () => {
  it('counts a streamed request when its answer ends, and a generated one (a compaction summary), at the catalogue prices', async () => {
    const { g, steps } = guard();
    const host = { services: { [SPEND_SERVICE]: g } };
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream({
          start(c) {
            c.enqueue({ type: 'text-start', id: 't' });
            c.enqueue({ type: 'text-delta', id: 't', delta: 'hi' });
            c.enqueue({ type: 'text-end', id: 't' });
            c.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
            c.close();
          },
        }),
      }),
      doGenerate: async () => ({ content: [{ type: 'text', text: 'summary' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
    });
    const s = streamText({ model: spendMetered(model, host, prices), prompt: 'x' });
    await s.consumeStream();
    const want = { inputTokens: { fresh: 700, cacheRead: 200, cacheWrite: 100 }, outputTokens: 50, costUsd: (700 * 3 + 200 * 0.3 + 100 * 3.75 + 50 * 15) / 1e6 };
    expect(steps).toEqual([want]);
    await generateText({ model: spendMeteredAny(model, host, prices), prompt: 'x' });
    expect(steps).toEqual([want, want]);
    // without a guard, or without prices, nothing is counted or the money is null
    expect(spendMetered(model, { services: {} }, prices)).toBe(model);
    await generateText({ model: spendMeteredAny(model, host, null), prompt: 'x' });
    expect(steps[2].costUsd).toBeNull();
  });
});
