import { z } from 'zod';
import type { Budget } from '../contract/budget';
import { defineTool, ToolError, type ToolDefinition } from '../contract/types';
import { formatBytes, formatDuration } from '../contract/text';
import { mcpToolName } from './config';
import type { ServerRuntime } from './server-runtime';

/**
 * A server's resources as two Clamp tools, `mcp__<server>__list_resources` and `mcp__<server>__read_resource`,
 * offered when the server says it has resources. They run through dispatch like every tool, so their output
 * is bounded and spilled by the exit clamp; reading is a read (the person enabled and, for a workspace's
 * server, approved the server).
 */

const listSchema = z.strictObject({ cursor: z.string().max(1000).optional().describe('the nextCursor of an earlier page') });
const readSchema = z.strictObject({ uri: z.string().min(1).max(2000).describe('a uri from list_resources') });

/** Word a failed request for the model. */
function failed(server: ServerRuntime, what: string, err: unknown, timeoutMs: number, listName: string): ToolError {
  const msg = err instanceof Error ? err.message : String(err);
  const timedOut = /timed? ?out/i.test(msg);
  return new ToolError(
    timedOut
      ? `The MCP server ${server.entry.name} did not answer ${what} within ${formatDuration(timeoutMs)} (MCP_CALL_TIMEOUT_MS). Try again later, or ask the user to check the server (its log is ${server.logPath}).`
      : `The MCP server ${server.entry.name} refused ${what}: ${msg}. Check the uri against ${listName}.`,
  );
}

/** The two resource tools of a server, named so they cannot collide with its own tools (skipped when a name is taken). */
export function resourceTools(server: ServerRuntime, budget: Budget, taken: Set<string>): ToolDefinition[] {
  const s = server.entry.name;
  const listName = mcpToolName(s, 'list_resources', budget.MCP_TOOL_NAME_MAX_CHARS);
  const readName = mcpToolName(s, 'read_resource', budget.MCP_TOOL_NAME_MAX_CHARS);
  const out: ToolDefinition[] = [];
  const policy = () => ({ action: 'allow' as const, reason: `reads a resource of the MCP server ${s}` });
  if (!taken.has(listName)) {
    taken.add(listName);
    out.push(
      defineTool({
        name: listName,
        effect: 'read',
        schema: listSchema,
        describe: () => `List the resources of the MCP server ${s}: each uri, name, type and description. Read one with ${readName}. A long list comes in pages: pass the cursor it names.`,
        summary: (i) => (i.cursor ? `page ${i.cursor}` : s),
        policy,
        async run(input, ctx) {
          const timeout = ctx.budget.MCP_CALL_TIMEOUT_MS;
          const r = await server.request((c) => c.listResources(input.cursor ? { cursor: input.cursor } : {}, { signal: ctx.signal, timeout })).catch((err: unknown) => {
            throw failed(server, 'the resource list', err, timeout, listName);
          });
          const lines = r.resources.map((x) => `${x.uri} — ${x.name}${x.mimeType ? ` (${x.mimeType})` : ''}${x.description ? `: ${x.description}` : ''}`);
          const more = r.nextCursor ? [`More resources: call ${listName} with cursor "${r.nextCursor}".`] : [];
          return { output: lines.length ? [...lines, ...more].join('\n') : `The MCP server ${s} lists no resources.` };
        },
      }) as ToolDefinition,
    );
  }
  if (!taken.has(readName)) {
    taken.add(readName);
    out.push(
      defineTool({
        name: readName,
        effect: 'read',
        schema: readSchema,
        describe: () => `Read one resource of the MCP server ${s} by its uri (from ${listName}). Text comes back as text; binary contents are named with their size, not shown.`,
        summary: (i) => i.uri,
        policy,
        async run(input, ctx) {
          const timeout = ctx.budget.MCP_CALL_TIMEOUT_MS;
          const r = await server.request((c) => c.readResource({ uri: input.uri }, { signal: ctx.signal, timeout })).catch((err: unknown) => {
            throw failed(server, `the resource ${input.uri}`, err, timeout, listName);
          });
          const parts = r.contents.map((x) =>
            'text' in x && typeof x.text === 'string'
              ? x.text
              : `[${x.uri}: binary${x.mimeType ? ` ${x.mimeType}` : ''}, ${formatBytes(Math.floor(((x as { blob?: string }).blob ?? '').length * 0.75))}, not shown]`,
          );
          return { output: parts.join('\n\n') || `The resource ${input.uri} is empty.` };
        },
      }) as ToolDefinition,
    );
  }
  return out;
}
