import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Budget } from '../contract/budget';
import type { McpToolInfo } from '../contract/mcp-rest';
import { ToolError, type PolicyDecision, type SideEffect, type ToolDefinition } from '../contract/types';
import { formatDuration, headBytes } from '../contract/text';
import { mcpToolName, type McpServerOptions } from './config';
import { convertInputSchema, validatingSchema } from './schema';
import { MODEL_TAKES_IMAGES, toolOutputOf, type McpCallMeta } from './content';
import type { ServerRuntime } from './server-runtime';
import { loadedMcpSdk } from './sdk';

/** A server's tools as ToolDefinitions for dispatch, and every tool's line for the page. */
export interface BuiltTools {
  defs: ToolDefinition[];
  infos: McpToolInfo[];
}

/** The class of an MCP tool: read only when its server says readOnlyHint and the person has not said otherwise; else system. */
export function effectOf(tool: Pick<Tool, 'name' | 'annotations'>, opts: McpServerOptions): SideEffect {
  return tool.annotations?.readOnlyHint === true && !opts.notReadOnly.includes(tool.name) ? 'read' : 'system';
}

function summaryOf(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const s = JSON.stringify(input);
  return s === '{}' ? '' : headBytes(s, 120) + (s.length > 120 ? '…' : '');
}

/** Word an SDK failure for the model: what happened and what to do next. */
function callError(server: ServerRuntime, clampName: string, err: unknown, timeoutMs: number): ToolError {
  const log = `its log is ${server.logPath}`;
  // an error of the SDK's exists only once the SDK is loaded
  const sdk = loadedMcpSdk();
  const McpError = sdk?.McpError;
  const ErrorCode = sdk?.ErrorCode;
  if (McpError && ErrorCode && err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
    return new ToolError(
      `${clampName} did not answer within ${formatDuration(timeoutMs)} (MCP_CALL_TIMEOUT_MS); the call was cancelled. Try a smaller request, or ask the user to check the server (${log}).`,
    );
  }
  if (McpError && ErrorCode && err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    return new ToolError(`The MCP server ${server.entry.name} exited during the call to ${clampName}. Clamp restarts it; try the call once more, and if it fails again ask the user to check the server (${log}).`);
  }
  if (McpError && err instanceof McpError) return new ToolError(`The MCP server ${server.entry.name} refused ${clampName}: ${err.message}. Check the arguments against the tool's schema.`);
  const msg = err instanceof Error ? err.message : String(err);
  return new ToolError(`The MCP server ${server.entry.name} could not run ${clampName}: ${msg}. Ask the user to check the server on the settings page (${log}).`);
}

/**
 * The server's listed tools as Clamp tools named mcp__<server>__<tool>. A tool whose schema providers
 * would refuse (and cannot be repaired), whose schema does not compile, or whose name collides after
 * sanitising is skipped with the reason; a disabled tool is listed for the page only.
 */
export function buildServerTools(server: ServerRuntime, opts: McpServerOptions, budget: Budget, taken: Set<string>): BuiltTools {
  const defs: ToolDefinition[] = [];
  const infos: McpToolInfo[] = [];
  for (const t of server.tools) {
    const clampName = mcpToolName(server.entry.name, t.name, budget.MCP_TOOL_NAME_MAX_CHARS);
    const effect = effectOf(t, opts);
    const policy = opts.toolPolicy[t.name] ?? 'ask';
    const description = headBytes((t.description ?? '').trim(), budget.MCP_TOOL_DESCRIPTION_MAX_BYTES);
    const info: McpToolInfo = { name: t.name, clampName, description, state: 'enabled', readOnlyHint: t.annotations?.readOnlyHint === true, effect, policy, tokens: 0 };
    infos.push(info);
    const schemas = schemasOf(t, clampName, taken, budget, info);
    if (!schemas) continue;
    taken.add(clampName);
    if (opts.disabledTools.includes(t.name)) {
      info.state = 'disabled';
      continue;
    }
    defs.push(toolDefinition(server, t.name, { clampName, effect, policy, description, ...schemas }));
  }
  return { defs, infos };
}

/** The schema a tool shows providers and the one its calls are checked with; undefined (the reason on `info`) when it is skipped. */
function schemasOf(t: Tool, clampName: string, taken: Set<string>, budget: Budget, info: McpToolInfo): { schema: z.ZodType; jsonSchema: Record<string, unknown> } | undefined {
  const skip = (note: string) => {
    info.state = 'skipped';
    info.note = note;
    return undefined;
  };
  if (taken.has(clampName)) return skip(`its name ${clampName} is taken by another tool`);
  const converted = convertInputSchema(t.inputSchema, budget.MCP_TOOL_SCHEMA_MAX_BYTES);
  if (!converted.ok) return skip(converted.reason);
  let schema;
  try {
    schema = validatingSchema(t.inputSchema as Record<string, unknown>);
  } catch (err) {
    return skip(`its input schema does not compile (${err instanceof Error ? err.message : String(err)})`);
  }
  if (converted.repairs.length) info.note = `schema repaired: ${converted.repairs.join('; ')}`;
  return { schema, jsonSchema: converted.schema };
}

interface ToolShape {
  clampName: string;
  effect: SideEffect;
  policy: McpToolInfo['policy'];
  description: string;
  schema: z.ZodType;
  jsonSchema: Record<string, unknown>;
}

/** One server tool as a Clamp tool: its policy from the settings page and its read-only mark, its call through the server. */
function toolDefinition(server: ServerRuntime, toolName: string, o: ToolShape): ToolDefinition<z.ZodType, McpCallMeta> {
  const { clampName, effect, policy, description, schema } = o;
  const serverName = server.entry.name;
  return {
    name: clampName,
    effect,
    schema,
    jsonSchema: o.jsonSchema,
    describe: () => `${description || `The ${toolName} tool.`}\n(MCP tool ${toolName} of the server ${serverName}.)`,
    summary: (input) => summaryOf(input),
    policy: (): PolicyDecision => {
      if (policy === 'deny') return { action: 'deny', reason: `the settings page denies ${serverName}'s tool ${toolName}` };
      if (policy === 'allow') return { action: 'allow', reason: `allowed on the settings page (${serverName}'s tool ${toolName})` };
      if (effect === 'read') return { action: 'allow', reason: `${serverName} marks ${toolName} read-only` };
      return { action: 'ask', reason: `calls ${toolName} on the MCP server ${serverName}, which does not mark it read-only`, ruleKey: clampName };
    },
    run: async (input, ctx) => {
      const timeoutMs = ctx.budget.MCP_CALL_TIMEOUT_MS;
      let r;
      try {
        r = await server.call(toolName, input, { signal: ctx.signal, timeoutMs, onProgress: ctx.onProgress ? (text) => ctx.onProgress!({ kind: 'status', text }) : undefined });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw callError(server, clampName, err, timeoutMs);
      }
      return toolOutputOf(r, { server: serverName, tool: toolName, budget: ctx.budget, takesImages: ctx.services[MODEL_TAKES_IMAGES] === true });
    },
  };
}
