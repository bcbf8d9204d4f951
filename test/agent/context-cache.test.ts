import { createAnthropic } from '@ai-sdk/anthropic';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelStatus } from '../../lib/contract/protocol';
import { contextWindowFor } from '../../lib/agent/windows';
import { startFakeAnthropic } from '../fake-anthropic';
import { tempWorkspace } from '../helpers';
import { ledgerOf, runOne, user } from './context-harness';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

describe('prompt caching with Anthropic (a stand-in Messages server)', () => {
  it('sets breakpoints on the system prompt and the newest messages; each step reads its prefix from the cache; the ledger shows reads, writes and money', async () => {
    for (let i = 0; i < 4; i++) ws.write(`f${i}.ts`, `export const x${i} = ${i};\n`.repeat(40));
    const fake = await startFakeAnthropic((_req, i) => (i < 4 ? { toolCalls: [{ name: 'read_file', args: { path: `f${i}.ts` } }] } : { text: 'Done.' }));
    try {
      const model = createAnthropic({ apiKey: 'test-key', baseURL: fake.url })('claude-sonnet-4-5');
      const win = contextWindowFor('anthropic', 'claude-sonnet-4-5');
      expect(win.source.kind).toBe('catalogue');
      expect(win.prices).not.toBeNull();
      const status: ModelStatus = { configured: true, provider: 'anthropic', model: 'claude-sonnet-4-5', label: 'anthropic · claude-sonnet-4-5', windowTokens: win.tokens, windowSource: win.source, prices: win.prices, scripted: false };
      const { saved } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user('read the four files')] });
      expect(fake.requests).toHaveLength(5);
      // the system prompt (caching the tool definitions before it) and the newest messages
      expect(fake.requests[0].breakpoints).toEqual(['system[0]', 'messages[0].content[0]']);
      for (const r of fake.requests.slice(1)) {
        expect(r.breakpoints[0]).toBe('system[0]');
        expect(r.breakpoints).toHaveLength(3);
        expect(r.breakpoints.at(-1)).toBe(`messages[${r.body.messages.length - 1}].content[${(r.body.messages.at(-1)!.content as unknown[]).length - 1}]`);
      }
      // the prefix is byte-stable: every step after the first reads what the step before wrote
      for (const r of fake.requests.slice(1)) expect(r.usage.cache_read_input_tokens).toBeGreaterThan(0);
      const ledger = ledgerOf(saved);
      expect(ledger).toHaveLength(5);
      ledger.forEach((l, k) => {
        expect(l.inputTokens).toEqual({ fresh: fake.requests[k].usage.input_tokens, cacheRead: fake.requests[k].usage.cache_read_input_tokens, cacheWrite: fake.requests[k].usage.cache_creation_input_tokens });
        expect(l.costUsd).toBeGreaterThan(0);
      });
      expect(ledger[0].inputTokens.cacheWrite).toBeGreaterThan(0);
    } finally {
      await fake.close();
    }
  }, 30_000);
});
