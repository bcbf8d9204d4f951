import type { McpPatchBody, McpServerBody, McpView } from '../contract/mcp-rest';
import type { ModelStatus } from '../contract/protocol';
import type { Budget } from '../contract/budget';
import type { PermissionMode, ToolServices } from '../contract/types';
import type { Registry } from '../dispatch/registry';
import { ALL_TOOLS } from '../dispatch/all-tools';
import { createTurnTools } from '../dispatch/turn-registry';
import { definitionTokens } from '../dispatch/tool-cost';
import { getMcpHub, type McpHub } from '../mcp/hub';
import { McpConfigError } from '../mcp/config';
import { approveServer, removeSettingsServer, revokeServer, saveSettingsServer, serverOptions, setServerOptions } from '../mcp/store';
import { MODEL_TAKES_IMAGES } from '../mcp/content';
import { providerRow } from '../contract/providers';
import { openDb } from '../store/db';
import { HttpError, type ServerConfig } from './http';

function hubOf(cfg: ServerConfig): McpHub {
  return getMcpHub(cfg.dataDir, cfg.workspace);
}

/** GET /api/mcp: every configured server with status, tools and what their definitions cost. */
export function mcpView(cfg: ServerConfig, env: NodeJS.ProcessEnv = process.env): McpView {
  const hub = hubOf(cfg);
  const defs = new Map(hub.tools().map((t) => [t.name, t]));
  let total = 0;
  const servers = hub.states().map((s) => {
    const tools = s.tools.map((t) => {
      const d = t.state === 'enabled' ? defs.get(t.clampName) : undefined;
      return { ...t, tokens: d ? definitionTokens(d, hub.budget) : 0 };
    });
    const tokens = tools.reduce((n, t) => n + t.tokens, 0);
    if (s.status !== 'disabled' && s.status !== 'needs-approval') total += tokens;
    return { ...s, tools, tokens };
  });
  const max = hub.budget.MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS;
  return { servers, problems: hub.problems, configFile: env.CLAMP_MCP_CONFIG || null, mcpTokens: total, mcpTokensMax: max, deferred: total > max };
}

function configured(hub: McpHub, name: string) {
  const e = hub.configured().find((s) => s.name === name);
  if (!e) throw new HttpError(404, `No MCP server is named "${name}". The configured ones: ${hub.configured().map((s) => s.name).join(', ') || 'none'}.`);
  return e;
}

/** POST /api/mcp: add or replace one of the person's servers; it starts (unless set to first use). */
export async function saveMcpServer(cfg: ServerConfig, body: McpServerBody): Promise<McpView> {
  const db = openDb(cfg.dataDir);
  const hub = hubOf(cfg);
  const other = hub.configured().find((s) => s.name === body.name && s.source !== 'settings');
  if (other) throw new HttpError(409, `The server "${body.name}" is defined in ${other.origin}. Choose another name.`);
  const raw = body.url ? { type: body.type === 'sse' ? 'sse' : 'http', url: body.url, headers: body.headers } : { command: body.command, args: body.args, env: body.env };
  try {
    saveSettingsServer(db, cfg.dataDir, body.name, raw);
  } catch (err) {
    if (err instanceof McpConfigError) throw new HttpError(400, err.message);
    throw err;
  }
  if (body.startup) setServerOptions(db, body.name, { startup: body.startup });
  hub.reload();
  if (serverOptions(db, body.name).startup === 'launch') await hub.runtime(body.name)?.start().catch(() => undefined);
  return mcpView(cfg);
}

/** DELETE /api/mcp/[name]: remove one of the person's servers (a file's or workspace's server is removed from its file). */
export async function removeMcpServer(cfg: ServerConfig, name: string): Promise<McpView> {
  const hub = hubOf(cfg);
  const e = configured(hub, name);
  if (e.source !== 'settings') throw new HttpError(409, `The server "${name}" comes from ${e.origin}; remove it there, or disable it here.`);
  removeSettingsServer(openDb(cfg.dataDir), cfg.dataDir, name);
  hub.reload();
  return mcpView(cfg);
}

/** PATCH /api/mcp/[name]: enable/disable, startup, approve (workspace servers), restart, or one tool's settings. */
export async function patchMcpServer(cfg: ServerConfig, name: string, body: McpPatchBody): Promise<McpView> {
  const db = openDb(cfg.dataDir);
  const hub = hubOf(cfg);
  const e = configured(hub, name);
  if (body.approve !== undefined) {
    if (e.source !== 'workspace') throw new HttpError(400, `"${name}" is your own server (${e.origin}); only a workspace's .mcp.json servers need approval.`);
    if (body.approve) approveServer(db, cfg.workspace, e);
    else revokeServer(db, cfg.workspace, name);
  }
  const opts = serverOptions(db, name);
  const patch: Partial<typeof opts> = {};
  if (body.enabled !== undefined) patch.enabled = body.enabled;
  if (body.startup !== undefined) patch.startup = body.startup;
  if (body.tool) {
    const t = body.tool;
    if (t.enabled !== undefined) patch.disabledTools = t.enabled ? opts.disabledTools.filter((n) => n !== t.name) : [...new Set([...opts.disabledTools, t.name])];
    if (t.policy !== undefined) {
      const p = { ...opts.toolPolicy };
      if (t.policy === 'ask') delete p[t.name];
      else p[t.name] = t.policy;
      patch.toolPolicy = p;
    }
    if (t.trustReadOnly !== undefined) patch.notReadOnly = t.trustReadOnly ? opts.notReadOnly.filter((n) => n !== t.name) : [...new Set([...opts.notReadOnly, t.name])];
  }
  if (Object.keys(patch).length) setServerOptions(db, name, patch);
  hub.reload();
  const rt = hub.runtime(name);
  if (rt && body.restart) await rt.restart().catch(() => undefined);
  else if (rt && (body.approve || body.enabled) && serverOptions(db, name).startup === 'launch') await rt.start().catch(() => undefined);
  return mcpView(cfg);
}

/**
 * Whether the model in use takes images in tool results: a vision model (lib/agent/vision.ts) on a provider whose
 * tool results carry images (Anthropic, OpenAI's Responses API); an MCP tool's images are sent as image parts then.
 */
export function modelTakesImages(status: Pick<ModelStatus, 'provider' | 'imageInput'>): boolean {
  // Chat Completions (openai-compatible, Ollama) carry only text in a tool message: the SDK would send the image as base64 text
  if (!providerRow(status.provider)?.toolResultImages) return false;
  return status.imageInput ? status.imageInput.accepted : true;
}

/**
 * A turn's tools: the built-ins and the MCP servers' tools of the folder the session works in (first-use servers started, the
 * configuration read again), with deferral for the model's window. Pass reg to the loop, services into
 * the host's services, systemExtra into the system prompt.
 */
export async function turnTools(
  cfg: ServerConfig,
  o: { sessionId: string; status: ModelStatus; mode: () => PermissionMode; budget?: Budget; home?: string },
): Promise<{ reg: Registry; services: ToolServices; systemExtra: string[] }> {
  // a session on its own worktree: cfg.workspace is that folder (its servers start there), the approvals are home's
  const hub = getMcpHub(cfg.dataDir, cfg.workspace, process.env, o.home ?? cfg.workspace);
  try {
    hub.reload();
    await hub.prepare();
  } catch (err) {
    console.error('clamp: MCP servers could not be prepared:', err);
  }
  const turn = createTurnTools({
    builtins: ALL_TOOLS,
    mcp: () => hub.tools(),
    // built-ins are deferred on a window known to be small, not on the fallback guess for an unknown one
    windowTokens: o.status.windowSource.kind === 'default' ? Number.POSITIVE_INFINITY : o.status.windowTokens,
    budget: o.budget ?? hub.budget,
    loaded: hub.loadedFor(o.sessionId),
    mode: o.mode,
    workspace: cfg.workspace,
    dataDir: cfg.dataDir,
  });
  const section = turn.systemSection();
  return { reg: turn.reg, services: { ...turn.services, [MODEL_TAKES_IMAGES]: modelTakesImages(o.status) }, systemExtra: section ? [section] : [] };
}
