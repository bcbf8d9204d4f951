/**
 * The MCP routes' bodies and answers (GET/POST /api/mcp, PATCH/DELETE /api/mcp/[name]): the zod schema
 * each route parses with, the type the page sends, and the views it answers.
 */
import { z } from 'zod';
import type { SideEffect } from './types';

/** A tool of a server as the settings page lists it: offered, disabled by the person, or skipped with the reason. */
export interface McpToolInfo {
  /** the server's own name for it */
  name: string;
  /** the name the model calls it by */
  clampName: string;
  description: string;
  state: 'enabled' | 'disabled' | 'skipped';
  /** why it was skipped, or what was repaired in its schema */
  note?: string;
  readOnlyHint: boolean;
  effect: SideEffect;
  policy: 'ask' | 'allow' | 'deny';
  /** what its definition costs on every request it is sent with (o200k_base tokens); 0 when not offered */
  tokens: number;
}

/** The person's choices about one server. */
export interface McpServerOptions {
  enabled: boolean;
  /** started when Clamp starts, or the first time a turn needs its tools */
  startup: 'launch' | 'first-use';
  /** tools (by the server's own name) not offered to the model */
  disabledTools: string[];
  /** tools the person allows without asking, or denies */
  toolPolicy: Record<string, 'allow' | 'deny'>;
  /** tools the server marks read-only that the person does not trust to be (they ask like any system tool) */
  notReadOnly: string[];
}

/** One server as the settings page shows it (env and header values are secrets: only their names). */
export interface McpServerView {
  name: string;
  source: 'settings' | 'file' | 'workspace';
  /** the file it comes from, or "settings" */
  origin: string;
  transport: 'stdio' | 'http' | 'sse';
  /** the command line or the URL */
  target: string;
  envNames: string[];
  headerNames: string[];
  status: 'stopped' | 'starting' | 'running' | 'crashed' | 'failed' | 'disabled' | 'needs-approval';
  error: string | null;
  options: McpServerOptions;
  tools: McpToolInfo[];
  /** the enabled tools' definitions, in o200k_base tokens */
  tokens: number;
  /** its stderr log (open it with GET /api/files?path=…) */
  logPath: string;
  /** for a workspace server: whether this exact definition is approved */
  approved: boolean;
}

/** GET /api/mcp */
export interface McpView {
  servers: McpServerView[];
  /** configuration problems (a bad CLAMP_MCP_CONFIG or .mcp.json entry), each with its fix */
  problems: string[];
  /** CLAMP_MCP_CONFIG, when set */
  configFile: string | null;
  /** enabled MCP tools' definitions in tokens, against MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS: over it they are deferred behind tool_search */
  mcpTokens: number;
  mcpTokensMax: number;
  deferred: boolean;
}

const kv = z.record(z.string().min(1).max(200), z.string().max(8000));

/** POST /api/mcp: add or replace one of the person's servers (env values and headers go to the secrets file). */
export const mcpServerBody = z.strictObject({
  name: z.string().trim().min(1).max(64),
  command: z.string().trim().min(1).max(4000).optional(),
  args: z.array(z.string().max(4000)).max(100).optional(),
  env: kv.optional(),
  type: z.enum(['stdio', 'http', 'sse']).optional(),
  url: z.string().trim().max(2000).optional(),
  headers: kv.optional(),
  startup: z.enum(['launch', 'first-use']).optional(),
});
export type McpServerBody = z.infer<typeof mcpServerBody>;

/** PATCH /api/mcp/[name]: enable or disable the server, its startup, approve or restart it, or change one tool. */
export const mcpPatchBody = z.strictObject({
  enabled: z.boolean().optional(),
  startup: z.enum(['launch', 'first-use']).optional(),
  /** approve this workspace server's current definition (true), or withdraw the approval (false) */
  approve: z.boolean().optional(),
  restart: z.literal(true).optional(),
  tool: z
    .strictObject({
      name: z.string().min(1).max(500),
      enabled: z.boolean().optional(),
      policy: z.enum(['ask', 'allow', 'deny']).optional(),
      /** false: treat it as not read-only although its server says it is */
      trustReadOnly: z.boolean().optional(),
    })
    .optional(),
});
export type McpPatchBody = z.infer<typeof mcpPatchBody>;
