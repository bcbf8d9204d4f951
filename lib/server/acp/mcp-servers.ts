import type { McpServer } from '@agentclientprotocol/sdk';
import { defHash, type McpServerDef, type McpServerEntry } from '../../mcp/config';
import { setEditorMcpServers } from '../../mcp/hub';

/** Where the servers an editor hands over say they come from (the settings page and the hub's problems name it). */
export const EDITOR_ORIGIN = 'the editor (ACP session)';

/** An editor's server as Clamp defines one: a program (stdio) or a URL (Streamable HTTP or SSE). */
function defOf(s: McpServer): McpServerDef {
  const pairs = (list: { name: string; value: string }[] | undefined) => Object.fromEntries((list ?? []).map((v) => [v.name, v.value]));
  if ('type' in s && (s.type === 'http' || s.type === 'sse')) {
    return { type: s.type, url: s.url, ...(s.headers?.length ? { headers: pairs(s.headers) } : {}) };
  }
  const stdio = s as Extract<McpServer, { command: string }>;
  return { command: stdio.command, ...(stdio.args?.length ? { args: stdio.args } : {}), ...(stdio.env?.length ? { env: pairs(stdio.env) } : {}) };
}

/**
 * The `mcpServers` of session/new or session/load, taken in for the session's folder: they join the folder's
 * servers (a program among them runs in the sandbox) and the session's turns may call their tools. Returns what
 * could not be taken, each with the reason (said on stderr by the caller; the session starts anyway).
 */
export function takeEditorServers(dataDir: string, workspace: string, servers: readonly McpServer[] | undefined): string[] {
  const problems: string[] = [];
  const entries: McpServerEntry[] = [];
  for (const s of servers ?? []) {
    const name = s.name?.trim();
    if (!name || !/^[A-Za-z0-9_-]+$/.test(name)) {
      problems.push(`The editor's MCP server "${s.name}" is skipped: its name must be letters, digits, - or _ (it becomes part of its tools' names).`);
      continue;
    }
    if (entries.some((e) => e.name === name)) {
      problems.push(`The editor handed over two MCP servers named "${name}"; the first is used.`);
      continue;
    }
    const def = defOf(s);
    entries.push({ name, source: 'file', def, hash: defHash(def), origin: EDITOR_ORIGIN });
  }
  const hub = setEditorMcpServers(dataDir, workspace, entries);
  return [...problems, ...hub.problems.filter((p) => p.includes(EDITOR_ORIGIN))];
}
