import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { McpServerOptions } from '../contract/mcp-rest';

/** How Clamp reaches a server: a program over stdio, or a URL (Streamable HTTP, falling back to SSE). */
export type McpServerDef =
  | { type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string> }
  | { type: 'http' | 'sse'; url: string; headers?: Record<string, string> };

/** Where a server's definition comes from: the settings page, the CLAMP_MCP_CONFIG file, or the workspace's .mcp.json. */
export type McpSource = 'settings' | 'file' | 'workspace';

export type { McpServerOptions };

export const DEFAULT_SERVER_OPTIONS: McpServerOptions = { enabled: true, startup: 'launch', disabledTools: [], toolPolicy: {}, notReadOnly: [] };

/** One configured server as the hub sees it. */
export interface McpServerEntry {
  name: string;
  source: McpSource;
  def: McpServerDef;
  /** a hash of what would run (command, args, env, url, headers): an approval holds for this exact definition */
  hash: string;
  /** where it was read from (a file path, or "settings") */
  origin: string;
  /** runs in the sandbox though it needs no approval: a server an editor handed over (it may come from the project's settings) */
  confined?: boolean;
}

const record = z.record(z.string(), z.string());
const stdioDef = z.object({ type: z.literal('stdio').optional(), command: z.string().min(1), args: z.array(z.string()).optional(), env: record.optional() });
const urlDef = z.object({ type: z.enum(['http', 'sse', 'streamable-http']), url: z.string().url(), headers: record.optional() });
const serverDef = z.union([stdioDef, urlDef]);
const configFile = z.object({ mcpServers: z.record(z.string(), z.unknown()) });

/** A configuration that cannot be used, with the fix in its text. */
export class McpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpConfigError';
  }
}

/** ${VAR} and ${VAR:-default} from the environment (the .mcp.json convention); an unset variable without default stays empty. */
export function expandVars(s: string, env: NodeJS.ProcessEnv): string {
  return s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, dflt: string | undefined) => env[name] ?? dflt ?? '');
}

/** Parse one server's definition; throws McpConfigError naming the server and the problem. */
export function parseServerDef(name: string, raw: unknown, where: string, env?: NodeJS.ProcessEnv): McpServerDef {
  const r = serverDef.safeParse(raw);
  if (!r.success) {
    throw new McpConfigError(
      `${where}: server "${name}" needs either {"command": "...", "args": [...], "env": {...}} or {"type": "http", "url": "https://...", "headers": {...}}.`,
    );
  }
  const x = env ? (s: string) => expandVars(s, env) : (s: string) => s;
  const mapRec = (m?: Record<string, string>) => (m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)])) : undefined);
  const d = r.data;
  if ('command' in d) return { command: x(d.command), ...(d.args ? { args: d.args.map(x) } : {}), ...(d.env ? { env: mapRec(d.env) } : {}) };
  return { type: d.type === 'sse' ? 'sse' : 'http', url: x(d.url), ...(d.headers ? { headers: mapRec(d.headers) } : {}) };
}

/** A hash of everything that decides what runs or where it connects. */
export function defHash(def: McpServerDef): string {
  const canon = 'command' in def ? { command: def.command, args: def.args ?? [], env: sorted(def.env) } : { type: def.type, url: def.url, headers: sorted(def.headers) };
  return crypto.createHash('sha256').update(JSON.stringify(canon)).digest('hex').slice(0, 32);
}

function sorted(m?: Record<string, string>): [string, string][] {
  return Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Read a `{"mcpServers": {name: def}}` file. A missing file gives no servers when `optional`;
 * otherwise every problem throws McpConfigError with the file's path and the fix.
 */
export function readConfigFile(file: string, source: McpSource, env: NodeJS.ProcessEnv, optional = false): { entries: McpServerEntry[]; problems: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], problems: [] };
    throw new McpConfigError(`Cannot read the MCP configuration ${file} (${(err as Error).message}). Check the path${source === 'file' ? ' in CLAMP_MCP_CONFIG' : ''}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`${file} is not valid JSON (${(err as Error).message}). Fix it: the format is {"mcpServers": {"name": {"command": "...", "args": []}}}.`);
  }
  const parsed = configFile.safeParse(json);
  if (!parsed.success) throw new McpConfigError(`${file} has no "mcpServers" object. The format is {"mcpServers": {"name": {"command": "...", "args": []}}}.`);
  const entries: McpServerEntry[] = [];
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(parsed.data.mcpServers)) {
    try {
      // a workspace's file is the repository's: its ${VAR}s are not filled from the person's environment
      const def = parseServerDef(name, raw, file, source === 'workspace' ? undefined : env);
      entries.push({ name, source, def, hash: defHash(def), origin: file });
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return { entries, problems };
}

/** The workspace's .mcp.json (the repository's servers: each needs the person's approval before it starts). */
export function workspaceConfigPath(workspace: string): string {
  return path.join(workspace, '.mcp.json');
}

/** A server name as it appears in tool names: lower-case letters, digits and underscores. */
export function sanitizeName(s: string): string {
  const out = s
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return out || 'x';
}

/** A tool's name for the model: mcp__<server>__<tool>, sanitised, cut to the providers' limit with a short hash to stay unique. */
export function mcpToolName(server: string, tool: string, maxChars: number): string {
  const full = `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
  if (full.length <= maxChars) return full;
  const h = crypto.createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 6);
  return `${full.slice(0, maxChars - 7)}_${h}`;
}
