import type { McpHub } from './hub';
import { mcpToolName } from './config';

/**
 * MCP resources as @-mentions: the resources the composer completes (`@<server>:<uri>`), and the tool that reads
 * one (the server's `read_resource`, so a mention's read goes through dispatch like the model's).
 */

/** One resource the composer may offer. */
export interface ResourceItem {
  server: string;
  uri: string;
  name: string;
}

/** How long one listing serves completions (a person types several letters a second). */
const LIST_REUSE_MS = 5000;
const listed = new WeakMap<McpHub, { at: number; items: ResourceItem[]; more: boolean }>();

/**
 * The first page of resources of every running server that offers them (a server that fails is left out), kept
 * for LIST_REUSE_MS; `more`: a server has further pages. Never throws.
 */
export async function resourceItems(hub: McpHub): Promise<{ items: ResourceItem[]; more: boolean }> {
  const hit = listed.get(hub);
  if (hit && Date.now() - hit.at < LIST_REUSE_MS) return hit;
  await hub.prepare().catch(() => undefined);
  const items: ResourceItem[] = [];
  let more = false;
  for (const e of hub.configured()) {
    const rt = hub.runtime(e.name);
    if (!rt?.offers.resources || !readerOf(hub, e.name)) continue;
    const r = await rt.request((c) => c.listResources({}, { timeout: hub.budget.MCP_CALL_TIMEOUT_MS })).catch(() => undefined);
    for (const x of r?.resources ?? []) items.push({ server: e.name, uri: x.uri, name: x.name });
    if (r?.nextCursor) more = true;
  }
  const got = { at: Date.now(), items, more };
  listed.set(hub, got);
  return got;
}

/** The name of the tool that reads a server's resources, when the hub offers it now. */
export function readerOf(hub: McpHub, server: string): string | undefined {
  const name = mcpToolName(server, 'read_resource', hub.budget.MCP_TOOL_NAME_MAX_CHARS);
  return hub.tools().some((t) => t.name === name) ? name : undefined;
}
