/**
 * Every call the model makes reaches dispatch, and the model reads dispatch's text: an unknown tool,
 * a tool the mode forbids, malformed JSON, arguments that fail the schema, and a person's denial.
 * None of them is a provider error on the page (no data-notice, no tool error part).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UIMessageChunk } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { createRegistry } from '../../lib/dispatch/registry';
import { mergeIncoming } from '../../lib/agent/chat-request';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { appendTool, mockStep, OK_TEXT, peekTool, runTestTurn } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

let peeks = 0;
const reg = createRegistry([peekTool({ onRun: () => void peeks++ }), appendTool()]);

type Call = { id: string; name: string; input: string };

/** A model that makes the given calls (raw argument text) on its first step and says "ok" after; it records each prompt and tool list. */
function modelCalling(calls: Call[]) {
  const prompts: LanguageModelV3CallOptions['prompt'][] = [];
  const listed: string[][] = [];
  const model = new MockLanguageModelV3({
    doStream: async (o) => {
      prompts.push(o.prompt);
      listed.push((o.tools ?? []).map((t) => t.name));
      const first = o.prompt.filter((m) => m.role === 'assistant').length === 0;
      const parts: LanguageModelV3StreamPart[] = first ? calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input })) : OK_TEXT;
      return mockStep(parts, first ? 'tool-calls' : 'stop');
    },
  });
  return { model, prompts, listed };
}

async function turn(host: ReturnType<typeof memoryHost>['host'], model: MockLanguageModelV3, messages: ClampMessage[]) {
  const { saved, chunks } = await runTestTurn({ host, reg, model, messages });
  return { saved, chunks };
}

/** What the model read for each call of the first step, by tool call id (from the second request's tool message). */
function readBack(prompt: LanguageModelV3CallOptions['prompt']): Record<string, { type: string; text: string }> {
  const out: Record<string, { type: string; text: string }> = {};
  for (const m of prompt) {
    if (m.role !== 'tool') continue;
    for (const p of m.content) {
      if (p.type !== 'tool-result') continue;
      const o = p.output as { type: string; value?: string; reason?: string };
      out[p.toolCallId] = { type: o.type, text: o.value ?? o.reason ?? '' };
    }
  }
  return out;
}

/** No part of the turn looks like a provider failure to the page. */
function expectNoProviderError(chunks: UIMessageChunk[]) {
  const bad = chunks.filter((c) => c.type === 'error' || c.type === 'data-notice' || c.type === 'tool-output-error' || c.type === 'tool-input-error');
  expect(bad).toEqual([]);
}

const user = (text: string): ClampMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });

describe('every call reaches dispatch and the model reads its text', () => {
  it('an unknown tool, malformed JSON and arguments that fail the schema: dispatch answers each, the turn goes on', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const m = modelCalling([
      { id: 'c-unknown', name: 'nope', input: '{}' },
      { id: 'c-proto', name: 'constructor', input: '{}' },
      { id: 'c-malformed', name: 'peek', input: '{"n": 1 "x": 2}' },
      { id: 'c-invalid', name: 'peek', input: '{"n":"x"}' },
      { id: 'c-fine', name: 'peek', input: '{"n":7}' },
    ]);
    peeks = 0;
    const { saved, chunks } = await turn(h.host, m.model, [user('go')]);
    expect(m.prompts).toHaveLength(2);
    expect(readBack(m.prompts[1])).toEqual({
      'c-unknown': { type: 'error-text', text: 'Unknown tool `nope`. Available: peek, append.' },
      'c-proto': { type: 'error-text', text: 'Unknown tool `constructor`. Available: peek, append.' },
      'c-malformed': { type: 'error-text', text: "Invalid arguments for peek: they are not valid JSON. Send a JSON object matching the tool's schema." },
      'c-invalid': { type: 'error-text', text: 'Invalid arguments for peek:\n- `n`: expected number, got the string "x"\nFix the arguments and call peek again.' },
      'c-fine': { type: 'text', text: 'read 7' },
    });
    expect(peeks).toBe(1);
    expectNoProviderError(chunks);
    // the page gets each call's card with dispatch's result, under the name the model used
    const cards = saved.at(-1)!.parts.filter((p) => 'toolCallId' in p) as Array<{ toolCallId: string; state: string; type: string; toolName?: string; output?: { status: string; output: string } }>;
    expect(cards.map((p) => [p.toolCallId, p.state, p.output?.status])).toEqual([
      ['c-unknown', 'output-available', 'error'],
      ['c-proto', 'output-available', 'error'],
      ['c-malformed', 'output-available', 'error'],
      ['c-invalid', 'output-available', 'error'],
      ['c-fine', 'output-available', 'ok'],
    ]);
    expect(cards[0]).toMatchObject({ type: 'dynamic-tool', toolName: 'nope' });
    expect(cards[2]).toMatchObject({ type: 'tool-peek' });
    expect(saved.at(-1)!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toBe('ok');

    // the next turn, rebuilt from the stored conversation, still gives the model dispatch's texts
    const next = modelCalling([]);
    await turn(h.host, next.model, [...saved, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'again' }] }]);
    const replayed = readBack(next.prompts[0]);
    expect(replayed['c-unknown']).toEqual({ type: 'error-text', text: 'Unknown tool `nope`. Available: peek, append.' });
    expect(replayed['c-malformed'].text).toBe("Invalid arguments for peek: they are not valid JSON. Send a JSON object matching the tool's schema.");
  });

  it('a tool the mode forbids: not listed to the model, and refused by dispatch when called anyway', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'plan');
    const m = modelCalling([{ id: 'c-write', name: 'append', input: JSON.stringify({ path: 'a.txt', text: 'x' }) }]);
    const { saved, chunks } = await turn(h.host, m.model, [user('go')]);
    expect(m.listed[0]).toEqual(['peek']);
    expect(readBack(m.prompts[1])).toEqual({
      'c-write': { type: 'text', text: 'append is not available: file changes are not allowed in plan mode. Do not retry it; use the read-only tools, or ask the user to switch modes.' },
    });
    expect(fs.existsSync(path.join(ws.workspace, 'a.txt'))).toBe(false);
    expect(h.pending.size).toBe(0);
    expectNoProviderError(chunks);
    const card = saved.at(-1)!.parts.find((p) => (p.type as string) === 'tool-append') as unknown as { state: string; output: { status: string } };
    expect(card).toMatchObject({ state: 'output-available', output: { status: 'denied' } });
  });

  it("a person's denial: the model reads dispatch's denial text with the reason", async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const m = modelCalling([{ id: 'c-ask', name: 'append', input: JSON.stringify({ path: 'a.txt', text: 'x' }) }]);
    const r1 = await turn(h.host, m.model, [user('go')]);
    expect(h.pending.get('c-ask')?.info.decision).toMatchObject({ action: 'ask' });
    h.answers.set('c-ask', { answer: 'deny', reason: '  not that file ' });
    const merged = mergeIncoming(r1.saved, { continue: { messageId: r1.saved.at(-1)!.id } }, (id) => h.host.answerFor(id));
    const r2 = await turn(h.host, m.model, merged);
    expect(readBack(m.prompts.at(-1)!)).toEqual({
      'c-ask': { type: 'execution-denied', text: 'The user denied this call: not that file. Do not retry it; ask the user what to do instead.' },
    });
    expect(fs.existsSync(path.join(ws.workspace, 'a.txt'))).toBe(false);
    expectNoProviderError([...r1.chunks, ...r2.chunks]);
  });

  it('a denial without a reason says so', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const m = modelCalling([{ id: 'c-ask', name: 'append', input: JSON.stringify({ path: 'a.txt', text: 'x' }) }]);
    const r1 = await turn(h.host, m.model, [user('go')]);
    h.answers.set('c-ask', { answer: 'deny' });
    await turn(h.host, m.model, mergeIncoming(r1.saved, { continue: { messageId: r1.saved.at(-1)!.id } }, (id) => h.host.answerFor(id)));
    expect(readBack(m.prompts.at(-1)!)['c-ask'].text).toBe('The user denied this call: no reason given. Do not retry it; ask the user what to do instead.');
  });
});
