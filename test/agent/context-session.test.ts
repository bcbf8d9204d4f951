import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../lib/contract/types';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { compactionsOf, fakeModel, ledgerOf, prunedOf, readingScript, runOne, toolBytesIn, user } from './context-harness';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

/** A 6 KB source file whose every line names it, so a result can be told from any other. */
function sourceFile(i: number): string {
  const lines: string[] = [];
  for (let k = 0; lines.join('\n').length < 6000; k++) lines.push(`export const value_${i}_${k} = ${i * 1000 + k}; // file ${i}, line ${k + 1}`);
  return lines.join('\n') + '\n';
}

describe('a long session on a 16,384-token window (through the openai-compatible provider)', () => {
  it('finishes 300 steps of real read_file calls: every request fits, pruning then compaction, the store keeps every full result', async () => {
    const N = 300;
    for (let i = 0; i < N; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    const fake = await startFakeOpenAI(readingScript((i) => `src/f${i}.ts`, N), { window: { tokens: 16_384 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      expect(status.windowTokens).toBe(16_384);
      expect(status.windowSource.kind).toBe('server');
      const ask = 'Read every file in src/ one by one, then say how many you read.';
      const { saved, chunks } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user(ask)] });

      // every request fitted the window, and the turn finished with the model's own answer
      expect(fake.requests.filter((r) => r.overWindow)).toEqual([]);
      expect(chunks.filter((c) => c.type === 'error')).toEqual([]);
      const last = saved.at(-1)!;
      expect(last.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toContain(`Read all ${N} files.`);

      // the store still holds every full result
      const results = last.parts.filter((p) => p.type === 'tool-read_file') as unknown as { toolCallId: string; output: ToolResult }[];
      expect(results).toHaveLength(N);
      results.forEach((r, i) => expect(r.output.output).toContain(`file ${i}, line 1`));

      // pruning first, then compaction, more than once each
      const pruned = prunedOf(saved);
      const compactions = compactionsOf(saved);
      expect(pruned.length).toBeGreaterThan(1);
      expect(compactions.length).toBeGreaterThan(2);
      expect(pruned[0].step).toBeLessThan(compactions[0].step);
      expect(compactions.every((c) => c.outcome === 'summary' && c.trigger === 'auto')).toBe(true);
      expect(compactions.every((c) => c.afterTokens < c.beforeTokens)).toBe(true);
      // a stub names what was there, its size and where the full text is
      const stub = pruned[0].items[0];
      expect(stub.stub).toMatch(/^\[read_file src\/f\d+\.ts, step \d+: [\d,]+ bytes elided to save context; full output at .+ — read it with read_file \(offset\/limit\) if you need it\]$/);
      expect(stub.spillPath).toBeTruthy();

      // the ledger's "bytes shown" is what the server received, request by request
      const main = fake.requests.filter((r) => r.body.tools);
      const ledger = ledgerOf(saved);
      expect(ledger).toHaveLength(main.length);
      ledger.forEach((l, k) => expect(l.toolBytesShown).toBe(toolBytesIn(main[k])));
      expect(ledger.at(-1)!.toolBytesProduced).toBeGreaterThan(ledger.at(-1)!.toolBytesShown);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('after a compaction the next request holds the summary, the last steps verbatim and the newest user message', async () => {
    const N = 60;
    for (let i = 0; i < N; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    const fake = await startFakeOpenAI(readingScript((i) => `src/f${i}.ts`, N), { window: { tokens: 16_384 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      const ask = 'Read the files in src/ one at a time.';
      const { saved } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user(ask)] });
      const c = compactionsOf(saved)[0];
      expect(c).toBeTruthy();
      const k = fake.requests.findIndex((r) => !r.body.tools);
      const summaryReq = fake.requests[k];
      expect(JSON.stringify(summaryReq.body.messages)).toContain('Transcript of steps');
      const next = fake.requests[k + 1];
      const msgs = next.body.messages;
      expect(msgs[0].role).toBe('system');
      expect(String(msgs[1].content)).toContain(`[Summary of steps 1–${c.firstKeptStep - 1} of this session`);
      expect(String(msgs[1].content)).toContain('## Next step');
      expect(msgs[2]).toMatchObject({ role: 'user', content: ask });
      // the kept steps are there verbatim: their calls, and the newest results in full
      const kept = msgs.slice(3);
      expect(kept[0].role).toBe('assistant');
      const firstKeptRead = c.firstKeptStep - 1;
      expect(JSON.stringify(kept[0].tool_calls)).toContain(`src/f${firstKeptRead}.ts`);
      const lastTool = kept.filter((m) => m.role === 'tool').at(-1)!;
      expect(String(lastTool.content)).toContain(`file ${c.step - 2}, line 1`);
      expect(next.promptTokens).toBeLessThan(c.beforeTokens);
    } finally {
      await fake.close();
    }
  }, 60_000);
});

describe('the prefix across turns', () => {
  it('the next turn sends what the last step of the turn before sent, byte for byte, then the new messages', async () => {
    const N = 12;
    for (let i = 0; i < N; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    const fake = await startFakeOpenAI(readingScript((i) => `src/f${i}.ts`, N), { window: { tokens: 16_384 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      const first = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user('Read the files.')] });
      expect(prunedOf(first.saved).length).toBeGreaterThan(0);
      const lastOfFirst = fake.requests.at(-1)!.body.messages;
      const n = fake.requests.length;
      await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [...first.saved, user('Thanks. Anything else?', 'u2')] });
      const firstOfSecond = fake.requests[n].body.messages;
      expect(JSON.stringify(firstOfSecond.slice(0, lastOfFirst.length))).toBe(JSON.stringify(lastOfFirst));
      expect(firstOfSecond.at(-1)).toMatchObject({ role: 'user', content: 'Thanks. Anything else?' });
    } finally {
      await fake.close();
    }
  }, 60_000);
});

describe('a summary that fails', () => {
  it('falls back to harder pruning and a summary that names every earlier call; the newest user message is still sent', async () => {
    const N = 60;
    for (let i = 0; i < N; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    const script = readingScript((i) => `src/f${i}.ts`, N);
    // the summariser answers with nothing
    const fake = await startFakeOpenAI((req) => (req.body.tools ? script(req) : { text: '' }), { window: { tokens: 16_384 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      const ask = 'Read all the files, please.';
      const { saved } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user(ask)] });
      expect(fake.requests.filter((r) => r.overWindow)).toEqual([]);
      const c = compactionsOf(saved)[0];
      expect(c.outcome).toBe('fallback-pruning');
      expect(c.summary).toMatch(/^No summary could be written: the model wrote an empty summary\./);
      expect(c.summary).toContain('read_file src/f0.ts (step 1)');
      const k = fake.requests.findIndex((r) => !r.body.tools);
      const next = fake.requests[k + 1].body.messages;
      expect(String(next[1].content)).toContain('No summary could be written');
      expect(next.some((m) => m.role === 'user' && m.content === ask)).toBe(true);
      expect(saved.at(-1)!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toContain(`Read all ${N} files.`);
    } finally {
      await fake.close();
    }
  }, 60_000);
});

describe('pruning and the per-step cut together', () => {
  it('a result the per-step budget cut is sent as its stub once pruned, and stays so at every later step', async () => {
    const N = 10;
    // 40 KB files: read_file gives its window of numbered text, which the per-step budget cuts further on a small window
    for (let i = 0; i < N; i++) ws.write(`big/f${i}.ts`, sourceFile(i).repeat(7));
    const fake = await startFakeOpenAI(readingScript((i) => `big/f${i}.ts`, N), { window: { tokens: 16_384 } });
    try {
      const { model, status } = await fakeModel(fake.url);
      const { saved } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user('Read big/ file by file.')] });
      expect(fake.requests.filter((r) => r.overWindow)).toEqual([]);
      const cuts = saved.at(-1)!.parts.filter((p) => p.type === 'data-turn-budget');
      expect(cuts.length).toBeGreaterThan(0);
      const stubs = new Map(prunedOf(saved).flatMap((p) => p.items.map((it) => [it.toolCallId, it.stub] as const)));
      expect(stubs.size).toBeGreaterThan(0);
      let checked = 0;
      for (const r of fake.requests.filter((x) => x.body.tools)) {
        for (const m of r.body.messages) {
          if (m.role !== 'tool' || !stubs.has(m.tool_call_id!)) continue;
          // once pruned, every later request carries exactly the stub
          const prunedAt = prunedOf(saved).find((p) => p.items.some((it) => it.toolCallId === m.tool_call_id))!.step;
          const k = fake.requests.filter((x) => x.body.tools).indexOf(r) + 1;
          if (k >= prunedAt) {
            expect(m.content).toBe(stubs.get(m.tool_call_id!));
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    } finally {
      await fake.close();
    }
  }, 60_000);
});

describe('recovery from an overflow', () => {
  it('a request over the window is compacted and retried, and the turn goes on (llama.cpp error body)', async () => {
    const N = 30;
    for (let i = 0; i < N; i++) ws.write(`src/f${i}.ts`, sourceFile(i));
    // Clamp is told 64k (settings) while the server holds 16k: the estimate cannot prevent the overflow
    const fake = await startFakeOpenAI(readingScript((i) => `src/f${i}.ts`, N), { window: { tokens: 16_384, style: 'llamacpp' } });
    try {
      const { model, status } = await fakeModel(fake.url, 65_536);
      expect(status.windowSource.kind).toBe('settings');
      const { saved, chunks } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user('Read them all.')] });
      const over = fake.requests.filter((r) => r.overWindow);
      // the error named the window (n_ctx): the rest of the turn used it, so it overflowed once only
      expect(over).toHaveLength(1);
      const ctx = chunks.filter((c) => c.type === 'data-context').map((c) => (c as { data: { windowTokens: number; windowSource: { kind: string; detail: string } } }).data).at(-1)!;
      expect(ctx.windowTokens).toBe(16_384);
      expect(ctx.windowSource).toEqual({ kind: 'server', detail: "the provider's context-length error (the settings override said 65536)" });
      const notices = chunks.filter((c) => c.type === 'data-notice').map((c) => (c as { data: { level: string; message: string } }).data);
      expect(notices.some((n) => n.level === 'warning' && n.message === "The request was over the model's context window; compacted and retried.")).toBe(true);
      expect(notices.filter((n) => n.level === 'error')).toEqual([]);
      expect(chunks.filter((c) => c.type === 'error')).toEqual([]);
      const compactions = compactionsOf(saved);
      expect(compactions.some((c) => c.trigger === 'overflow')).toBe(true);
      // the request right after each overflow (past the summary request) fitted
      const after = fake.requests.indexOf(over[0]) + 1;
      expect(fake.requests.slice(after).find((r) => r.body.tools)?.overWindow).toBe(false);
      const text = saved.at(-1)!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('');
      expect(text).toContain(`Read all ${N} files.`);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it('a second overflow in the same step ends the turn with the exact reason and the next step', async () => {
    ws.write('a.ts', sourceFile(1));
    // a window smaller than the system prompt and tool definitions alone: no compaction can make it fit
    const fake = await startFakeOpenAI(readingScript(() => 'a.ts', 3), { window: { tokens: 1500 } });
    try {
      const { model, status } = await fakeModel(fake.url, 65_536);
      const { chunks } = await runOne({ workspace: ws.workspace, dataDir: ws.dataDir, model, status, messages: [user('Read a.ts.')] });
      expect(fake.requests.filter((r) => r.overWindow)).toHaveLength(2);
      const notices = chunks.filter((c) => c.type === 'data-notice').map((c) => (c as { data: { level: string; message: string; next?: string } }).data);
      expect(notices[0]).toMatchObject({ level: 'warning', message: "The request was over the model's context window; compacted and retried." });
      const err = notices.find((n) => n.level === 'error')!;
      expect(err.message).toMatch(/^The request at step 1 was still over test|^The request at step 1 was still over openai-compatible/);
      expect(err.message).toContain("This model's maximum context length is 1500 tokens");
      expect(err.next).toMatch(/^Press Compact \(or type \/compact\)/);
    } finally {
      await fake.close();
    }
  }, 30_000);
});
