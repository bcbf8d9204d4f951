import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { createRegistry } from '../../lib/dispatch/registry';
import { CallIds, madeCallId, providerCallId } from '../../lib/agent/call-ids';
import { createScriptedModel, type ScriptTurn } from '../../lib/agent/scripted-model';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { peekTool, runTestTurn } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const reg = createRegistry([peekTool()]);
const user = (text: string, id = 'u1'): ClampMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** The scripted model, with every prompt it was sent kept. */
function recording(turns: ScriptTurn[]): { model: LanguageModelV3; prompts: LanguageModelV3CallOptions['prompt'][] } {
  const inner = createScriptedModel(turns);
  const prompts: LanguageModelV3CallOptions['prompt'][] = [];
  return {
    prompts,
    model: { ...inner, doStream: (o) => (prompts.push(o.prompt), inner.doStream(o)), doGenerate: (o) => (prompts.push(o.prompt), inner.doGenerate(o)) },
  };
}

/** Every tool call id and tool result id of a prompt, in order. */
function promptIds(prompt: LanguageModelV3CallOptions['prompt']): string[] {
  return prompt.flatMap((m) => (m.role === 'assistant' || m.role === 'tool' ? (m.content as Array<{ toolCallId?: string }>).flatMap((p) => (p.toolCallId ? [p.toolCallId] : [])) : []));
}

describe("Clamp's tool call ids", () => {
  it('keeps a fresh url-safe id, and makes one for a reused, stored, unsafe or Clamp-looking id; each decodes to the provider id', () => {
    const stored = new Set(['call_9']);
    const ids = new CallIds((id) => stored.has(id));
    ids.seen(['call_1']);
    expect(ids.assign('call_0')).toBe('call_0');
    const again = ids.assign('call_0');
    const seen = ids.assign('call_1');
    const inStore = ids.assign('call_9');
    const unsafe = ids.assign('functions.write_file:0');
    const looksMade = ids.assign(madeCallId('x'));
    for (const id of [again, seen, inStore, unsafe, looksMade]) expect(id).toMatch(/^[A-Za-z0-9_-]{1,100}$/);
    expect(new Set(['call_0', again, seen, inStore, unsafe, looksMade]).size).toBe(6);
    expect([again, seen, inStore, unsafe].map(providerCallId)).toEqual(['call_0', 'call_1', 'call_9', 'functions.write_file:0']);
    expect(providerCallId(looksMade)).toMatch(/^x-clamp[0-9a-z]{8}$/);
    // an id Clamp did not make is the provider's own
    expect(providerCallId('toolu_01ABC')).toBe('toolu_01ABC');
    // when the store cannot answer, a made id is the safe choice
    expect(new CallIds(() => { throw new Error('closed'); }).assign('call_5')).not.toBe('call_5');
  });

  it('a model that names every call call_0: each step of one turn has its own call with its own result, and the model reads call_0 back', async () => {
    const { host } = memoryHost(ws.workspace, ws.dataDir);
    const { model, prompts } = recording([
      { toolCalls: [{ name: 'peek', args: { n: 1 }, id: 'call_0' }] },
      { toolCalls: [{ name: 'peek', args: { n: 2 }, id: 'call_0' }] },
      { toolCalls: [{ name: 'peek', args: { n: 3 }, id: 'call_0' }] },
      { text: 'done' },
    ]);
    const { saved } = await runTestTurn({ host, reg, model, messages: [user('go')] });
    const calls = saved.flatMap((m) => (m.parts as Array<{ type: string }>).filter((p) => p.type === 'tool-peek')) as unknown as Array<{ toolCallId: string; input: { n: number }; state: string; output: { output: string } }>;
    expect(calls.map((c) => [c.input.n, c.state, c.output.output])).toEqual([
      [1, 'output-available', 'read 1'],
      [2, 'output-available', 'read 2'],
      [3, 'output-available', 'read 3'],
    ]);
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(3);
    expect(calls.map((c) => providerCallId(c.toolCallId))).toEqual(['call_0', 'call_0', 'call_0']);
    expect(promptIds(prompts.at(-1)!)).toEqual(['call_0', 'call_0', 'call_0', 'call_0', 'call_0', 'call_0']);

    // the next turn's call_0 is new too: not one of the calls the conversation holds, nor one the store has
    const used = new Set(calls.map((c) => c.toolCallId));
    const again = await runTestTurn({ host: { ...host, callIdUsed: (id) => id === 'call_7' }, reg, model: createScriptedModel([...Array(4).fill({ text: 'x' }), { toolCalls: [{ name: 'peek', args: { n: 4 }, id: 'call_0' }, { name: 'peek', args: { n: 5 }, id: 'call_7' }] }, { text: 'done' }]), messages: [...saved, user('more', 'u2')] });
    const next = (again.saved.at(-1)!.parts as Array<{ type: string }>).filter((p) => p.type === 'tool-peek') as unknown as Array<{ toolCallId: string }>;
    expect(next).toHaveLength(2);
    for (const c of next) expect(used.has(c.toolCallId) || c.toolCallId === 'call_7').toBe(false);
  });
});
