import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { z } from 'zod';
import { createRegistry } from '../../lib/dispatch/registry';
import { defineTool } from '../../lib/contract/types';
import { BUDGET } from '../../lib/contract/budget';
import { runTurn } from '../../lib/agent/run-turn';
import { wakeWaiters } from '../../lib/agent/waits';
import type { ClampMessage } from '../../lib/contract/protocol';
import type { SubagentView } from '../../lib/contract/subagents';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { writeFileTool } from '../../lib/tools/write-file';
import { agentTool } from '../../lib/tools/agents/agent';
import { askUserTool, NOBODY_TO_ASK } from '../../lib/tools/agents/ask-user';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { scriptedStatus, TEST_APPROVAL_SECRET } from './stand-in';
import { promptText, routedModel } from './routed-model';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const spans: Record<string, { start: number; end: number; aborted?: boolean }> = {};
const slowPeek = defineTool({
  name: 'slow_peek',
  effect: 'read',
  schema: z.object({ tag: z.string(), ms: z.number() }),
  describe: () => 'Waits, then says its tag.',
  summary: (i) => i.tag,
  async run(i, ctx) {
    spans[i.tag] = { start: Date.now(), end: 0 };
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, i.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t);
        spans[i.tag].aborted = true;
        resolve();
      });
    });
    spans[i.tag].end = Date.now();
    return { output: `peeked ${i.tag}` };
  },
});
const reg = createRegistry([readFileTool, writeFileTool, slowPeek, agentTool, askUserTool]);

const user = (text: string): ClampMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });

function turn(host: ReturnType<typeof memoryHost>['host'], model: ReturnType<typeof routedModel>['model'], text: string, signal = new AbortController().signal) {
  const chunks: UIMessageChunk[] = [];
  let saved: ClampMessage[] = [];
  const stream = runTurn({ host, reg, model, status: scriptedStatus(), messages: [user(text)], signal, approvalSecret: TEST_APPROVAL_SECRET, maxRetries: 0, save: (m) => (saved = m) });
  const [a, b] = stream.tee();
  const done = (async () => {
    const reader = a.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // the SDK keeps the first chunk of a data id as the message's part and updates it in place: keep each as sent
      chunks.push(structuredClone(value));
    }
    let last: ClampMessage | undefined;
    for await (const m of readUIMessageStream<ClampMessage>({ stream: b })) last = m;
    return { chunks, last, saved: () => saved };
  })();
  return { chunks, done };
}

const views = (chunks: UIMessageChunk[]) => chunks.filter((c) => c.type === 'data-subagent').map((c) => (c as unknown as { data: SubagentView }).data);
const agentCall = (id: string, type: 'explore' | 'general', key: string, extra = '') => ({ name: 'agent', id, args: { type, description: `job ${key}`, prompt: `${key}: ${extra || 'look into it and report'}` } });

describe('subagents', () => {
  it("keeps the child's context apart: the parent's next request holds the report, not the file the child read", async () => {
    ws.write('notes/secret.txt', 'ZEBRA-4471 is the launch code\n');
    const { model, requests } = routedModel(
      [{ toolCalls: [agentCall('p1', 'explore', 'find-code')] }, { text: 'The child found it.' }],
      { 'find-code': [{ toolCalls: [{ name: 'read_file', id: 'c1', args: { path: 'notes/secret.txt' } }] }, { text: 'REPORT: the code is on line 1 of notes/secret.txt.' }] },
    );
    const { host, children } = memoryHost(ws.workspace, ws.dataDir, 'default');
    const { last } = await turn(host, model, 'find the code').done;
    const parentRequests = requests.filter((r) => r.who === 'parent');
    expect(parentRequests).toHaveLength(2);
    const second = promptText(parentRequests[1].options);
    expect(second).toContain('REPORT: the code is on line 1 of notes/secret.txt.');
    expect(second).toContain(`its transcript is session ${children[0].sessionId}`);
    expect(second).not.toContain('ZEBRA-4471');
    // the child read the file in its own context, with its own system prompt
    const child = requests.filter((r) => r.who === 'find-code');
    expect(promptText(child[1].options)).toContain('ZEBRA-4471');
    expect(promptText(child[0].options, 'system')).toContain('You are a subagent of Clamp');
    expect(promptText(child[0].options)).not.toContain('find the code');
    // the child's conversation is stored as its own session: the task, its call and its report
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ type: 'explore', description: 'job find-code', parentCallId: 'p1' });
    expect(JSON.stringify(children[0].messages)).toContain('ZEBRA-4471');
    // the parent's message carries the child's calls (stored with it) and the agent card's result
    const sub = last!.parts.find((p) => p.type === 'data-subagent') as unknown as { data: SubagentView };
    expect(sub.data).toMatchObject({ toolCallId: 'p1', status: 'done', steps: 2, callsTotal: 1, calls: [{ toolCallId: 'c1', toolName: 'read_file', state: 'ok' }] });
    expect(sub.data.calls[0].summary).toContain('notes/secret.txt');
    const card = last!.parts.find((p) => p.type === 'tool-agent') as unknown as { output: { status: string; meta: { subagentSessionId: string } } };
    expect(card.output).toMatchObject({ status: 'ok', meta: { subagentSessionId: children[0].sessionId } });
  });

  it('cuts a huge report with a note and keeps the whole of it in a file', async () => {
    const huge = 'finding '.repeat(10_000);
    const { model, requests } = routedModel([{ toolCalls: [agentCall('p1', 'explore', 'big-report')] }, { text: 'ok' }], { 'big-report': [{ text: huge }] });
    const { host } = memoryHost(ws.workspace, ws.dataDir);
    await turn(host, model, 'go').done;
    const tool = requests.filter((r) => r.who === 'parent')[1].options.prompt.find((m) => m.role === 'tool')!;
    const text = (tool.content[0] as { output: { value: string } }).output.value;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(BUDGET.SUBAGENT_REPORT_MAX_BYTES);
    const note = /\[Report cut at ([\d.,]+ (?:bytes|KB)) of ([\d.,]+ KB) \(SUBAGENT_REPORT_MAX_BYTES\)\. The full report: (\S+) \(read it with read_file\)\.\]$/.exec(text);
    expect(note, text.slice(-400)).not.toBeNull();
    expect(fs.readFileSync(note![3], 'utf8')).toBe(huge.trim());
  });

  it('runs several explore children in parallel (their calls overlap)', async () => {
    const { model } = routedModel([{ toolCalls: [agentCall('p1', 'explore', 'left'), agentCall('p2', 'explore', 'right')] }, { text: 'both back' }], {
      left: [{ toolCalls: [{ name: 'slow_peek', id: 'l1', args: { tag: 'left', ms: 400 } }] }, { text: 'left done' }],
      right: [{ toolCalls: [{ name: 'slow_peek', id: 'r1', args: { tag: 'right', ms: 400 } }] }, { text: 'right done' }],
    });
    const { host, children } = memoryHost(ws.workspace, ws.dataDir);
    const { chunks } = await turn(host, model, 'both').done;
    expect(children).toHaveLength(2);
    expect(spans.left.start).toBeLessThan(spans.right.end);
    expect(spans.right.start).toBeLessThan(spans.left.end);
    const ends = views(chunks).filter((v) => v.status === 'done').map((v) => v.toolCallId);
    expect(new Set(ends)).toEqual(new Set(['p1', 'p2']));
  });

  it('Stop stops the child: its running call is aborted and the child ends as stopped', async () => {
    const { model } = routedModel([{ toolCalls: [agentCall('p1', 'explore', 'long')] }, { text: 'never' }], {
      long: [{ toolCalls: [{ name: 'slow_peek', id: 'x1', args: { tag: 'long', ms: 30_000 } }] }, { text: 'never' }],
    });
    const { host, children } = memoryHost(ws.workspace, ws.dataDir);
    const abort = new AbortController();
    const t = turn(host, model, 'long', abort.signal);
    await expect.poll(() => spans.long?.start, { timeout: 10_000 }).toBeGreaterThan(0);
    const t0 = Date.now();
    abort.abort(new Error('stopped by the user'));
    const { chunks, saved } = await t.done;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(spans.long.aborted).toBe(true);
    expect(views(chunks).at(-1)).toMatchObject({ toolCallId: 'p1', status: 'stopped' });
    // the parent's agent call is stored as stopped, not running forever
    const part = saved().at(-1)!.parts.find((p) => p.type === 'tool-agent') as { state: string } | undefined;
    expect(part?.state).toBe('output-error');
    expect(children[0].messages.length).toBeGreaterThanOrEqual(1);
  });

  it("a general child's write waits for the person while the parent's call runs; approved it runs, denied the child is told", async () => {
    const write = (id: string, file: string) => ({ name: 'write_file', id, args: { path: file, content: 'hello\n' } });
    const { model, requests } = routedModel([{ toolCalls: [agentCall('p1', 'general', 'writer-a'), agentCall('p2', 'general', 'writer-b')] }, { text: 'done' }], {
      'writer-a': [{ toolCalls: [write('w1', 'a.txt')] }, { text: 'wrote a.txt' }],
      'writer-b': [{ toolCalls: [write('w2', 'b.txt')] }, { text: 'could not write b.txt' }],
    });
    const { host, children } = memoryHost(ws.workspace, ws.dataDir, 'default', { person: true });
    const t = turn(host, model, 'write');
    // the first child's call waits: recorded pending in the child's own session, shown as a data-wait labelled with the child
    await expect.poll(() => children[0]?.pending.has('w1'), { timeout: 10_000 }).toBe(true);
    const waiting = t.chunks.find((c) => c.type === 'data-wait') as unknown as { data: { sessionId: string; state: string; info: { from: { label: string } } } };
    expect(waiting.data).toMatchObject({ sessionId: children[0].sessionId, state: 'pending', info: { from: { label: 'general: job writer-a' } } });
    expect(fs.existsSync(`${ws.workspace}/a.txt`)).toBe(false);
    children[0].answers.set('w1', { answer: 'once' });
    wakeWaiters(children[0].sessionId, 'w1');
    // general children run one at a time: the second asks after the first is done
    await expect.poll(() => children[1]?.pending.has('w2'), { timeout: 10_000 }).toBe(true);
    expect(ws.read('a.txt')).toBe('hello\n');
    children[1].answers.set('w2', { answer: 'deny', reason: 'not that file' });
    wakeWaiters(children[1].sessionId, 'w2');
    const { last } = await t.done;
    expect(fs.existsSync(`${ws.workspace}/b.txt`)).toBe(false);
    const b = requests.filter((r) => r.who === 'writer-b');
    expect(promptText(b[1].options)).toContain('The user denied this call: not that file.');
    const ends = last!.parts.filter((p) => p.type === 'data-subagent').map((p) => (p as unknown as { data: SubagentView }).data);
    expect(ends.map((v) => [v.toolCallId, v.calls[0]?.state])).toEqual([
      ['p1', 'ok'],
      ['p2', 'denied'],
    ]);
  });
});

describe('subagents with nobody there', () => {
  it("a headless host decides a general child's call at once with its unattended verdict: no wait, no pending record", async () => {
    const { model } = routedModel([{ toolCalls: [agentCall('p1', 'general', 'unattended-w')] }, { text: 'ok' }], {
      'unattended-w': [{ toolCalls: [{ name: 'write_file', id: 'u1', args: { path: 'u.txt', content: 'auto\n' } }, { name: 'write_file', id: 'u2', args: { path: 'no.txt', content: 'x' } }] }, { text: 'done' }],
    });
    const m = memoryHost(ws.workspace, ws.dataDir, 'default');
    const host = { ...m.host, unattended: (_t: unknown, d: { reason: string }) => ({ ...d, action: (m.children.length && !fs.existsSync(`${ws.workspace}/u.txt`) ? 'allow' : 'deny') as 'allow' | 'deny', reason: 'decided by the run' }) };
    const { last } = await turn(host as typeof m.host, model, 'go').done;
    expect(ws.read('u.txt')).toBe('auto\n');
    expect(fs.existsSync(`${ws.workspace}/no.txt`)).toBe(false);
    expect(m.children[0].pending.size).toBe(0);
    const view = last!.parts.find((p) => p.type === 'data-subagent') as unknown as { data: SubagentView };
    expect(view.data.calls.map((c) => [c.toolCallId, c.state])).toEqual([
      ['u1', 'ok'],
      ['u2', 'denied'],
    ]);
  });
});

describe('ask_user', () => {
  it("waits for the person's answer, which is the tool's result the model reads next", async () => {
    const { model, requests } = routedModel([{ toolCalls: [{ name: 'ask_user', id: 'q1', args: { question: 'Which colour?', choices: ['red', 'blue'] } }] }, { text: 'Blue it is.' }], {});
    const { host, pending, answers } = memoryHost(ws.workspace, ws.dataDir, 'plan', { person: true });
    const t = turn(host, model, 'paint it');
    await expect.poll(() => pending.has('q1'), { timeout: 10_000 }).toBe(true);
    expect(pending.get('q1')!.info).toMatchObject({ toolName: 'ask_user', question: { question: 'Which colour?', choices: ['red', 'blue'] } });
    // plan mode lists it: asking changes nothing
    expect(requests[0].options.tools?.map((x) => x.name)).toContain('ask_user');
    answers.set('q1', { answer: 'once', reply: 'blue, the dark one' });
    wakeWaiters('s1', 'q1');
    await t.done;
    expect(promptText(requests[1].options, 'tool')).toContain('The user answered: blue, the dark one');
  });

  it('with nobody there (a headless host) it says so and is not listed; a stop while it waits gives a stopped result', async () => {
    const { model, requests } = routedModel([{ toolCalls: [{ name: 'ask_user', id: 'q1', args: { question: 'Which?' } }] }, { text: 'assumed' }], {});
    const headless = memoryHost(ws.workspace, ws.dataDir, 'default');
    await turn(headless.host, model, 'go').done;
    expect(requests[0].options.tools?.map((x) => x.name)).not.toContain('ask_user');
    expect(promptText(requests[1].options, 'tool')).toContain(NOBODY_TO_ASK);

    const m2 = routedModel([{ toolCalls: [{ name: 'ask_user', id: 'q2', args: { question: 'Which?' } }] }, { text: 'x' }], {});
    const live = memoryHost(ws.workspace, ws.dataDir, 'default', { person: true });
    const abort = new AbortController();
    const t = turn(live.host, m2.model, 'go', abort.signal);
    await expect.poll(() => live.pending.has('q2'), { timeout: 10_000 }).toBe(true);
    abort.abort(new Error('stopped by the user'));
    const { chunks } = await t.done;
    expect(live.pending.has('q2')).toBe(false);
    const waits = chunks.filter((c) => c.type === 'data-wait').map((c) => (c as unknown as { data: { state: string } }).data.state);
    expect(waits).toEqual(['pending', 'stopped']);
  });
});
