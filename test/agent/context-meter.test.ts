/**
 * The header's context meter shows what the next request holds, consistently: before each step the last
 * request's count by the provider plus Clamp's estimate of what was added, after it that count and its
 * answer. It never goes down by an estimate's error, mid-turn or from one turn to the next; when it goes
 * down because Clamp pruned results or compacted turns, the value says so and from what.
 */
import type { UIMessageChunk } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../lib/agent/run-turn';
import { createToolRegistry } from '../../lib/dispatch/all-tools';
import type { ClampMessage, ContextInfo, ModelStatus } from '../../lib/contract/protocol';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { fakeModel, prunedOf, readingScript, user } from './context-harness';
import { memoryHost } from './memory-host';
import { TEST_APPROVAL_SECRET } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

/** One turn with the real tools; every chunk as it was sent (the SDK updates a data part of one id in place, so each is copied). */
async function runOne(o: { model: Parameters<typeof runTurn>[0]['model']; status: ModelStatus; messages: ClampMessage[] }) {
  const { host } = memoryHost(ws.workspace, ws.dataDir, 'default');
  let saved: ClampMessage[] = [];
  const chunks: UIMessageChunk[] = [];
  const stream = runTurn({ host, reg: createToolRegistry(), ...o, signal: new AbortController().signal, approvalSecret: TEST_APPROVAL_SECRET, maxRetries: 0, maxSteps: 1000, save: (m) => (saved = m) });
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(structuredClone(r.value));
  return { saved, chunks };
}

/** Every value the meter was sent, in order. */
const meterOf = (chunks: UIMessageChunk[]): ContextInfo[] => chunks.filter((c) => c.type === 'data-context').map((c) => (c as unknown as { data: ContextInfo }).data);

/** A 6 KB source file. */
function sourceFile(i: number): string {
  const lines: string[] = [];
  for (let k = 0; lines.join('\n').length < 6000; k++) lines.push(`export const value_${i}_${k} = ${i * 1000 + k}; // file ${i}, line ${k + 1}`);
  return lines.join('\n') + '\n';
}

/** Each drop of the meter, with the value before it. */
function drops(values: ContextInfo[]): { from: number; to: ContextInfo }[] {
  const out: { from: number; to: ContextInfo }[] = [];
  for (let k = 1; k < values.length; k++) if (values[k].usedTokens < values[k - 1].usedTokens) out.push({ from: values[k - 1].usedTokens, to: values[k] });
  return out;
}

/**
 * A server that counts its own way: prompts at twice what the wire text tokenizes to (as templates and
 * other tokenizers make a count differ from Clamp's estimate), and 1,500 answer tokens for a short answer
 * (as a model that thinks before it answers counts its thinking).
 */
function doubling(script: (req: FakeRequest) => FakeReply): (req: FakeRequest) => FakeReply {
  return (req) => ({ ...script(req), usage: { prompt_tokens: req.promptTokens * 2, completion_tokens: 1500 } });
}

describe('the context meter', () => {
  it('never goes down by an estimate’s error: within a turn of many steps and into the next turn', async () => {
    for (let i = 0; i < 8; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    const fake = await startFakeOpenAI(doubling(readingScript((i) => `src/f${i % 8}.ts`, 8)), { window: { tokens: 1_000_000 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      const first = await runOne({ model, status, messages: [user('Read every file.')] });
      const values = meterOf(first.chunks);
      expect(values.length).toBeGreaterThan(10);
      expect(drops(values)).toEqual([]);
      // after each step: the provider's count of the request plus its answer
      const counted = values.filter((v) => !v.estimated);
      const last = fake.requests.at(-1)!;
      expect(counted.at(-1)!.usedTokens).toBeGreaterThanOrEqual(last.promptTokens * 2 + 1500);
      // the next turn starts where the last one ended, and grows
      const second = await runOne({ model, status, messages: [...first.saved, user('And once more.', 'u2')] as ClampMessage[] });
      const next = meterOf(second.chunks);
      expect(next[0].usedTokens).toBeGreaterThanOrEqual(values.at(-1)!.usedTokens);
      expect(drops([...values, ...next])).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('goes down only where pruning lowered it, and says so with the value before', async () => {
    for (let i = 0; i < 40; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    const fake = await startFakeOpenAI(readingScript((i) => `src/f${i}.ts`, 40), { window: { tokens: 16_384 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      const { saved, chunks } = await runOne({ model, status, messages: [user('Read every file.')] });
      expect(prunedOf(saved).length).toBeGreaterThan(0);
      const values = meterOf(chunks);
      const down = drops(values);
      expect(down.length).toBeGreaterThan(0);
      for (const d of down) {
        expect(d.to.lowered, JSON.stringify(d)).toEqual({ by: expect.stringMatching(/^(pruning|compaction)$/), fromTokens: d.from });
        expect(d.to.estimated).toBe(true);
      }
      expect(down.some((d) => d.to.lowered?.by === 'pruning')).toBe(true);
      // a value that did not go down says nothing of lowering
      expect(values.filter((v, k) => v.lowered && k > 0 && v.usedTokens >= values[k - 1].usedTokens)).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
