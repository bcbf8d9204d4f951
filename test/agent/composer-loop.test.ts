/**
 * The loop's side of the composer: a steer ends the turn after the running step's tool calls and
 * before the next model step; a model picked mid-turn answers the next step, with one divider; an
 * attachment and a skill request reach the model as text.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistry } from '../../lib/dispatch/registry';
import { runTurn } from '../../lib/agent/run-turn';
import { createScriptedModel, type ScriptTurn } from '../../lib/agent/scripted-model';
import { requestSteer, steerRequested } from '../../lib/agent/steer';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { peekTool, runTestTurn, scriptedStatus } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

let onRun: () => void = () => undefined;
const reg = createRegistry([peekTool({ word: 'peeked', onRun: () => onRun() })]);

/** A scripted model that records the prompt of each call. */
function recording(name: string, turns: ScriptTurn[], prompts: unknown[][]) {
  const m = createScriptedModel(turns, name);
  const doStream = m.doStream.bind(m);
  m.doStream = async (opts) => {
    prompts.push([name, opts.prompt]);
    return doStream(opts);
  };
  return m;
}

async function run(o: { model: ReturnType<typeof createScriptedModel>; modelId: string; messages: ClampMessage[]; stepModel?: Parameters<typeof runTurn>[0]['stepModel'] }) {
  const { host } = memoryHost(ws.workspace, ws.dataDir);
  return (await runTestTurn({ host, reg, model: o.model, status: scriptedStatus({ model: o.modelId }), messages: o.messages, stepModel: o.stepModel })).saved;
}

const user = (text: string, extra: ClampMessage['parts'] = []): ClampMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }, ...extra] });

describe('the composer in the loop', () => {
  it('a steer during a step: its tool calls finish and are stored, the next model step is never asked', async () => {
    const prompts: unknown[][] = [];
    const model = recording('a', [{ toolCalls: [{ name: 'peek', args: { n: 1 } }] }, { text: 'never' }], prompts);
    onRun = () => requestSteer('s1');
    const saved = await run({ model, modelId: 'a', messages: [user('go')] });
    onRun = () => undefined;
    expect(prompts).toHaveLength(1);
    const parts = saved.at(-1)!.parts as Array<{ type: string; state?: string; text?: string }>;
    expect(parts.find((p) => p.type === 'tool-peek')?.state).toBe('output-available');
    expect(parts.some((p) => p.type === 'text' && p.text === 'never')).toBe(false);
    expect(steerRequested('s1')).toBe(true);
    // the next turn starts clean
    const again = await run({ model: recording('a', [{ text: 'fine' }], prompts), modelId: 'a', messages: [user('again')] });
    expect((again.at(-1)!.parts as Array<{ type: string; text?: string }>).some((p) => p.text === 'fine')).toBe(true);
    expect(steerRequested('s1')).toBe(false);
  });

  it('a model picked during the turn answers the next step; the switch is recorded once', async () => {
    const prompts: unknown[][] = [];
    const a = recording('a', [{ toolCalls: [{ name: 'peek', args: { n: 1 } }] }, { text: 'from a' }], prompts);
    const b = recording('b', [{ toolCalls: [{ name: 'peek', args: { n: 2 } }] }, { text: 'from b' }], prompts);
    let want: 'a' | 'b' = 'a';
    onRun = () => (want = 'b');
    const saved = await run({ model: a, modelId: 'a', messages: [user('go')], stepModel: () => (want === 'a' ? { id: 'a', model: a } : { id: 'b', model: b }) });
    onRun = () => undefined;
    expect(prompts.map((p) => p[0])).toEqual(['a', 'b']);
    const parts = saved.at(-1)!.parts as Array<{ type: string; data?: { from: string; to: string; model?: string } }>;
    expect(parts.filter((p) => p.type === 'data-model-switch').map((p) => p.data)).toEqual([{ from: 'a', to: 'b' }]);
    expect(parts.filter((p) => p.type === 'data-ledger').map((p) => p.data!.model)).toEqual(['a', 'b']);
  });

  it('attachments and a skill request reach the model as text', async () => {
    const prompts: unknown[][] = [];
    const model = recording('a', [{ text: 'ok' }], prompts);
    await run({
      model,
      modelId: 'a',
      messages: [
        user('/notes now', [
          { type: 'data-attachment', id: 'm0', data: { kind: 'mention', path: 'src/a.ts', status: 'ok', text: '1\tconst a = 1;\n', truncation: null } },
          { type: 'data-skill-request', id: 'skill', data: { name: 'notes', args: 'now' } },
        ]),
      ],
    });
    const sent = JSON.stringify(prompts[0][1]);
    expect(sent).toContain('The user attached @src/a.ts (read_file result):\\n1\\tconst a = 1;');
    expect(sent).toContain('The user invoked the skill \\"notes\\" (/notes). Load it first with the skill tool (name: \\"notes\\") and follow its instructions, with these arguments: now.');
  });
});
