import { z } from 'zod';
import { defineTool, ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../contract/types';

/** ctx.services key of the turn's deferred tools (lib/dispatch/turn-registry.ts provides it). */
export const TOOL_SEARCH_SERVICE = 'toolSearch';

/** A deferred tool's full definition, as tool_search returns it. */
export interface DeferredToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The deferred tools of a turn: which exist, and loading some (they are listed and callable from then on, in this session). */
export interface ToolSearchService {
  deferred(): DeferredToolInfo[];
  load(names: readonly string[]): void;
}

function serviceOf(ctx: Pick<ToolContext, 'services'>): ToolSearchService | undefined {
  const s = ctx.services[TOOL_SEARCH_SERVICE] as ToolSearchService | undefined;
  return s && typeof s.deferred === 'function' && typeof s.load === 'function' ? s : undefined;
}

const schema = z.strictObject({
  query: z.string().describe('Words to look for in tool names and descriptions, or "select:name1,name2" for exact names.'),
  max_results: z.number().int().min(1).optional().describe('How many definitions to return at most.'),
});

interface ToolSearchMeta {
  loaded: string[];
}

/** Score a tool against the query's words: a word in the name counts more than one in the description. */
function score(t: DeferredToolInfo, words: string[]): number {
  const name = t.name.toLowerCase();
  const desc = t.description.toLowerCase();
  let s = 0;
  for (const w of words) {
    if (name === w) s += 10;
    else if (name.includes(w)) s += 4;
    if (desc.includes(w)) s += 1;
  }
  return s;
}

export const toolSearchTool = defineTool({
  name: 'tool_search',
  effect: 'read',
  schema,
  nonEmpty: ['query'],
  describe: (b) =>
    `Load deferred tools. Some tools are not sent with every request to save context; the system prompt lists them by name and one line. ` +
    `This returns the full definitions (description and JSON parameters) of the deferred tools matching the query, at most ${b.TOOL_SEARCH_MAX_RESULTS} by default, ` +
    `and makes them callable from then on in this session. Query with words ("github issues") or exact names ("select:mcp__github__create_issue,git_log"). ` +
    `Call it before using a deferred tool; tools already in your tool list need no search.`,
  summary: (input, result?: ToolResult<ToolSearchMeta>) => `${input.query}${result?.meta?.loaded?.length ? ` → ${result.meta.loaded.join(', ')}` : ''}`,
  available: (ctx) => (serviceOf(ctx)?.deferred().length ?? 0) > 0,
  run: async (input, ctx): Promise<ToolOutput<ToolSearchMeta>> => {
    const svc = serviceOf(ctx);
    const all = svc?.deferred() ?? [];
    if (!svc || all.length === 0) throw new ToolError('No tools are deferred in this session: every tool is already in your tool list. Call them directly.');
    const max = Math.min(input.max_results ?? ctx.budget.TOOL_SEARCH_MAX_RESULTS, ctx.budget.TOOL_SEARCH_MAX_RESULTS);
    const q = input.query.trim();
    let found: DeferredToolInfo[];
    if (q.toLowerCase().startsWith('select:')) {
      const names = q.slice('select:'.length).split(',').map((s) => s.trim()).filter(Boolean);
      found = names.map((n) => all.find((t) => t.name === n)).filter((t): t is DeferredToolInfo => !!t).slice(0, max);
      const missing = names.filter((n) => !all.some((t) => t.name === n));
      if (found.length === 0) {
        throw new ToolError(`No deferred tool is named ${missing.join(', ')}. Deferred tools: ${all.map((t) => t.name).join(', ')}.`);
      }
    } else {
      const words = q.toLowerCase().split(/[\s,]+/).filter(Boolean);
      found = all
        .map((t) => ({ t, s: score(t, words) }))
        .filter((x) => x.s > 0)
        .sort((a, b) => b.s - a.s)
        .slice(0, max)
        .map((x) => x.t);
      if (found.length === 0) {
        throw new ToolError(`No deferred tool matches "${q}". Deferred tools: ${all.map((t) => t.name).join(', ')}. Search with other words, or select one by name ("select:<name>").`);
      }
    }
    svc.load(found.map((t) => t.name));
    const defs = found.map((t) => `<function>${JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })}</function>`);
    return {
      output: `${found.length} tool${found.length === 1 ? '' : 's'} loaded; call ${found.length === 1 ? 'it' : 'them'} by name from now on:\n${defs.join('\n')}`,
      meta: { loaded: found.map((t) => t.name) },
    };
  },
});
