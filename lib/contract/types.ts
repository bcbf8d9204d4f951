import type { z } from 'zod';
import type { Budget } from './budget';
import type { ResolvedPath } from './paths';
import type { DiagnosticsMeta } from './diagnostics';
import type { SubagentType } from './subagents';
import type { HookNote, HookVerdict } from './hooks';

/** What a tool does to the world; drives parallelism, modes and approvals. */
export type SideEffect = 'read' | 'write' | 'system';

export type PermissionMode = 'default' | 'accept-edits' | 'plan' | 'debug' | 'auto';
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'accept-edits', 'plan', 'debug', 'auto'];

export type ToolStatus = 'ok' | 'error' | 'denied' | 'approval-required';

/** What was cut from a result, in the unit named. */
export interface Truncation {
  unit: 'bytes' | 'lines' | 'entries' | 'matches' | 'files' | 'items';
  shown: number;
  total: number;
  /** lines left out of what the model saw, when known */
  omittedLines?: number;
  /** where the full text lies (absolute path in the data dir) */
  spillPath?: string;
  /** who cut: the tool's own cap, the exit clamp, or the per-step budget */
  by: 'tool' | 'exit' | 'turn';
}

/** One item of the plan the model keeps (todo_write); shown in the page's plan panel. */
export interface TodoItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled';
}

/**
 * The meta fields every page view knows how to show, whatever the tool: a tool whose meta uses one
 * of these names gives it this type (defineTool checks), so the generic tool card can show a diff,
 * an exit code, a task link or a log link for a tool it has never heard of.
 */
export interface MetaKinds {
  /** the change the call made, as a unified diff (shown as a diff view) */
  diff?: string;
  /** how a process ended (null: it did not exit by itself) */
  exitCode?: number | null;
  /** a background task the call started or read (opens the task's log) */
  taskId?: string;
  /** the call's full output on disk (opens the viewer) */
  logPath?: string;
  /** the plan after the call (the plan panel follows it) */
  todos?: TodoItem[];
  /** how long the call took, when the tool measures it itself */
  durationMs?: number;
}

/** What dispatch and the loop add to any tool's meta. */
export interface CallMeta {
  /** the policy verdict of a refused or held call */
  policy?: PolicyDecision;
  /** how long the call took (set by the loop when the tool does not say) */
  durationMs?: number;
  /** the command as the person edited it before approving (what ran) */
  editedCommand?: string;
  /** the command the model proposed, when the person edited it */
  proposedCommand?: string;
  /** the tool's own cut, when the exit clamp cut the result again */
  toolTruncation?: Truncation;
  /** the new errors a write tool's change made, as language servers reported them (dispatch adds it) */
  diagnostics?: DiagnosticsMeta;
  /** what each hook did about the call (dispatch adds it; the card shows it) */
  hooks?: HookNote[];
}

/** A tool's meta type is checked against MetaKinds: a field named like a kind has the kind's type. */
export type CheckedMeta<M> = { [K in keyof M]: K extends keyof MetaKinds ? MetaKinds[K] : unknown };

/**
 * The meta of a result: the tool's declared fields (each may be absent: an error or a refusal
 * carries only some, or none) and what dispatch and the loop add. A ToolError's meta lands here
 * too, so a tool declares the fields its errors carry (GitFailureMeta, EditFileMeta's matches).
 */
export type ResultMeta<M = Record<string, unknown>> = Partial<M> & CallMeta;

/** The one result shape every tool call ends in; M is the tool's declared meta. */
export interface ToolResult<M = Record<string, unknown>> {
  status: ToolStatus;
  /** exactly the text the model sees */
  output: string;
  truncation: Truncation | null;
  /** a next step that survives truncation */
  hint?: string;
  /** structured data for the page (exit code, diff, task id …); never sent to the model */
  meta?: ResultMeta<M>;
}

/** Live events a running tool may publish (command output, progress). */
export type ToolProgress =
  | { kind: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { kind: 'status'; text: string };

/** Everything a tool may touch, carried at call time (tools bind nothing at import time). */
export interface ToolContext {
  /** realpath of the workspace root */
  workspace: string;
  /** realpath of the data dir (spills, logs, database) */
  dataDir: string;
  mode: PermissionMode;
  signal: AbortSignal;
  budget: Budget;
  /** every path argument the tool declares in paths(), resolved and confined by dispatch (see confinedPath) */
  paths?: ReadonlyMap<string, ResolvedPath>;
  /** the verdict the call runs under, set by dispatch as it runs the tool: an "allow", or an "ask" a person approved */
  verdict?: PolicyDecision;
  sessionId?: string;
  callId?: string;
  onProgress?: (p: ToolProgress) => void;
  /** shared services (task manager, stores) injected by the host */
  services: ToolServices;
}

/** Late-bound services; each is optional so the tool CLI and tests can run without a server. */
export interface ToolServices {
  [name: string]: unknown;
}

/** A path argument a tool will touch; dispatch confines each before the tool runs. */
export interface PathAccess {
  path: string;
  access: 'read' | 'write';
  /** the argument's name, for error messages */
  field: string;
}

/** A policy decision about one call. */
export interface PolicyDecision {
  action: 'allow' | 'ask' | 'deny';
  reason: string;
  /** 1 = catastrophic, 2 = dangerous, undefined otherwise */
  tier?: 1 | 2;
  /** the prefix an "always allow" rule would save; absent when the call must never be saved */
  ruleKey?: string;
  opaque?: boolean;
  /** every sub-command of a command, for the approval bar */
  subcommands?: string[];
  /** the rule key of each sub-command (a saved rule must match every one) */
  subRuleKeys?: string[];
  /**
   * addresses outside the public internet (loopback, private, link-local …) the call was judged to reach, named
   * in the reason: a person's approval of the call covers these and no others (web_fetch checks them again as it
   * connects)
   */
  localAddresses?: string[];
  /** what PreToolUse hooks decided (their notes, a rewritten input, context): it travels with the verdict to the run */
  hook?: HookVerdict;
}

/** What a tool returns from run(); dispatch turns it into a ToolResult. M is the tool's declared meta. */
export interface ToolOutput<M = Record<string, unknown>> {
  output: string;
  status?: 'ok' | 'error';
  truncation?: Truncation | null;
  hint?: string;
  meta?: M;
}

/**
 * One tool: its name, side-effect class, schema, description, policy hooks and run(). S is the
 * input schema, M the type of the meta it returns (as opencode's Tool.Info<Parameters, Metadata>),
 * N its name (kept literal, so the page's message type knows every tool by name). Without
 * arguments it is any tool (what the registry holds; dispatch validates the input before run()).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ToolDefinition<S extends z.ZodType = any, M = any, N extends string = string> {
  name: N;
  effect: SideEffect;
  schema: S;
  /** the description the model reads; built from the budget table */
  describe: (budget: Budget) => string;
  /**
   * The call in one line for the page (cards and the approval bar): its key arguments, e.g.
   * `src/app.ts 1–200` or `npm test`; with the result, what it found. Pure: no I/O, never throws.
   */
  summary: (input: z.infer<S>, result?: ToolResult<M>) => string;
  /** string fields that must not be empty (checked before any I/O) */
  nonEmpty?: readonly string[];
  /** path arguments to confine before the tool runs */
  paths?: (input: z.infer<S>) => PathAccess[];
  /** a tool-specific policy (command safety); runs after the mode policy allows the effect */
  policy?: (input: z.infer<S>, ctx: ToolContext) => PolicyDecision | Promise<PolicyDecision>;
  /** what a pending approval shows: a one-line summary and, for file changes, the diff (no side effects) */
  preview?: (input: z.infer<S>, ctx: ToolContext) => Promise<{ summary?: string; diff?: string }>;
  /** listed only when this returns true (e.g. a search provider is configured) */
  available?: (ctx: Pick<ToolContext, 'workspace' | 'dataDir' | 'services'>) => boolean;
  run: (input: z.infer<S>, ctx: ToolContext) => Promise<ToolOutput<M>>;
  /**
   * The input schema as the model receives it, when it is not zod's own (an MCP server's JSON Schema,
   * converted for the providers); the zod schema still validates every call.
   */
  jsonSchema?: Record<string, unknown>;
  /** what the loop, the context keeper, the host and the page do with the tool beyond running it (traitsOf gives the defaults) */
  traits?: ToolTraits;
}

/**
 * A tool's traits: what the rest of Clamp does with it beyond running it, declared on the tool (as its
 * side-effect class is) so that no other folder keeps a list of tool names. Every field is optional;
 * traitsOf fills in the defaults, which are also what every MCP tool gets.
 */
export interface ToolTraits {
  /**
   * Deferrable: when a small window cannot hold every definition, the tool is left out of the list
   * sent (callable once tool_search loads it); the lowest rank is deferred first. Absent: always sent.
   */
  deferRank?: number;
  /** The subagent types given the tool (explore only ever gets read tools; the registry refuses otherwise). Default: both for a read tool, general for others. */
  subagents?: readonly SubagentType[];
  /** 'never': its results are never replaced by a stub in what the model is sent (the plan). Default 'normal'. */
  prune?: 'normal' | 'never';
  /** its card opens with its body shown, so the page's first guess at the card's height is the open one. Default false. */
  cardOpen?: boolean;
  /**
   * The tool runs a shell command: rules match its calls by sub-command keys (none when the judge gave
   * none) rather than covering every call, and an interrupted call quotes the end of its command's log.
   * Default false.
   */
  command?: boolean;
  /**
   * The tool as Claude Code's hooks know it: its name there (matchers and `tool_name` use it) and its input fields
   * named there that differ from Clamp's (`file_path` → `path`; a path field is given absolute). Default: none (hooks
   * see its own name and fields).
   */
  hookAs?: HookAs;
  /**
   * What a call of the tool does, as an editor shows it (the Agent Client Protocol's tool kinds): 'search' looks
   * across files, 'fetch' reaches the network, 'think' keeps the model's own notes (the plan). Default: from the
   * side-effect class — 'read' for read tools, 'execute' for a command, 'edit' for other write tools, 'other' else.
   */
  activity?: ToolActivity;
}

/** What a call does, as an editor shows it (see ToolTraits.activity). */
export type ToolActivity = 'read' | 'edit' | 'search' | 'execute' | 'fetch' | 'think' | 'other';

/** A tool's name in Claude Code's hooks and its fields there: Claude Code's field name → Clamp's. */
export interface HookAs {
  name: string;
  fields?: Readonly<Record<string, string>>;
}

/** A tool's traits with the defaults filled in; deferRank null: never deferred. */
export type ResolvedTraits = Required<Omit<ToolTraits, 'deferRank' | 'hookAs'>> & { deferRank: number | null; hookAs: HookAs | null };

/** A tool's traits with every default filled in (the one place defaults live: built-ins that declare nothing and MCP tools get these). */
export function traitsOf(tool: Pick<ToolDefinition, 'effect' | 'traits'>): ResolvedTraits {
  const t = tool.traits ?? {};
  return {
    deferRank: t.deferRank ?? null,
    subagents: t.subagents ?? (tool.effect === 'read' ? ['explore', 'general'] : ['general']),
    prune: t.prune ?? 'normal',
    cardOpen: t.cardOpen ?? false,
    command: t.command ?? false,
    hookAs: t.hookAs ?? null,
    activity: t.activity ?? (t.command ? 'execute' : tool.effect === 'read' ? 'read' : tool.effect === 'write' ? 'edit' : 'other'),
  };
}

/** Any tool, whatever its schema and meta (the registry's element type). */
export type AnyTool = ToolDefinition;

/** The input a tool's schema accepts. */
export type ToolInputOf<T> = T extends ToolDefinition<infer S, infer _M, string> ? z.infer<S> : never;
/** The meta a tool declares. */
export type ToolMetaOf<T> = T extends ToolDefinition<z.ZodType, infer M, string> ? M : never;

/** A tool failure with a next step; dispatch turns it into an error result (meta: fields the tool's Meta declares). */
export class ToolError extends Error {
  constructor(
    message: string,
    public readonly hint?: string,
    public readonly meta?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/**
 * Define a tool. The generics keep run()'s input typed from the schema, the name literal and the
 * meta type as run() declares it (`Promise<ToolOutput<ReadFileMeta>>`); a meta field named like one
 * of MetaKinds must have that kind's type.
 */
export function defineTool<N extends string, S extends z.ZodType, M extends CheckedMeta<M>>(def: ToolDefinition<S, M, N>): ToolDefinition<S, M, N> {
  return def;
}
