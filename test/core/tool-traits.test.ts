import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InferUIMessageChunk, ModelMessage } from 'ai';
import { z } from 'zod';
import { defineTool, traitsOf, type ToolDefinition } from '../../lib/contract/types';
import { budgetTable } from '../../lib/contract/budget';
import type { ClampMessage } from '../../lib/contract/protocol';
import { createRegistry, listedTools } from '../../lib/dispatch/registry';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import { createTurnTools, deferrableBuiltins } from '../../lib/dispatch/turn-registry';
import { childRegistry } from '../../lib/agent/subagents/child-setup';
import { choosePrunes } from '../../lib/agent/context/prune';
import { buildView } from '../../lib/agent/context/view';
import { withToolSummaries } from '../../lib/agent/tool-summaries';
import { ruleKeysOf } from '../../lib/server/agent-host';
import { estimateRowPx, rowsOf } from '../../components/chat-rows';
import { harness, tempWorkspace } from '../helpers';

/**
 * Adding a tool is its module and the one list (all-tools.ts): every trait it has is declared on it.
 * Here a tool defined in this file only, with traits, is registered, dispatched, given to the subagent
 * type its traits name, deferred first, kept from pruning and shown open, by the real machinery.
 */
const probe = defineTool({
  name: 'fixture_probe',
  effect: 'read',
  traits: { deferRank: 0, subagents: ['explore'], prune: 'never', cardOpen: true },
  schema: z.strictObject({ text: z.string() }),
  describe: () => 'Echoes its text back (a fixture tool).',
  summary: (input) => `probe ${input.text}`,
  async run(input) {
    return { output: `echo: ${input.text}` };
  },
});
/** The same with no traits: every default. */
const plain = defineTool({ ...probe, name: 'fixture_plain', traits: undefined });

type Chunk = InferUIMessageChunk<ClampMessage>;
const budget = budgetTable();
const ctxOf = (ws: { workspace: string; dataDir: string }) => ({ workspace: ws.workspace, dataDir: ws.dataDir, services: {} });
const names = (tools: readonly ToolDefinition[]) => tools.map((t) => t.name);

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

describe('a tool defined with traits, in one place', () => {
  it('registers and is dispatched like any other', async () => {
    const h = harness([...ALL_TOOLS, probe], ws);
    expect(Object.hasOwn(h.reg, 'fixture_probe')).toBe(true);
    const r = await h.call('fixture_probe', { text: 'hi' });
    expect(r).toMatchObject({ status: 'ok', output: 'echo: hi' });
  });

  it('goes to the subagent types its traits name (defaults: explore and general for a read tool)', () => {
    const reg = createRegistry([...ALL_TOOLS, probe, plain]);
    expect(Object.hasOwn(childRegistry(reg, 'explore'), 'fixture_probe')).toBe(true);
    expect(Object.hasOwn(childRegistry(reg, 'general'), 'fixture_probe')).toBe(false);
    expect(Object.hasOwn(childRegistry(reg, 'explore'), 'fixture_plain')).toBe(true);
    expect(Object.hasOwn(childRegistry(reg, 'general'), 'fixture_plain')).toBe(true);
    // an explore subagent gets read tools only: a write tool claiming it does not register
    expect(() => createRegistry([{ ...probe, effect: 'write' }])).toThrow('an explore subagent gets read tools only');
  });

  it('is deferred first on a small window (rank 0), registered but not listed until tool_search loads it', () => {
    const builtins = [...ALL_TOOLS, probe];
    expect(deferrableBuiltins(builtins)[0]).toBe(probe);
    const loaded = new Set<string>();
    const turn = createTurnTools({ builtins, mcp: () => [], windowTokens: 32_768, budget, loaded, mode: () => 'default', ...ctxOf(ws) });
    const listed = () => names(listedTools(turn.reg, 'default', { ...ctxOf(ws), services: turn.services }));
    expect(turn.plan().deferred.has('fixture_probe')).toBe(true);
    expect(Object.hasOwn(turn.reg, 'fixture_probe')).toBe(true);
    expect(listed()).not.toContain('fixture_probe');
    expect(turn.systemSection()).toContain('- fixture_probe: Echoes its text back (a fixture tool).');
    loaded.add('fixture_probe');
    expect(listed()).toContain('fixture_probe');
    // with no rank a tool is never deferred
    const other = createTurnTools({ builtins: [...ALL_TOOLS, plain], mcp: () => [], windowTokens: 32_768, budget, loaded: new Set(), mode: () => 'default', ...ctxOf(ws) });
    expect(other.plan().deferred.has('fixture_plain')).toBe(false);
  });

  it('is never pruned when its traits say so; a tool without the trait is', () => {
    const reg = createRegistry([...ALL_TOOLS, probe, plain]);
    const big = 'x'.repeat(budget.CONTEXT_PRUNE_MIN_RESULT_BYTES + 100);
    const step = (id: string, toolName: string): ModelMessage[] => [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input: { text: id } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: big } }] },
    ];
    const all: ModelMessage[] = [{ role: 'user', content: 'go' }, ...step('a', 'fixture_probe'), ...step('b', 'fixture_plain'), ...step('c', 'todo_write'), { role: 'assistant', content: 'done' }];
    const items = choosePrunes(buildView(all, null, new Map()), new Map(), { latestStep: 10, keepSteps: 1, budget, dataDir: ws.dataDir, spillPaths: new Map(), fullText: () => undefined, registry: reg });
    expect(items.map((i) => i.toolName)).toEqual(['fixture_plain']);
  });

  it('is shown open on the page: the server says so with its summary, and no component names it', async () => {
    const reg = createRegistry([probe, plain]);
    const calls = [
      { type: 'tool-input-available', toolCallId: 'p1', toolName: 'fixture_probe', input: { text: 'hi' } },
      { type: 'tool-input-available', toolCallId: 'p2', toolName: 'fixture_plain', input: { text: 'hi' } },
    ] as Chunk[];
    const out: Chunk[] = [];
    for await (const c of withToolSummaries((async function* () { yield* calls; })(), reg, [])) out.push(c);
    const summaries = out.filter((c) => c.type === 'data-tool-summary').map((c) => (c as { data: unknown }).data);
    expect(summaries).toEqual([{ toolCallId: 'p1', summary: 'probe hi', open: true }, { toolCallId: 'p2', summary: 'probe hi' }]);

    const message = {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'tool-fixture_probe', toolCallId: 'p1', state: 'input-available', input: { text: 'hi' } },
        { type: 'tool-fixture_plain', toolCallId: 'p2', state: 'input-available', input: { text: 'hi' } },
        ...summaries.map((data, i) => ({ type: 'data-tool-summary', id: `summary-p${i + 1}`, data })),
      ],
    } as unknown as ClampMessage;
    const [open, closed] = rowsOf([message]);
    expect(open).toMatchObject({ kind: 'tool', summary: 'probe hi', open: true });
    expect(closed).toMatchObject({ kind: 'tool', summary: 'probe hi' });
    expect(estimateRowPx(open)).toBeGreaterThan(estimateRowPx(closed));
  });
});

describe('the built-in tools declare what the name lists said', () => {
  const all = ALL_TOOLS as readonly ToolDefinition[];
  const having = (pick: (t: ToolDefinition) => boolean) => names(all.filter(pick));

  it('deferrable, in the order a small window defers them', () => {
    expect(names(deferrableBuiltins(all))).toEqual(['skill', 'web_search', 'web_fetch', 'memory_save', 'memory_search', 'git_commit', 'git_log', 'git_diff', 'git_status', 'agent', 'task_kill', 'task_list', 'todo_read']);
  });

  it('given to subagents: no child gets agent or ask_user; explore gets the read tools but the plan and saved memories', () => {
    const reg = createRegistry(all);
    const readOnly = having((t) => t.effect === 'read');
    expect(Object.keys(childRegistry(reg, 'general'))).toEqual(names(all).filter((n) => n !== 'agent' && n !== 'ask_user'));
    expect(Object.keys(childRegistry(reg, 'explore'))).toEqual(readOnly.filter((n) => !['agent', 'ask_user', 'todo_write', 'memory_save'].includes(n)));
  });

  it('never pruned: the plan; cards open: commands and edits; a command: run_command', () => {
    expect(having((t) => traitsOf(t).prune === 'never')).toEqual(['todo_write', 'todo_read']);
    expect(having((t) => traitsOf(t).cardOpen)).toEqual(['edit_file', 'apply_patch', 'write_file', 'run_command']);
    expect(having((t) => traitsOf(t).command)).toEqual(['run_command']);
    const decision = { action: 'ask' as const, reason: 'r' };
    expect(ruleKeysOf(all.find((t) => t.name === 'run_command')!, decision)).toEqual([]);
    expect(ruleKeysOf(all.find((t) => t.name === 'git_commit')!, decision)).toBeNull();
    expect(ruleKeysOf(probe, decision)).toBeNull();
  });

  it('what a call does in an editor (activity): declared by search, fetch and plan tools, else from the side-effect class', () => {
    const of = (a: string) => having((t) => traitsOf(t).activity === a);
    expect(of('search')).toEqual(['glob', 'grep']);
    expect(of('fetch')).toEqual(['web_fetch', 'web_search']);
    expect(of('think')).toEqual(['todo_write', 'todo_read']);
    expect(of('execute')).toEqual(['run_command']);
    expect(of('edit')).toEqual(having((t) => t.effect === 'write'));
    // a tool that declares nothing (and every MCP tool) gets its class's
    expect(traitsOf({ effect: 'read' }).activity).toBe('read');
    expect(traitsOf({ effect: 'system' }).activity).toBe('other');
    expect(traitsOf({ effect: 'system', traits: { command: true } }).activity).toBe('execute');
  });
});
