import type { z } from 'zod';
import type { Budget } from './budget';
import type { ResolvedPath } from './paths';

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

/** The one result shape every tool call ends in. */
export interface ToolResult {
  status: ToolStatus;
  /** exactly the text the model sees */
  output: string;
  truncation: Truncation | null;
  /** a next step that survives truncation */
  hint?: string;
  /** structured data for the page (exit code, diff, task id …); never sent to the model */
  meta?: Record<string, unknown>;
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
}

/** What a tool returns from run(); dispatch turns it into a ToolResult. */
export interface ToolOutput {
  output: string;
  status?: 'ok' | 'error';
  truncation?: Truncation | null;
  hint?: string;
  meta?: Record<string, unknown>;
}

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  effect: SideEffect;
  schema: S;
  /** the description the model reads; built from the budget table */
  describe: (budget: Budget) => string;
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
  run: (input: z.infer<S>, ctx: ToolContext) => Promise<ToolOutput>;
}

/** A tool failure with a next step; dispatch turns it into an error result. */
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

/** Define a tool; the generic keeps run()'s input typed from the schema. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}
