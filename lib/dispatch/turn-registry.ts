import type { Budget } from '../contract/budget';
import { traitsOf, type PermissionMode, type ToolContext, type ToolDefinition } from '../contract/types';
import { headBytes } from '../contract/text';
import { modeAllowsEffect } from '../policy/modes';
import { TOOL_SEARCH_SERVICE, toolSearchTool, type DeferredToolInfo, type ToolSearchService } from '../tools/tool-search';
import type { Registry } from './registry';
import { describeTool, modelSchema } from './registry';
import { definitionTokens, definitionTokensBound, definitionsTokens } from './tool-cost';

/**
 * The built-ins a small window may defer, in the order it defers them: those whose traits give a
 * defer rank, lowest first (the tools a coding turn cannot do without declare none).
 */
export function deferrableBuiltins<T extends ToolDefinition>(builtins: readonly T[]): T[] {
  const rank = (t: ToolDefinition) => traitsOf(t).deferRank;
  return builtins.filter((t) => rank(t) !== null).sort((a, b) => rank(a)! - rank(b)!);
}

/** Which listed tools are not sent this step, and what the definitions cost. */
export interface DeferralPlan {
  deferred: Set<string>;
  /** definitions sent with every request (tool_search's included when something is deferred) */
  alwaysLoadedTokens: number;
  deferredTokens: number;
  /** every listed MCP tool's definitions, deferred or not */
  mcpTokens: number;
}

/**
 * Decide what to defer. MCP tools: when the listed ones together cost more than
 * MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS, none is sent (those tool_search loaded are). Built-ins: while what
 * is always sent exceeds BUILTIN_TOOLS_WINDOW_MAX_RATIO of the window, the deferrable ones are deferred
 * in the order of their traits' defer rank. `search` is tool_search, counted once anything is deferred. Pure.
 */
export function planDeferral(o: {
  builtins: readonly ToolDefinition[];
  mcp: readonly ToolDefinition[];
  search?: ToolDefinition;
  windowTokens: number;
  loaded: ReadonlySet<string>;
  budget: Budget;
}): DeferralPlan {
  const share = o.windowTokens * o.budget.BUILTIN_TOOLS_WINDOW_MAX_RATIO;
  // no MCP tools and the built-ins' bytes (an upper bound of their tokens) within the share: nothing is
  // deferred, whatever the exact count; it is made only when asked for (the tokenizer loads then)
  if (o.mcp.length === 0 && o.builtins.reduce((n, t) => n + definitionTokensBound(t, o.budget), 0) <= share) {
    let always: number | undefined;
    return {
      deferred: new Set(),
      get alwaysLoadedTokens() {
        return (always ??= definitionsTokens(o.builtins, o.budget));
      },
      deferredTokens: 0,
      mcpTokens: 0,
    };
  }
  const cost = (t: ToolDefinition) => definitionTokens(t, o.budget);
  const deferred = new Set<string>();
  const mcpTokens = definitionsTokens(o.mcp, o.budget);
  if (mcpTokens > o.budget.MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS) for (const t of o.mcp) if (!o.loaded.has(t.name)) deferred.add(t.name);
  const searchCost = o.search ? cost(o.search) : 0;
  let always = definitionsTokens(o.builtins, o.budget) + o.mcp.filter((t) => !deferred.has(t.name)).reduce((n, t) => n + cost(t), 0) + (deferred.size ? searchCost : 0);
  for (const t of deferrableBuiltins(o.builtins)) {
    if (always <= share) break;
    if (o.loaded.has(t.name)) continue;
    if (deferred.size === 0) always += searchCost;
    deferred.add(t.name);
    always -= cost(t);
  }
  const all = [...o.builtins, ...o.mcp];
  const deferredTokens = all.filter((t) => deferred.has(t.name)).reduce((n, t) => n + cost(t), 0);
  return { deferred, alwaysLoadedTokens: always, deferredTokens, mcpTokens };
}

export interface TurnToolsInit {
  /** the built-in tools, tool_search among them */
  builtins: readonly ToolDefinition[];
  /** the MCP tools as they are now (the same array while nothing changed): read at every look-up, so a changed list holds from the next step */
  mcp: () => readonly ToolDefinition[];
  windowTokens: number;
  budget: Budget;
  /** the deferred tools this session loaded with tool_search (kept by the caller across turns) */
  loaded: Set<string>;
  mode: () => PermissionMode;
  workspace: string;
  dataDir: string;
}

export interface TurnTools {
  /** the turn's registry: built-ins and MCP tools, live (a deferred tool is registered but not listed) */
  reg: Registry;
  /** what tool_search reads (put it in ctx.services under TOOL_SEARCH_SERVICE) */
  services: Record<string, unknown>;
  plan(): DeferralPlan;
  /** the system prompt's list of deferred tools (empty when none is deferred) */
  systemSection(): string;
}

type AvailCtx = Pick<ToolContext, 'workspace' | 'dataDir' | 'services'>;
type ToolMap = Record<string, ToolDefinition>;

/** The turn's deferral plan, made again only when the MCP tools, the mode or the loaded set changed; `seen` keeps the context listing last asked with. */
function deferralPlanner(init: TurnToolsInit, search: ToolDefinition | undefined): { planNow: () => DeferralPlan; seen: (ctx: AvailCtx) => void } {
  const plain = init.builtins.filter((t) => t !== search);
  let lastCtx: AvailCtx = { workspace: init.workspace, dataDir: init.dataDir, services: {} };
  let memo: { key: string; mcp: readonly ToolDefinition[]; plan: DeferralPlan } | null = null;
  // the mode is read from the store; a listing asks once per tool in one go, so one read serves until the next microtask
  let modeNow: PermissionMode | null = null;
  const readMode = (): PermissionMode => {
    if (modeNow === null) {
      modeNow = init.mode();
      queueMicrotask(() => (modeNow = null));
    }
    return modeNow;
  };
  const planNow = (): DeferralPlan => {
    const mcp = init.mcp();
    const mode = readMode();
    const key = `${mode}\u0000${init.loaded.size}`;
    if (memo && memo.mcp === mcp && memo.key === key) return memo.plan;
    const listed = (t: ToolDefinition) => modeAllowsEffect(mode, t.effect) && (t.available?.(lastCtx) ?? true);
    const plan = planDeferral({ builtins: plain.filter(listed), mcp: mcp.filter(listed), search, windowTokens: init.windowTokens, loaded: init.loaded, budget: init.budget });
    memo = { key, mcp, plan };
    return plan;
  };
  return { planNow, seen: (ctx) => (lastCtx = ctx) };
}

/** Each tool as the turn lists it: available as before and not deferred (tool_search itself always); one wrapper per tool. */
function deferringWrapper(planner: ReturnType<typeof deferralPlanner>, search: ToolDefinition | undefined): (t: ToolDefinition) => ToolDefinition {
  const wrapped = new WeakMap<ToolDefinition, ToolDefinition>();
  return (t) => {
    let w = wrapped.get(t);
    if (!w) {
      const orig = t.available;
      w = {
        ...t,
        available: (ctx: AvailCtx) => {
          planner.seen(ctx);
          if (!(orig?.(ctx) ?? true)) return false;
          return t === search || !planner.planNow().deferred.has(t.name);
        },
      };
      wrapped.set(t, w);
    }
    return w;
  };
}

/** A read-only registry whose every look-up reads `now()` (built again only when the MCP tools changed). */
function liveRegistry(now: () => ToolMap): Registry {
  const has = (key: string | symbol): key is string => typeof key === 'string' && Object.hasOwn(now(), key);
  return new Proxy(Object.create(null) as ToolMap, {
    get: (_t, key) => (has(key) ? now()[key] : undefined),
    has: (_t, key) => has(key),
    ownKeys: () => Object.keys(now()),
    getOwnPropertyDescriptor: (_t, key) => (has(key) ? { value: now()[key], writable: false, enumerable: true, configurable: true } : undefined),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  }) as Registry;
}

/** What tool_search reads: the deferred tools' full definitions, and the session's loaded set to add to. */
function toolSearchService(init: TurnToolsInit, now: () => ToolMap, planNow: () => DeferralPlan): ToolSearchService {
  const info = (t: ToolDefinition): DeferredToolInfo => ({ name: t.name, description: describeTool(t, init.budget), parameters: modelSchema(t) });
  return {
    deferred: () => {
      const plan = planNow();
      return Object.values(now())
        .filter((t) => plan.deferred.has(t.name))
        .map(info);
    },
    load: (names) => {
      for (const n of names) init.loaded.add(n);
    },
  };
}

/** The system prompt's list of deferred tools: each by name and its description's first sentence (empty when none is deferred). */
function deferredSection(deferred: readonly DeferredToolInfo[], budget: Budget): string {
  if (deferred.length === 0) return '';
  const max = budget.DEFERRED_TOOL_LINE_MAX_BYTES;
  const lines = deferred.map((t) => headBytes(`- ${t.name}: ${t.description.split('\n')[0].split(/(?<=\.)\s/)[0]}`, max));
  return `Deferred tools: these are not in your tool list, to save context. To use one, first call tool_search with its name ("select:<name>") or words from its line; that returns its full definition and makes it callable.\n${lines.join('\n')}`;
}

/**
 * A turn's tools: the built-ins plus the MCP servers' tools, as one registry that follows the servers
 * (a tool-list change is seen at the next look-up), where a deferred tool stays callable through
 * dispatch but is not listed for the model until tool_search loads it.
 */
export function createTurnTools(init: TurnToolsInit): TurnTools {
  const search = init.builtins.find((t) => t.name === toolSearchTool.name);
  const planner = deferralPlanner(init, search);
  const wrap = deferringWrapper(planner, search);
  let current: { mcp: readonly ToolDefinition[]; reg: ToolMap } | null = null;
  const regNow = (): ToolMap => {
    const mcp = init.mcp();
    if (current && current.mcp === mcp) return current.reg;
    const reg: ToolMap = Object.create(null);
    for (const t of init.builtins) reg[t.name] = wrap(t);
    for (const t of mcp) if (!Object.hasOwn(reg, t.name)) reg[t.name] = wrap(t);
    current = { mcp, reg };
    return reg;
  };
  const service = toolSearchService(init, regNow, planner.planNow);
  return {
    reg: liveRegistry(regNow),
    services: { [TOOL_SEARCH_SERVICE]: service },
    plan: planner.planNow,
    systemSection: () => deferredSection(service.deferred(), init.budget),
  };
}
