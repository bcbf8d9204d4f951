import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, hubBed } from './hub-bed';
import { listedTools } from '../../lib/dispatch/registry';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import { planDeferral, deferrableBuiltins } from '../../lib/dispatch/turn-registry';
import { definitionsTokens } from '../../lib/dispatch/tool-cost';
import { budgetTable } from '../../lib/contract/budget';
import { convertInputSchema } from '../../lib/mcp/schema';
import { mcpToolName } from '../../lib/mcp/config';

describe('deferred MCP tools and tool_search', () => {
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    // a budget every server's tools exceed: they are all deferred
    bed = hubBed({ everything: { command: BIN('mcp-server-everything'), args: ['stdio'] } }, { budget: { MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS: 100 } });
    await bed.hub.prepare();
  }, 60_000);
  afterAll(() => bed.close());

  const listed = (t: ReturnType<typeof bed.turn>) => listedTools(t.reg, 'default', { workspace: bed.ws.workspace, dataDir: bed.ws.dataDir, services: t.services }).map((x) => x.name);

  it('over the budget the MCP tools are not sent: the system prompt lists each by name and one line, tool_search is listed', () => {
    const turn = bed.turn();
    const names = listed(turn);
    expect(names.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(names).toContain('tool_search');
    const section = turn.systemSection();
    expect(section).toContain('Deferred tools');
    expect(section).toMatch(/^- mcp__everything__echo: Echoes back the input string/m);
    for (const line of section.split('\n').filter((l) => l.startsWith('- '))) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(bed.budget.DEFERRED_TOOL_LINE_MAX_BYTES);
    // still registered: a call reaches dispatch (validated as ever)
    expect(Object.hasOwn(turn.reg, 'mcp__everything__echo')).toBe(true);
    const plan = turn.plan();
    expect(plan.deferredTokens).toBe(plan.mcpTokens);
  });

  it('tool_search returns full definitions of matching tools, which are listed from then on', async () => {
    const r = await bed.call('tool_search', { query: 'echo' });
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/^1 tool loaded; call it by name from now on:\n<function>\{"name":"mcp__everything__echo","description":"Echoes back the input string/);
    expect(r.output).toContain('"parameters":{"type":"object","properties":{"message"');
    const turn = bed.turn();
    expect(listed(turn)).toContain('mcp__everything__echo');
    expect(listed(turn)).not.toContain('mcp__everything__get_sum');
    const sel = await bed.call('tool_search', { query: 'select:mcp__everything__get_sum,nope' });
    expect(sel.output).toContain('"name":"mcp__everything__get_sum"');
    expect(listed(bed.turn())).toContain('mcp__everything__get_sum');
    const none = await bed.call('tool_search', { query: 'kubernetes' });
    expect(none.status).toBe('error');
    expect(none.output).toContain('No deferred tool matches "kubernetes". Deferred tools: mcp__everything__');
  });

  it('under the budget nothing is deferred and tool_search is not listed', () => {
    const plan = planDeferral({ builtins: [], mcp: bed.hub.tools(), windowTokens: 200_000, loaded: new Set(), budget: budgetTable() });
    expect(plan.deferred.size).toBe(0);
  });
});

describe('deferred built-ins on a small window', () => {
  const budget = budgetTable();
  const builtins = ALL_TOOLS.filter((t) => t.name !== 'tool_search' && t.name !== 'web_search');
  const search = ALL_TOOLS.find((t) => t.name === 'tool_search');

  it('a 200k window defers nothing; a 32k window defers the least-used until the rest fits a tenth of it', () => {
    expect(planDeferral({ builtins, mcp: [], search, windowTokens: 200_000, loaded: new Set(), budget }).deferred.size).toBe(0);
    const small = planDeferral({ builtins, mcp: [], search, windowTokens: 32_768, loaded: new Set(), budget });
    expect(definitionsTokens(builtins, budget)).toBeGreaterThan(32_768 * budget.BUILTIN_TOOLS_WINDOW_MAX_RATIO);
    expect(small.deferred.size).toBeGreaterThan(0);
    const deferrable: string[] = deferrableBuiltins(builtins).map((t) => t.name);
    expect([...small.deferred].every((n) => deferrable.includes(n))).toBe(true);
    expect(small.deferred.has('read_file')).toBe(false);
    expect(small.alwaysLoadedTokens).toBeLessThanOrEqual(32_768 * budget.BUILTIN_TOOLS_WINDOW_MAX_RATIO);
    // the order: skills and web first
    expect(small.deferred.has('skill')).toBe(true);
  });

  it('a loaded built-in is sent again', () => {
    const small = planDeferral({ builtins, mcp: [], search, windowTokens: 32_768, loaded: new Set(['skill']), budget });
    expect(small.deferred.has('skill')).toBe(false);
  });
});

describe('schemas for the providers', () => {
  it('adds the missing top-level type, merges a top-level union of objects, strips $schema', () => {
    expect(convertInputSchema({ properties: { a: { type: 'string' } } }, 16_000)).toEqual({ ok: true, schema: { type: 'object', properties: { a: { type: 'string' } } }, repairs: ['"type": "object" added at the top'] });
    const u = convertInputSchema({ $schema: 'x', anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'number' } } }] }, 16_000);
    expect(u).toMatchObject({ ok: true, schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } } });
    expect(convertInputSchema(undefined, 16_000)).toMatchObject({ ok: true, schema: { type: 'object', properties: {} } });
  });

  it('gives an array without items an empty one (OpenAI refuses it), without touching the server\'s schema', () => {
    const raw = { type: 'object', properties: { tags: { type: 'array' }, deep: { type: 'object', properties: { ids: { type: ['array', 'null'] } } } } };
    const c = convertInputSchema(raw, 16_000);
    expect(c).toMatchObject({ ok: true, schema: { properties: { tags: { type: 'array', items: {} }, deep: { properties: { ids: { items: {} } } } } }, repairs: ['"items" added to 2 array schemas (OpenAI refuses an array without it)'] });
    expect(raw.properties.tags).toEqual({ type: 'array' });
  });

  it('refuses what cannot be repaired, with the reason', () => {
    expect(convertInputSchema({ type: 'object', properties: { 'has space': { type: 'string' } } }, 16_000)).toMatchObject({ ok: false, reason: expect.stringContaining('refused by Anthropic') });
    expect(convertInputSchema({ type: 'string' }, 16_000)).toEqual({ ok: false, reason: 'its input schema\'s top level is "string"; providers need an object' });
    expect(convertInputSchema({ oneOf: [{ type: 'string' }, { type: 'object' }] }, 16_000)).toMatchObject({ ok: false, reason: expect.stringContaining('oneOf of non-object schemas') });
    expect(convertInputSchema({ type: 'object', properties: { a: { description: 'x'.repeat(200) } } }, 100)).toMatchObject({ ok: false, reason: expect.stringContaining('MCP_TOOL_SCHEMA_MAX_BYTES') });
  });

  it('names: mcp__<server>__<tool>, sanitised, and cut to the providers\' limit keeping them unique', () => {
    expect(mcpToolName('My Server', 'get.Thing-2', 64)).toBe('mcp__my_server__get_thing_2');
    const long = mcpToolName('s', 'a'.repeat(100), 64);
    expect(long).toHaveLength(64);
    expect(long).not.toBe(mcpToolName('s', 'a'.repeat(101), 64));
    expect(long).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});
