import { z } from 'zod';
import type { Budget } from '../contract/budget';
import { traitsOf, type AnyTool, type PermissionMode, type SideEffect, type ToolContext, type ToolDefinition } from '../contract/types';
import { modeAllowsEffect } from '../policy/modes';

const EFFECTS: readonly SideEffect[] = ['read', 'write', 'system'];

/** A name → tool map with no prototype, so a model-supplied name can never reach Object's members. */
export type Registry = Readonly<Record<string, ToolDefinition>>;

/**
 * Build a registry. A tool without a declared side-effect class, a schema, or a run function, or
 * with traits that contradict its class, does not register: this throws, so the mistake shows at
 * start-up, not at call time.
 */
export function createRegistry(tools: readonly AnyTool[]): Registry {
  const reg: Record<string, ToolDefinition> = Object.create(null);
  for (const t of tools) {
    if (!t || typeof t.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(t.name)) {
      throw new Error(`Tool name ${JSON.stringify(t?.name)} is not a snake_case identifier`);
    }
    if (!EFFECTS.includes(t.effect)) {
      throw new Error(`Tool ${t.name} has no side-effect class (read | write | system); it cannot register`);
    }
    if (!t.schema || typeof t.run !== 'function' || typeof t.describe !== 'function' || typeof t.summary !== 'function') {
      throw new Error(`Tool ${t.name} needs a schema, describe(), summary() and run()`);
    }
    checkTraits(t);
    if (Object.hasOwn(reg, t.name)) throw new Error(`Tool ${t.name} is registered twice`);
    reg[t.name] = t;
  }
  return Object.freeze(reg);
}

/** Traits that cannot hold: an explore subagent gets read tools only; a defer rank is a finite number. */
function checkTraits(t: AnyTool): void {
  const traits = traitsOf(t);
  if (traits.subagents.includes('explore') && t.effect !== 'read') {
    throw new Error(`Tool ${t.name} is a ${t.effect} tool; an explore subagent gets read tools only (traits.subagents: ['general'])`);
  }
  if (traits.deferRank !== null && !Number.isFinite(traits.deferRank)) throw new Error(`Tool ${t.name}'s traits.deferRank is not a finite number`);
}

/** Own-property look-up: the name comes from a model. */
export function lookupTool(reg: Registry, name: string): ToolDefinition | undefined {
  return typeof name === 'string' && Object.hasOwn(reg, name) ? reg[name] : undefined;
}

/** The tools a mode lists for the model (a forbidden tool is absent, and refused if called anyway). */
export function listedTools(
  reg: Registry,
  mode: PermissionMode,
  ctx: Pick<ToolContext, 'workspace' | 'dataDir' | 'services'>,
): ToolDefinition[] {
  return Object.values(reg).filter((t) => modeAllowsEffect(mode, t.effect) && (t.available?.(ctx) ?? true));
}

/** A tool's description as the model reads it. */
export function describeTool(t: ToolDefinition, budget: Budget): string {
  return t.describe(budget).trim();
}

/**
 * A tool's input schema as the model receives it: zod's JSON Schema without what carries nothing
 * for the model (the `$schema` dialect URL, and the ±2^53 bounds zod writes for every .int()).
 * Every constraint that narrows the input (enum, real bounds, required, additionalProperties) stays.
 */
export function modelSchema(t: Pick<ToolDefinition, 'schema' | 'jsonSchema'>): Record<string, unknown> {
  if (t.jsonSchema) return t.jsonSchema;
  // converting is costly and every turn builds the tools again; a schema never changes, so it is converted once
  let json = converted.get(t.schema);
  if (json === undefined) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(t.schema) as Record<string, unknown>;
    converted.set(t.schema, (json = JSON.stringify(stripSafeIntegerBounds(rest))));
  }
  // a copy each time: the caller (a provider) may change what it is given
  return JSON.parse(json) as Record<string, unknown>;
}

/** modelSchema's conversions, as JSON text, by schema. */
const converted = new WeakMap<object, string>();

function stripSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSafeIntegerBounds);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = stripSafeIntegerBounds(v);
  }
  return out;
}
