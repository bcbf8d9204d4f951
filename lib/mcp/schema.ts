import { z } from 'zod';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { loadedMcpSdk } from './sdk';

/** A server's input schema made fit for every provider Clamp speaks to, or why it cannot be. */
export type ConvertedSchema = { ok: true; schema: Record<string, unknown>; repairs: string[] } | { ok: false; reason: string };

const COMBINERS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * Convert an MCP tool's input schema for the providers: OpenAI and Anthropic both need a top-level
 * `type: "object"` with `properties`, and Anthropic refuses anyOf/oneOf/allOf at the top. A schema
 * without a type but with properties gets one; a top-level union of object schemas becomes one object
 * holding every branch's properties (none required: the server's own schema still validates each call).
 * Anything else is refused with the reason, for the settings page. Never throws.
 */
export function convertInputSchema(raw: unknown, maxBytes: number): ConvertedSchema {
  if (raw === undefined || raw === null) return { ok: true, schema: { type: 'object', properties: {} }, repairs: ['no input schema: takes no arguments'] };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'its input schema is not a JSON object' };
  const size = JSON.stringify(raw).length;
  if (size > maxBytes) return { ok: false, reason: `its input schema is ${size} bytes, over the ${maxBytes}-byte limit (MCP_TOOL_SCHEMA_MAX_BYTES)` };
  const { $schema: _dialect, ...s } = structuredClone(raw) as Record<string, unknown>;
  const repairs: string[] = [];
  for (const c of COMBINERS) {
    if (!Array.isArray(s[c])) continue;
    const branches = s[c] as unknown[];
    const objects = branches.filter((b): b is Record<string, unknown> => !!b && typeof b === 'object' && (b as Record<string, unknown>).type === 'object');
    if (objects.length !== branches.length || (s.type !== undefined && s.type !== 'object')) {
      return { ok: false, reason: `its input schema's top level is a ${c} of non-object schemas, which providers refuse` };
    }
    const properties: Record<string, unknown> = { ...((s.properties as Record<string, unknown>) ?? {}) };
    for (const b of objects) Object.assign(properties, (b.properties as Record<string, unknown>) ?? {});
    delete s[c];
    s.type = 'object';
    s.properties = properties;
    delete s.required;
    repairs.push(`top-level ${c} merged into one object (the server still checks each call)`);
  }
  if (s.type === undefined) {
    if (s.properties === undefined && Object.keys(s).some((k) => k !== 'description' && k !== 'title' && k !== 'additionalProperties' && k !== '$defs' && k !== 'definitions')) {
      return { ok: false, reason: 'its input schema has no type and no properties' };
    }
    s.type = 'object';
    repairs.push('"type": "object" added at the top');
  } else if (s.type !== 'object') {
    return { ok: false, reason: `its input schema's top level is ${JSON.stringify(s.type)}; providers need an object` };
  }
  if (s.properties === undefined) s.properties = {};
  else if (!s.properties || typeof s.properties !== 'object' || Array.isArray(s.properties)) return { ok: false, reason: 'its input schema\'s "properties" is not an object' };
  const badKey = Object.keys(s.properties as object).find((k) => !PROPERTY_KEY.test(k));
  if (badKey !== undefined) return { ok: false, reason: `its argument name ${JSON.stringify(badKey)} is refused by Anthropic (letters, digits, "_", "." and "-", at most 64)` };
  const fixedArrays = addMissingItems(s);
  if (fixedArrays) repairs.push(`"items" added to ${fixedArrays} array schema${fixedArrays === 1 ? '' : 's'} (OpenAI refuses an array without it)`);
  return { ok: true, schema: s, repairs };
}

/** What Anthropic accepts as a property name of input_schema. */
const PROPERTY_KEY = /^[a-zA-Z0-9_.-]{1,64}$/;

/** Give every array schema without `items` an empty one, in place; returns how many were fixed. */
function addMissingItems(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + addMissingItems(x), 0);
  if (!node || typeof node !== 'object') return 0;
  const o = node as Record<string, unknown>;
  let n = 0;
  const isArray = o.type === 'array' || (Array.isArray(o.type) && o.type.includes('array'));
  if (isArray && o.items === undefined && o.prefixItems === undefined) {
    o.items = {};
    n++;
  }
  for (const v of Object.values(o)) n += addMissingItems(v);
  return n;
}

/** The SDK's validator of a schema, or null while the SDK is not loaded. Throws when the schema does not compile. */
function compiled(schema: Record<string, unknown>): JsonSchemaValidator<unknown> | null {
  return loadedMcpSdk()?.validators.getValidator<unknown>(schema as JsonSchemaType) ?? null;
}

/**
 * A zod schema that validates a call against the server's own JSON Schema (the SDK's Ajv), so dispatch
 * checks MCP arguments before the call as it checks a built-in tool's. Throws when the schema does not
 * compile. The hub loads the SDK before a turn uses any server's tools; a schema built before that (the
 * settings page listing cached tools) is compiled at its first check.
 */
export function validatingSchema(raw: Record<string, unknown> | undefined): z.ZodType {
  const { $schema: _dialect, ...schema } = raw ?? { type: 'object' };
  let check = compiled(schema);
  return z.unknown().superRefine((value, ctx) => {
    check ??= compiled(schema);
    if (!check) {
      ctx.addIssue({ code: 'custom', message: "the MCP server's schema could not be checked yet; try the call again" });
      return;
    }
    const r = check(value);
    if (r.valid) return;
    for (const part of r.errorMessage.split(/, (?=data[/ ])/)) {
      const m = /^data((?:\/[^ ]*)?) (.*)$/.exec(part);
      const where = m && m[1] ? m[1].slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
      ctx.addIssue({ code: 'custom', message: m ? m[2] : part, path: where });
    }
  });
}
