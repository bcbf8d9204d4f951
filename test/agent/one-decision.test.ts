/**
 * One exit, one decision: a call's policy verdict is made once (when it asked for approval, or just
 * before it ran) and travels with it; notes on a result (an edited command) are added before the
 * one exit clamp, so no result the model reads exceeds TOOL_OUTPUT_MAX_BYTES.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry, type Registry } from '../../lib/dispatch/registry';
import { createToolRegistry } from '../../lib/dispatch/all-tools';
import { defineTool, type PolicyDecision } from '../../lib/contract/types';
import { BUDGET } from '../../lib/contract/budget';
import { createScriptedModel, type ScriptTurn } from '../../lib/agent/scripted-model';
import { mergeIncoming } from '../../lib/agent/chat-request';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { runTestTurn } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const judged: string[] = [];
const ran: string[] = [];
/** a tool whose own policy counts how often it is asked, and says what `verdict` says */
function counted(name: string, effect: 'read' | 'write', verdict: PolicyDecision) {
  return defineTool({
    name,
    effect,
    schema: z.object({ n: z.number() }),
    describe: () => 'Counts its verdicts.',
    summary: (i) => String(i.n),
    policy: (i) => {
      judged.push(`${name}:${i.n}`);
      return verdict;
    },
    async run(i) {
      ran.push(`${name}:${i.n}`);
      return { output: `${name} ran ${i.n}` };
    },
  });
}
const reg = createRegistry([
  counted('look', 'read', { action: 'allow', reason: 'a harmless look' }),
  counted('change', 'write', { action: 'ask', reason: 'the policy wants a person', ruleKey: 'change' }),
]);

async function turn(host: ReturnType<typeof memoryHost>['host'], r: Registry, turns: ScriptTurn[], messages: ClampMessage[]) {
  return (await runTestTurn({ host, reg: r, model: createScriptedModel(turns), messages })).saved;
}
const user = (text: string): ClampMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });
const resume = (saved: ClampMessage[], h: ReturnType<typeof memoryHost>) => mergeIncoming(saved, { continue: { messageId: saved.at(-1)!.id } }, (id) => h.host.answerFor(id));

describe('policy is decided once per call', () => {
  it('a call that runs without asking is judged once, not again when it runs', async () => {
    judged.length = 0;
    ran.length = 0;
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    await turn(h.host, reg, [{ toolCalls: [{ name: 'look', args: { n: 1 }, id: 'l1' }] }, { text: 'ok' }], [user('go')]);
    expect(ran).toEqual(['look:1']);
    expect(judged).toEqual(['look:1']);
  });

  it('a call that asked runs on the verdict recorded with its approval: judged once, across the pause', async () => {
    judged.length = 0;
    ran.length = 0;
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const turns: ScriptTurn[] = [{ toolCalls: [{ name: 'change', args: { n: 2 }, id: 'c1' }] }, { text: 'ok' }];
    const first = await turn(h.host, reg, turns, [user('go')]);
    expect(h.pending.get('c1')?.info.decision).toMatchObject({ action: 'ask', reason: 'the policy wants a person', ruleKey: 'change' });
    h.answers.set('c1', { answer: 'once' });
    expect(h.host.answerFor('c1')?.decision).toMatchObject({ action: 'ask', reason: 'the policy wants a person' });
    const second = await turn(h.host, reg, turns, resume(first, h));
    expect(ran).toEqual(['change:2']);
    expect(judged).toEqual(['change:2']);
    const part = second.at(-1)!.parts.find((p) => (p.type as string) === 'tool-change') as unknown as { state: string; output: { output: string } };
    expect(part).toMatchObject({ state: 'output-available', output: { output: 'change ran 2' } });
  });
});

describe('notes come before the exit clamp', () => {
  it('an edited command whose output fills the cap still reaches the model within TOOL_OUTPUT_MAX_BYTES, note first', async () => {
    const h = memoryHost(ws.workspace, ws.dataDir, 'default');
    const turns: ScriptTurn[] = [{ toolCalls: [{ name: 'run_command', args: { command: 'touch x' }, id: 'e1' }] }, { text: 'ok' }];
    const all = createToolRegistry();
    const first = await turn(h.host, all, turns, [user('go')]);
    expect(h.pending.has('e1')).toBe(true);
    // run_command fits its own output to the cap; the note then has to fit inside it too
    h.answers.set('e1', { answer: 'edit', editedCommand: 'seq 1 200000' });
    const second = await turn(h.host, all, turns, resume(first, h));
    const part = second.at(-1)!.parts.find((p) => p.type === 'tool-run_command') as unknown as { output: { output: string; truncation: { by: string } | null; meta: Record<string, unknown> } };
    const out = part.output.output;
    expect(out.startsWith('The user edited the command before approving it. What ran: seq 1 200000\n(You proposed: touch x)\n\n')).toBe(true);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(BUDGET.TOOL_OUTPUT_MAX_BYTES);
    expect(part.output.meta).toMatchObject({ editedCommand: 'seq 1 200000', proposedCommand: 'touch x', exitCode: 0 });
  });
});
