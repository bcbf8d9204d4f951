import fs from 'node:fs';
import path from 'node:path';
import { createContext } from '../../lib/dispatch/context';
import { dispatch, type DispatchOptions } from '../../lib/dispatch/dispatch';
import { createTurnTools } from '../../lib/dispatch/turn-registry';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import { McpHub } from '../../lib/mcp/hub';
import { MODEL_TAKES_IMAGES } from '../../lib/mcp/content';
import { budgetTable, type Budget } from '../../lib/contract/budget';
import type { PermissionMode, ToolResult } from '../../lib/contract/types';
import { tempWorkspace } from '../helpers';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
export const FIXTURE = path.join(__dirname, 'fixture-server.mjs');

/** A workspace, a data dir, a CLAMP_MCP_CONFIG file with these servers, and a hub over them. */
export function hubBed(servers: Record<string, unknown>, o: { budget?: Partial<Budget>; workspaceServers?: Record<string, unknown> } = {}) {
  const ws = tempWorkspace('clamp-mcp-');
  const file = path.join(ws.root, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  if (o.workspaceServers) ws.write('.mcp.json', JSON.stringify({ mcpServers: o.workspaceServers }));
  const env = { ...process.env, CLAMP_MCP_CONFIG: file };
  const hub = new McpHub(ws.dataDir, ws.workspace, env, o.budget ?? {});
  const budget = budgetTable(o.budget ?? {});
  let mode: PermissionMode = 'default';
  const loaded = new Set<string>();
  const turn = (windowTokens = 200_000) =>
    createTurnTools({ builtins: ALL_TOOLS, mcp: () => hub.tools(), windowTokens, budget, loaded, mode: () => mode, workspace: ws.workspace, dataDir: ws.dataDir });
  return {
    ws,
    hub,
    env,
    budget,
    loaded,
    setMode: (m: PermissionMode) => (mode = m),
    turn,
    /** a call through dispatch, as the loop makes it (approved unless said otherwise) */
    async call(name: string, args: unknown, extra: { takesImages?: boolean; signal?: AbortSignal; budget?: Partial<Budget>; opts?: DispatchOptions; onStatus?: (t: string) => void } = {}): Promise<ToolResult> {
      const t = turn();
      const ctx = createContext({
        workspace: ws.workspace,
        dataDir: ws.dataDir,
        mode,
        signal: extra.signal,
        budget: { ...o.budget, ...extra.budget },
        services: { ...t.services, [MODEL_TAKES_IMAGES]: extra.takesImages ?? true },
        onProgress: (p) => p.kind === 'status' && extra.onStatus?.(p.text),
      });
      return dispatch(t.reg, name, args, ctx, extra.opts ?? { approver: { approved: true } });
    },
    async close() {
      await hub.shutdown();
      ws.cleanup();
    },
  };
}

/** Wait until check() holds (polling), or fail after timeoutMs with what was last seen. */
export async function until<T>(check: () => T | undefined | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
