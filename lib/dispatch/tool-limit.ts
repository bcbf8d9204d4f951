import { traitsOf, type PolicyDecision, type ToolDefinition } from '../contract/types';
import type { Registry } from './registry';

/**
 * A tool list in Claude Code's words, as a command file's `allowed-tools` or an agent file's `tools` line
 * writes it: `Read`, `Bash(git add:*)`, `mcp__github__create_issue`, `mcp__github` (all of a server's), or a
 * Clamp name (`read_file`). A turn limited by one lists only the tools it names, and refuses the others with a
 * reason the model reads; a `Bash(<prefix>:*)` or `Bash(<command>)` entry limits the commands too. A limit
 * only ever takes away: what it lets through is judged by the mode, the rules and the hooks as before.
 */

/** One entry of a tool list: the tool's name and, for `Name(spec)`, the spec. */
interface ToolEntry {
  name: string;
  spec?: string;
}

function entryOf(raw: string): ToolEntry {
  const m = /^([^()\s]+)\s*\((.*)\)$/s.exec(raw.trim());
  const written = m ? m[1] : raw.trim();
  // Claude Code's MultiEdit is Clamp's edit_file, as its Edit is
  const name = written === 'MultiEdit' ? 'Edit' : written;
  return m ? { name, spec: m[2].trim() } : { name };
}

/** The names a tool answers to in a list: Clamp's, Claude Code's (traits.hookAs), and an MCP tool's server prefix. */
function namesOf(t: ToolDefinition): string[] {
  const hookName = traitsOf(t).hookAs?.name;
  const server = /^(mcp__[^_]+(?:_[^_]+)*?)__/.exec(t.name)?.[1];
  return [t.name, ...(hookName ? [hookName] : []), ...(server ? [server, `${server}__*`] : [])];
}

/** The entries of a list that name a tool. */
function entriesFor(entries: readonly ToolEntry[], t: ToolDefinition): ToolEntry[] {
  const names = namesOf(t);
  return entries.filter((e) => names.includes(e.name));
}

/** Whether a list names a tool (by any of its names). */
export function listNamesTool(list: readonly string[], t: ToolDefinition): boolean {
  return entriesFor(list.map(entryOf), t).length > 0;
}

/** Whether a command matches one `Bash(…)` spec: `<prefix>:*` (the command is the prefix, or starts with it and a space), else the exact command. */
function commandMatches(spec: string, command: string): boolean {
  const c = command.trim();
  if (spec === '*' || spec === '') return true;
  if (spec.endsWith(':*')) {
    const prefix = spec.slice(0, -2).trim();
    return c === prefix || c.startsWith(`${prefix} `);
  }
  return c === spec;
}

/** A tool the list leaves out: not listed, and refused if called anyway. */
function refused(t: ToolDefinition, why: string): ToolDefinition {
  return { ...t, available: () => false, policy: () => ({ action: 'deny', reason: why }) };
}

/** A command tool whose entries all carry a spec: only the commands they name get past it (then its own policy judges). */
function commandLimited(t: ToolDefinition, specs: string[], why: string): ToolDefinition {
  const own = t.policy;
  const policy = async (input: never, ctx: Parameters<NonNullable<ToolDefinition['policy']>>[1]): Promise<PolicyDecision> => {
    const command = String((input as { command?: unknown }).command ?? '');
    if (!specs.some((s) => commandMatches(s, command))) return { action: 'deny', reason: `${why}, and for commands only ${specs.map((s) => `\`${s}\``).join(', ')}` };
    return own ? own(input, ctx) : { action: 'ask', reason: 'runs a command' };
  };
  return { ...t, policy } as ToolDefinition;
}

/**
 * The registry as a turn limited to `list` sees it (read at every look-up, so MCP tools that come later are
 * limited too): each tool the list does not name is left out of the model's list and refused, with `why` (who
 * set the limit: "the command /review allows only Read, Grep") as the reason. Pure.
 */
export function limitRegistry(reg: Registry, list: readonly string[], why: string): Registry {
  const entries = list.map(entryOf);
  const wrapped = new WeakMap<ToolDefinition, ToolDefinition>();
  const limited = (t: ToolDefinition): ToolDefinition => {
    let w = wrapped.get(t);
    if (!w) {
      const named = entriesFor(entries, t);
      const specs = named.map((e) => e.spec);
      w = named.length === 0 ? refused(t, why) : traitsOf(t).command && specs.every((s) => s !== undefined && s !== '*') ? commandLimited(t, specs as string[], why) : t;
      wrapped.set(t, w);
    }
    return w;
  };
  const has = (key: string | symbol): key is string => typeof key === 'string' && Object.hasOwn(reg, key);
  return new Proxy(Object.create(null) as Record<string, ToolDefinition>, {
    get: (_t, key) => (has(key) ? limited(reg[key]) : undefined),
    has: (_t, key) => has(key),
    ownKeys: () => Object.keys(reg),
    getOwnPropertyDescriptor: (_t, key) => (has(key) ? { value: limited(reg[key]), writable: false, enumerable: true, configurable: true } : undefined),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  }) as Registry;
}
