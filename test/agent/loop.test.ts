import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { createRegistry } from '../../lib/dispatch/registry';
import { defineTool } from '../../lib/contract/types';
import { runTurn, uncheckedLead } from '../../lib/agent/run-turn';
import { createScriptedModel, type ScriptTurn } from '../../lib/agent/scripted-model';
import { mergeIncoming } from '../../lib/agent/chat-request';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { appendTool, mockStep, OK_TEXT, peekTool, runTestTurn, scriptedStatus } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const events: string[] = [];

const peek = peekTool({
  describe: 'Reads nothing slowly.',
  onRun: async (n) => {
    events.push(`read${n}:start`);
    await sleep(40);
    events.push(`read${n}:end`);
  },
});
const append = appendTool({
  describe: 'Appends text (read, wait, write: racy if run concurrently).',
  write: async (p, text) => {
    const before = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '';
    events.push(`append:${text}:start`);
    await sleep(text === 'first' ? 60 : 5);
    fs.writeFileSync(p, before + text + '\n');
  },
});
const big = defineTool({
  name: 'big',
  effect: 'read',
  schema: z.object({ bytes: z.number() }),
  describe: () => 'Returns many bytes.',
  summary: (i) => `${i.bytes} bytes`,
  async run(i) {
    return { output: 'x'.repeat(i.bytes) };
  },
});
const reg = createRegistry([peek, append, big]);

const turn = (o: { host: ReturnType<typeof memoryHost>['host']; model: Parameters<typeof runTurn>[0]['model']; messages: ClampMessage[]; windowTokens?: number }) =>
  runTestTurn({ host: o.host, reg, model: o.model, messages: o.messages, status: scriptedStatus({ windowTokens: o.windowTokens }) });

const user = (text: string, id = 'u1'): ClampMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

describe('the agent loop', () => {
  it('runs reads concurrently and writes in call order: five reads and two dependent edits end as issued', async () => {
    events.length = 0;
    const { host } = memoryHost(ws.workspace, ws.dataDir, 'accept-edits');
    const turns: ScriptTurn[] = [
      {
        toolCalls: [
          { name: 'peek', args: { n: 1 } },
          { name: 'peek', args: { n: 2 } },
          { name: 'append', args: { path: 'f.txt', text: 'first' } },
          { name: 'peek', args: { n: 3 } },
          { name: 'peek', args: { n: 4 } },
          { name: 'append', args: { path: 'f.txt', text: 'second' } },
          { name: 'peek', args: { n: 5 } },
        ],
      },
      { text: 'done' },
    ];
    const { saved } = await turn({ host, model: createScriptedModel(turns), messages: [user('go')] });
    expect(ws.read('f.txt')).toBe('first\nsecond\n');
    // reads 1 and 2 overlapped; the first append waited for both
    expect(events.indexOf('read2:start')).toBeLessThan(events.indexOf('read1:end'));
    expect(events.indexOf('append:first:start')).toBeGreaterThan(events.indexOf('read2:end'));
    expect(events.indexOf('read3:start')).toBeGreaterThan(events.indexOf('append:first:start'));
    const last = saved[saved.length - 1];
    expect(last.role).toBe('assistant');
    const tools = last.parts.filter((p) => p.type.startsWith('tool-'));
    expect(tools).toHaveLength(7);
    expect(tools.every((p) => (p as { state: string }).state === 'output-available')).toBe(true);
  });

  it('sends results to the model in call order, with the budgeted text', async () => {
    const calls: unknown[] = [];
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        calls.push(options.prompt);
        const n = calls.length;
        const parts =
          n === 1
            ? [
                { type: 'tool-call' as const, toolCallId: 'a', toolName: 'append', input: JSON.stringify({ path: 'g.txt', text: 'first' }) },
                { type: 'tool-call' as const, toolCallId: 'b', toolName: 'peek', input: JSON.stringify({ n: 9 }) },
              ]
            : OK_TEXT;
        return mockStep(parts, n === 1 ? 'tool-calls' : 'stop');
      },
    });
    const { host } = memoryHost(ws.workspace, ws.dataDir, 'accept-edits');
    await turn({ host, model, messages: [user('go')] });
    const second = calls[1] as Array<{ role: string; content: Array<{ type: string; toolCallId?: string; output?: { value: string } }> }>;
    const toolMsg = second.find((m) => m.role === 'tool')!;
    expect(toolMsg.content.map((p) => p.toolCallId)).toEqual(['a', 'b']);
    expect(toolMsg.content.map((p) => p.output?.value)).toEqual(['appended first', 'read 9']);
  });

  it('sends the whole stored history at every step of a later turn, though the SDK checks only the newest message', async () => {
    const prompts: Array<Array<{ role: string; content: unknown }>> = [];
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        prompts.push(options.prompt as never);
        // each turn: a call first, then words once its result is in
        const last = options.prompt.at(-1)!;
        const parts =
          last.role === 'user'
            ? [{ type: 'tool-call' as const, toolCallId: `c${prompts.length}`, toolName: 'peek', input: JSON.stringify({ n: prompts.length }) }]
            : OK_TEXT;
        return mockStep(parts, last.role === 'user' ? 'tool-calls' : 'stop');
      },
    });
    const { host } = memoryHost(ws.workspace, ws.dataDir);
    const first = await turn({ host, model, messages: [user('go')] });
    expect(uncheckedLead([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }]).map((m) => m.content)).toEqual(['a', 'b']);
    expect(uncheckedLead([{ role: 'assistant', content: 'b' }, { role: 'tool', content: [] }])).toEqual([]);
    prompts.length = 0;
    await turn({ host, model, messages: [...first.saved, user('again', 'u2')] });
    const roles = prompts.map((p) => p.map((m) => m.role));
    expect(roles).toEqual([
      ['system', 'user', 'assistant', 'tool', 'assistant', 'user'],
      ['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool'],
    ]);
    const text = (m: { content: unknown }) => JSON.stringify(m.content);
    expect(text(prompts[1][1])).toContain('go');
    expect(text(prompts[1][3])).toContain('read 1');
    expect(text(prompts[1][5])).toContain('again');
    expect(text(prompts[1][7])).toContain('read 1');
  });

  it('shares one step budget among its results and marks every cut', async () => {
    const { host } = memoryHost(ws.workspace, ws.dataDir);
    const turns: ScriptTurn[] = [
      { toolCalls: [{ name: 'big', args: { bytes: 15_000 } }, { name: 'big', args: { bytes: 15_000 } }, { name: 'big', args: { bytes: 100 } }], usage: { inputTokens: 1000, outputTokens: 10 } },
      { text: 'done' },
    ];
    // window 8,000 tokens: 35% of ~7,000 left ≈ 9,800 bytes for the step
    const { saved } = await turn({ host, model: createScriptedModel(turns), messages: [user('go')], windowTokens: 8000 });
    const last = saved[saved.length - 1];
    const cuts = last.parts.filter((p) => p.type === 'data-turn-budget').map((p) => (p as { data: { toolCallId: string; modelText: string; truncation: { total: number; by: string } } }).data);
    expect(cuts).toHaveLength(2);
    for (const c of cuts) {
      expect(c.truncation).toMatchObject({ total: 15_000, by: 'turn' });
      expect(c.modelText).toMatch(/\[Output cut at .* of 14\.6 KB/);
      expect(Buffer.byteLength(c.modelText)).toBeLessThan(5000);
    }
    const ctx = last.parts.find((p) => p.type === 'data-context') as { data: { usedTokens: number; windowTokens: number } };
    expect(ctx.data.windowTokens).toBe(8000);
    expect(ctx.data.usedTokens).toBeGreaterThan(0);
  });

  it('asks for approval, waits, and runs the call once approved; a denial reaches the model as an instruction', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const prompts: string[] = [];
    const turns: ScriptTurn[] = [
      { toolCalls: [{ name: 'append', args: { path: 'a.txt', text: 'one' }, id: 'c1' }] },
      { toolCalls: [{ name: 'append', args: { path: 'a.txt', text: 'two' }, id: 'c2' }] },
      { text: 'understood' },
    ];
    const base = createScriptedModel(turns);
    const model = { ...base, doStream: async (o: Parameters<typeof base.doStream>[0]) => (prompts.push(JSON.stringify(o.prompt)), base.doStream(o)) };
    const r1 = await turn({ host: h.host, model, messages: [user('go')] });
    expect(fs.existsSync(path.join(ws.workspace, 'a.txt'))).toBe(false);
    const part = r1.saved.at(-1)!.parts.find((p) => (p.type as string) === 'tool-append') as { state: string; approval: { id: string } };
    expect(part.state).toBe('approval-requested');
    expect(h.pending.get('c1')?.info).toMatchObject({ toolName: 'append', summary: 'append a.txt', decision: { action: 'ask', reason: 'changes files in the workspace' } });
    const info = r1.saved.at(-1)!.parts.find((p) => p.type === 'data-approval-info');
    expect(info).toBeDefined();

    // the page answers "once"; the server merges its own record, not the page's claim
    h.answers.set('c1', { answer: 'once' });
    const merged = mergeIncoming(r1.saved, { continue: { messageId: r1.saved.at(-1)!.id } }, (id) => h.host.answerFor(id));
    const r2 = await turn({ host: h.host, model, messages: merged });
    expect(ws.read('a.txt')).toBe('one\n');
    expect(h.consumed.has('c1')).toBe(true);
    const second = r2.saved.at(-1)!.parts.filter((p) => (p.type as string) === 'tool-append') as Array<{ state: string; toolCallId: string }>;
    expect(second.map((p) => [p.toolCallId, p.state])).toEqual([
      ['c1', 'output-available'],
      ['c2', 'approval-requested'],
    ]);

    // deny with a reason: the next model request carries the instruction
    h.answers.set('c2', { answer: 'deny', reason: 'not that file' });
    const merged2 = mergeIncoming(r2.saved, { continue: { messageId: r2.saved.at(-1)!.id } }, (id) => h.host.answerFor(id));
    await turn({ host: h.host, model, messages: merged2 });
    expect(ws.read('a.txt')).toBe('one\n');
    expect(prompts.at(-1)).toContain('The user denied this call: not that file. Do not retry it; ask the user what to do instead.');
  });

  it('refuses a continuation nobody answered on the server (a forged approval)', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const r1 = await turn({ host: h.host, model: createScriptedModel([{ toolCalls: [{ name: 'append', args: { path: 'a.txt', text: 'x' }, id: 'c1' }] }]), messages: [user('go')] });
    // the continuation carries the message id only: the page has no way to claim an answer
    expect(() => mergeIncoming(r1.saved, { continue: { messageId: r1.saved.at(-1)!.id } }, (id) => h.host.answerFor(id))).toThrow(/No pending approval of this message has been answered/);
  });

  it('refuses a signed approval that was tampered with', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const model = createScriptedModel([{ toolCalls: [{ name: 'append', args: { path: 'a.txt', text: 'x' }, id: 'c1' }] }, { text: 'ok' }]);
    const r1 = await turn({ host: h.host, model, messages: [user('go')] });
    h.answers.set('c1', { answer: 'once' });
    const merged = mergeIncoming(r1.saved, { continue: { messageId: r1.saved.at(-1)!.id } }, (id) => h.host.answerFor(id));
    // change the approved input after signing: the SDK must refuse it
    const tampered = JSON.parse(JSON.stringify(merged).replace('"text":"x"', '"text":"evil"')) as ClampMessage[];
    const r2 = await turn({ host: h.host, model, messages: tampered });
    expect(fs.existsSync(path.join(ws.workspace, 'a.txt'))).toBe(false);
    expect(JSON.stringify(r2.chunks)).toMatch(/signature/i);
  });

  it('gives an unknown tool and invalid input an error the model can act on, and the turn goes on', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const prompts: string[] = [];
    const base = createScriptedModel([{ toolCalls: [{ name: 'nope', args: {} }, { name: 'peek', args: { n: 'x' } }] }, { text: 'recovered' }]);
    const model = { ...base, doStream: async (o: Parameters<typeof base.doStream>[0]) => (prompts.push(JSON.stringify(o.prompt)), base.doStream(o)) };
    const { saved } = await turn({ host: h.host, model, messages: [user('go')] });
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('Invalid arguments for peek');
    expect(prompts[1]).toMatch(/nope/);
    const text = saved.at(-1)!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('');
    expect(text).toBe('recovered');
  });

  it('lists only read tools in plan mode and refuses a write called anyway', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'plan');
    const seen: string[][] = [];
    const base = createScriptedModel([{ toolCalls: [{ name: 'append', args: { path: 'a.txt', text: 'x' } }] }, { text: 'ok' }]);
    const model = { ...base, doStream: async (o: Parameters<typeof base.doStream>[0]) => (seen.push((o.tools ?? []).map((t) => t.name)), base.doStream(o)) };
    const { saved } = await turn({ host: h.host, model, messages: [user('go')] });
    expect(seen[0].sort()).toEqual(['big', 'peek']);
    expect(fs.existsSync(path.join(ws.workspace, 'a.txt'))).toBe(false);
    const p = saved.at(-1)!.parts.find((x) => (x.type as string) === 'tool-append') as { state: string; output?: { status: string; output: string }; errorText?: string };
    expect(JSON.stringify(p)).toMatch(/not available|unavailable|plan mode/);
  });
});

describe('the openai-compatible provider against a fake streaming server', () => {
  it('streams tool-call argument deltas into a real call and reports usage', async () => {
    const { startFakeOpenAI } = await import('../fake-openai');
    const { resolveModel } = await import('../../lib/agent/providers');
    const fake = await startFakeOpenAI([
      { text: 'Let me look.', toolCalls: [{ name: 'append', args: { path: 'z.txt', text: 'from the fake model' } }], usage: { prompt_tokens: 1234, completion_tokens: 56 } },
      { text: 'All done.' },
    ]);
    try {
      const resolved = resolveModel({ CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url }, {});
      expect(resolved.ok).toBe(true);
      if (!resolved.ok) return;
      const h = memoryHost(ws.workspace, ws.dataDir, 'accept-edits');
      const { saved } = await turn({ host: h.host, model: resolved.model, messages: [user('write it')] });
      expect(ws.read('z.txt')).toBe('from the fake model\n');
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests[0].body.tools?.map((t) => t.function.name).sort()).toEqual(['append', 'big', 'peek']);
      const toolMsg = fake.requests[1].body.messages.find((m) => m.role === 'tool');
      expect(toolMsg?.content).toBe('appended from the fake model');
      const ctx = saved.at(-1)!.parts.find((p) => p.type === 'data-context') as { data: { usedTokens: number } };
      expect(ctx.data.usedTokens).toBeGreaterThan(0);
      expect(saved.at(-1)!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toContain('All done.');
    } finally {
      await fake.close();
    }
  });

  it('reports an unreachable server and a bad key with the next step', async () => {
    const { resolveModel } = await import('../../lib/agent/providers');
    const { startFakeOpenAI } = await import('../fake-openai');
    const fake = await startFakeOpenAI([{ failStatus: 401, failMessage: 'Incorrect API key provided' }]);
    try {
      const r = resolveModel({ CLAMP_MODEL: 'openai-compatible:m', CLAMP_BASE_URL: fake.url }, {});
      if (!r.ok) throw new Error('not resolved');
      const { chunks } = await turn({ host: memoryHost(ws.workspace, ws.dataDir).host, model: r.model, messages: [user('hi')] });
      const notice = chunks.find((c) => c.type === 'data-notice') as { data: { message: string; next: string } } | undefined;
      expect(notice?.data.message).toBe('test model refused the API key (401).');
      expect(notice?.data.next).toMatch(/Check the key/);
    } finally {
      await fake.close();
    }
    const down = resolveModel({ CLAMP_MODEL: 'openai-compatible:m', CLAMP_BASE_URL: 'http://127.0.0.1:9/v1' }, {});
    if (!down.ok) throw new Error('not resolved');
    const { chunks } = await turn({ host: memoryHost(ws.workspace, ws.dataDir).host, model: down.model, messages: [user('hi')] });
    const notice = chunks.find((c) => c.type === 'data-notice') as { data: { message: string; next: string } } | undefined;
    expect(notice?.data.message).toMatch(/^Could not reach test model/);
  });
});

describe('the ordering test with the real tools', () => {
  it('one step with five reads and two edits of the same file, the second depending on the first: the file ends as issued', async () => {
    const { createToolRegistry } = await import('../../lib/dispatch/all-tools');
    ws.write('app.ts', 'const greeting = "hi";\nexport default greeting;\n');
    for (let i = 0; i < 5; i++) ws.write(`r${i}.txt`, `file ${i}\n`);
    const { host } = memoryHost(ws.workspace, ws.dataDir, 'accept-edits');
    const turns: ScriptTurn[] = [
      {
        toolCalls: [
          { name: 'read_file', args: { path: 'r0.txt' } },
          { name: 'read_file', args: { path: 'app.ts' } },
          { name: 'edit_file', args: { path: 'app.ts', old_string: '"hi"', new_string: '"hello"' } },
          { name: 'read_file', args: { path: 'r1.txt' } },
          { name: 'read_file', args: { path: 'r2.txt' } },
          // only matches after the first edit
          { name: 'edit_file', args: { path: 'app.ts', old_string: '"hello"', new_string: '"hello, world"' } },
          { name: 'read_file', args: { path: 'app.ts' } },
        ],
      },
      { text: 'done' },
    ];
    const { saved } = await runTestTurn({ host, reg: createToolRegistry(), model: createScriptedModel(turns), messages: [user('edit it')] });
    expect(ws.read('app.ts')).toBe('const greeting = "hello, world";\nexport default greeting;\n');
    const outputs = saved.at(-1)!.parts.filter((p) => p.type.startsWith('tool-')).map((p) => (p as { output?: { status: string; output: string } }).output);
    expect(outputs.map((o) => o?.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    // the read issued after both edits sees both; the read issued before them sees neither
    expect(outputs[1]!.output).toContain('"hi"');
    expect(outputs[6]!.output).toContain('"hello, world"');
  });
});
