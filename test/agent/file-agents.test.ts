import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../lib/agent/run-turn';
import type { ClampMessage } from '../../lib/contract/protocol';
import { createRegistry } from '../../lib/dispatch/registry';
import { agentTool } from '../../lib/tools/agents/agent';
import { scanAgents } from '../../lib/tools/agents/agent-files';
import { grepTool } from '../../lib/tools/grep/grep';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { writeFileTool } from '../../lib/tools/write-file';
import { tempWorkspace } from '../helpers';
import { memoryHost } from './memory-host';
import { promptText, routedModel } from './routed-model';
import { scriptedStatus, TEST_APPROVAL_SECRET } from './stand-in';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const REVIEWER = '---\nname: reviewer\ndescription: Reviews code for bugs, read-only\ntools: Read, Grep\nmodel: sonnet\n---\nYou are a strict code reviewer. Cite file:line for every finding.\n';
const reg = createRegistry([readFileTool, writeFileTool, grepTool, agentTool]);

async function turn(host: ReturnType<typeof memoryHost>['host'], model: ReturnType<typeof routedModel>['model'], text: string) {
  const stream = runTurn({ host, reg, model, status: scriptedStatus(), messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }], signal: new AbortController().signal, approvalSecret: TEST_APPROVAL_SECRET, maxRetries: 0, save: () => undefined });
  let last: ClampMessage | undefined;
  for await (const m of readUIMessageStream<ClampMessage>({ stream: stream as ReadableStream<UIMessageChunk> })) last = m;
  return last!;
}

const call = (type: string) => ({ name: 'agent', id: 'p1', args: { type, description: 'review util', prompt: 'review-job: review src/util.ts' } });

describe('agent types from files', () => {
  it('reads .claude/agents with Claude Code front matter; explore and general stay Clamp’s', () => {
    ws.write('.claude/agents/reviewer.md', REVIEWER);
    ws.write('.claude/agents/general.md', '---\nname: general\ndescription: x\n---\nbody\n');
    ws.write('.clamp/agents/no-desc.md', '---\nname: nodesc\n---\nbody\n');
    const { agents, skipped } = scanAgents(ws.workspace, ws.dataDir);
    expect(agents).toEqual([{ name: 'reviewer', description: 'Reviews code for bugs, read-only', tools: ['Read', 'Grep'], model: 'sonnet', prompt: 'You are a strict code reviewer. Cite file:line for every finding.', path: `${ws.workspace}/.claude/agents/reviewer.md`, source: 'workspace' }]);
    expect(skipped.map((s) => s.reason)).toEqual(['no description', "general is one of Clamp's own agent types"]);
  });

  it('is offered in the system prompt; its child gets only its tools and its prompt; the card shows its cost', async () => {
    ws.write('.claude/agents/reviewer.md', REVIEWER);
    ws.write('src/util.ts', 'export const x = 1;\n');
    const { model, requests } = routedModel(
      [{ toolCalls: [call('reviewer')] }, { text: 'Reviewed.' }],
      {
        'review-job': [
          { toolCalls: [{ name: 'write_file', id: 'c1', args: { path: 'src/util.ts', content: 'hacked' } }] },
          { toolCalls: [{ name: 'read_file', id: 'c2', args: { path: 'src/util.ts' } }] },
          { text: 'REPORT: src/util.ts:1 is fine.' },
        ],
      },
    );
    const { host, children } = memoryHost(ws.workspace, ws.dataDir, 'auto');
    const last = await turn(host, model, 'review it');
    const parent = requests.filter((r) => r.who === 'parent');
    expect(promptText(parent[0].options, 'system')).toContain('- reviewer: Reviews code for bugs, read-only');
    const child = requests.filter((r) => r.who === 'review-job');
    expect((child[0].options.tools ?? []).map((t) => t.name).sort()).toEqual(['grep', 'read_file']);
    const sys = promptText(child[0].options, 'system');
    expect(sys).toContain('You are the "reviewer" agent. You have only these tools: Read, Grep');
    expect(sys).toContain('You are a strict code reviewer. Cite file:line for every finding.');
    // the write the file's agent was not given never ran
    expect(ws.read('src/util.ts')).toBe('export const x = 1;\n');
    expect(promptText(child[1].options, 'tool')).toMatch(/write_file/);
    expect(children[0]).toMatchObject({ type: 'general', description: 'review util' });
    const card = last.parts.find((p) => p.type === 'tool-agent') as unknown as { output: { status: string; output: string; meta: { steps: number; tokens: number } } };
    expect(card.output.status).toBe('ok');
    expect(card.output.output).toContain('[subagent reviewer "review util" finished: 3 steps');
    expect(card.output.meta.steps).toBe(3);
    expect(agentTool.summary({ type: 'reviewer', description: 'review util', prompt: '' }, card.output as never)).toMatch(/^reviewer: review util · 3 steps, 2 calls, [\d,]+ tokens$/);
  });

  it('an unknown type names every type', async () => {
    ws.write('.claude/agents/reviewer.md', REVIEWER);
    const { model, requests } = routedModel([{ toolCalls: [call('reviwer')] }, { text: 'ok' }], {});
    const { host } = memoryHost(ws.workspace, ws.dataDir, 'auto');
    await turn(host, model, 'go');
    const text = promptText(requests.filter((r) => r.who === 'parent')[1].options, 'tool');
    expect(text).toContain('There is no agent type');
    expect(text).toContain('Types: explore, general, reviewer.');
  });
});
