import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { budgetTable, type Budget } from '../contract/budget';
import type { ToolDefinition } from '../contract/types';
import { onShutdown } from '../contract/shutdown';
import { openDb, type Db } from '../store/db';
import { getSandboxSettings, getSetting, setSetting } from '../store/settings';
import { McpConfigError, readConfigFile, workspaceConfigPath, type McpServerEntry } from './config';
import { isApproved, serverOptions, settingsServers } from './store';
import { ServerRuntime } from './server-runtime';
import { workspaceConfinement } from './confine';
import { buildServerTools } from './tools';
import { resourceTools } from './resources';
import { loadMcpSdk, loadedMcpSdk } from './sdk';
import type { McpServerView, McpToolInfo } from '../contract/mcp-rest';

const TOOL_CACHE_KEY = 'mcp.toolCache';

/** One server as the hub knows it (the page's view adds what the definitions cost). */
export type McpServerState = Omit<McpServerView, 'tokens'>;

/**
 * The MCP servers of one workspace: which are configured (the settings page, CLAMP_MCP_CONFIG, the
 * workspace's .mcp.json), which may run (a workspace's server only once the person approved its exact
 * definition), their runtimes, and their tools as Clamp tools. A session's own worktree has a hub of its own:
 * its servers start in the worktree folder and read its .mcp.json, while the approvals are the home
 * workspace's (`home`), so an approved server of the repository runs in its worktrees in exactly that definition. Nothing here starts a server on its own
 * except startAtLaunch() and a turn's prepare(); reading the configuration never runs a program.
 */
export class McpHub {
  private runtimes = new Map<string, ServerRuntime>();
  private entries: McpServerEntry[] = [];
  problems: string[] = [];
  /** bumped whenever any server's tools or status change: a turn's registry rebuilds its MCP tools then */
  version = 0;
  private built: { version: number; defs: ToolDefinition[]; infos: Map<string, McpToolInfo[]> } | null = null;
  private loaded = new Map<string, Set<string>>();
  readonly budget: Budget;

  constructor(
    readonly dataDir: string,
    readonly workspace: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    budget: Partial<Budget> = {},
    /** the workspace whose approvals hold here: the folder itself, or for a worktree the workspace it was made from */
    readonly home: string = workspace,
  ) {
    this.budget = budgetTable(budget);
    this.reload();
  }

  private get db(): Db {
    return openDb(this.dataDir);
  }

  /** Read the configuration again and bring the runtimes in line (a changed definition restarts its server; a removed one stops). */
  reload(): void {
    const problems: string[] = [];
    const all: McpServerEntry[] = [...settingsServers(this.db, this.dataDir)];
    const file = this.env.CLAMP_MCP_CONFIG;
    const read = (path: string, source: 'file' | 'workspace', optional: boolean) => {
      try {
        const r = readConfigFile(path, source, this.env, optional);
        all.push(...r.entries);
        problems.push(...r.problems);
      } catch (err) {
        if (err instanceof McpConfigError) problems.push(err.message);
        else throw err;
      }
    };
    if (file) read(file, 'file', false);
    all.push(...(editorServers().get(this.workspace) ?? []));
    read(workspaceConfigPath(this.workspace), 'workspace', true);
    const seen = new Map<string, McpServerEntry>();
    for (const e of all) {
      const first = seen.get(e.name);
      if (first) problems.push(`The server "${e.name}" of ${e.origin} is ignored: ${first.origin === 'settings' ? 'the settings page' : first.origin} defines one of that name.`);
      else seen.set(e.name, e);
    }
    this.entries = [...seen.values()];
    this.problems = problems;
    const cache = getSetting<Record<string, { hash: string; tools: Tool[]; offers?: ServerRuntime['offers'] }>>(this.db, TOOL_CACHE_KEY) ?? {};
    for (const [name, rt] of this.runtimes) {
      const e = seen.get(name);
      if (!e || e.hash !== rt.entry.hash || !this.mayRun(e)) {
        void rt.stop();
        this.runtimes.delete(name);
      }
    }
    for (const e of this.entries) {
      if (this.runtimes.has(e.name) || !this.mayRun(e)) continue;
      // a repository's server runs in the sandbox, with the sandbox settings of the moment it starts
      const what = e.confined ? `a server the editor handed over (${e.origin})` : undefined;
      const confine = () => workspaceConfinement({ workspace: this.workspace, dataDir: this.dataDir, settings: getSandboxSettings(this.db), env: this.env, ...(what ? { what } : {}) });
      const rt = new ServerRuntime(e, { dataDir: this.dataDir, workspace: this.workspace, budget: this.budget, ...(e.source === 'workspace' || e.confined ? { confine } : {}) });
      const cached = cache[e.name];
      if (cached && cached.hash === e.hash) {
        rt.tools = cached.tools;
        if (cached.offers) rt.offers = cached.offers;
      }
      rt.onChange(() => this.onRuntimeChange(rt));
      this.runtimes.set(e.name, rt);
    }
    this.bump();
    // a server that may run needs the SDK (its tools' schemas are compiled with it): loaded now, in the background
    if (this.runtimes.size > 0 && !loadedMcpSdk()) void this.sdkLoaded();
  }

  /** Load the SDK; once it is, the tools are built again (their schemas compiled). Never throws. */
  private async sdkLoaded(): Promise<void> {
    if (loadedMcpSdk()) return;
    try {
      await loadMcpSdk();
      this.bump();
    } catch (err) {
      console.error('clamp: the MCP SDK could not be loaded:', err);
    }
  }

  private onRuntimeChange(rt: ServerRuntime): void {
    if (rt.status === 'running') {
      const cache = getSetting<Record<string, { hash: string; tools: Tool[]; offers?: ServerRuntime['offers'] }>>(this.db, TOOL_CACHE_KEY) ?? {};
      cache[rt.entry.name] = { hash: rt.entry.hash, tools: rt.tools, offers: rt.offers };
      setSetting(this.db, TOOL_CACHE_KEY, cache);
    }
    this.bump();
  }

  private bump(): void {
    this.version++;
    this.built = null;
  }

  /** Enabled, and for a workspace's server, approved in exactly this definition. */
  private mayRun(e: McpServerEntry): boolean {
    if (!serverOptions(this.db, e.name).enabled) return false;
    return e.source !== 'workspace' || isApproved(this.db, this.home, e);
  }

  /** Start the enabled, runnable servers set to start at launch (in the background; failures show on the page). */
  startAtLaunch(): void {
    for (const rt of this.runtimes.values()) {
      if (serverOptions(this.db, rt.entry.name).startup === 'launch' && rt.status === 'stopped') rt.start().catch(() => undefined);
    }
  }

  /**
   * Before a turn: every runnable server whose tools Clamp does not know yet is started (first use), and
   * servers still starting are waited for, each at most MCP_CONNECT_TIMEOUT_MS. Never throws: a server
   * that fails shows its error on the page and offers no tools.
   */
  async prepare(): Promise<void> {
    if (this.runtimes.size > 0) await this.sdkLoaded();
    const waits: Promise<unknown>[] = [];
    for (const rt of this.runtimes.values()) {
      if (rt.status === 'starting' || ((rt.status === 'stopped' || rt.status === 'crashed') && rt.tools.length === 0)) waits.push(rt.start().catch(() => undefined));
    }
    await Promise.all(waits);
  }

  /** A runtime by server name (for the page's Restart), if it may run. */
  runtime(name: string): ServerRuntime | undefined {
    return this.runtimes.get(name);
  }

  /** The configured servers (whether or not they may run). */
  configured(): readonly McpServerEntry[] {
    return this.entries;
  }

  private build(): NonNullable<McpHub['built']> {
    if (this.built && this.built.version === this.version) return this.built;
    const taken = new Set<string>();
    const defs: ToolDefinition[] = [];
    const infos = new Map<string, McpToolInfo[]>();
    for (const e of this.entries) {
      const rt = this.runtimes.get(e.name);
      if (!rt) continue;
      const b = buildServerTools(rt, serverOptions(this.db, e.name), this.budget, taken);
      if (rt.status !== 'failed') defs.push(...b.defs, ...(rt.offers.resources ? resourceTools(rt, this.budget, taken) : []));
      infos.set(e.name, b.infos);
    }
    this.built = { version: this.version, defs, infos };
    return this.built;
  }

  /** Every enabled tool of every runnable server, as Clamp tools (rebuilt only when something changed). */
  tools(): readonly ToolDefinition[] {
    return this.build().defs;
  }

  /** The deferred tools a session has loaded with tool_search (callable and listed from then on). */
  loadedFor(sessionId: string): Set<string> {
    let s = this.loaded.get(sessionId);
    if (!s) this.loaded.set(sessionId, (s = new Set()));
    return s;
  }

  /** Every configured server with its status and tools, for the settings page. */
  states(): McpServerState[] {
    const b = this.build();
    return this.entries.map((e) => {
      const rt = this.runtimes.get(e.name);
      const options = serverOptions(this.db, e.name);
      const approved = e.source !== 'workspace' || isApproved(this.db, this.home, e);
      const status: McpServerView['status'] = !options.enabled ? 'disabled' : !approved ? 'needs-approval' : (rt?.status ?? 'stopped');
      const d = e.def;
      return {
        name: e.name,
        source: e.source,
        origin: e.origin,
        transport: 'command' in d ? 'stdio' : d.type,
        target: 'command' in d ? [d.command, ...(d.args ?? [])].join(' ') : d.url,
        envNames: 'command' in d ? Object.keys(d.env ?? {}) : [],
        headerNames: 'command' in d ? [] : Object.keys(d.headers ?? {}),
        status,
        error: rt?.error ?? null,
        options,
        tools: b.infos.get(e.name) ?? [],
        logPath: rt?.logPath ?? new ServerRuntime(e, { dataDir: this.dataDir, workspace: this.workspace, budget: this.budget }).logPath,
        approved,
      };
    });
  }

  /** Stop every server. Never throws. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((r) => r.stop()));
  }
}

const KEY = Symbol.for('clamp.mcpHubs');
const EDITOR_KEY = Symbol.for('clamp.mcpEditorServers');

/** The servers editors handed over, by folder (ACP's session/new and session/load). */
function editorServers(): Map<string, McpServerEntry[]> {
  const g = globalThis as unknown as Record<symbol, Map<string, McpServerEntry[]> | undefined>;
  return (g[EDITOR_KEY] ??= new Map());
}

/**
 * The MCP servers an editor hands over for a folder (ACP's session/new or session/load): the person's editor's,
 * so they run without asking, but a program among them runs in the sandbox as a repository's does — the editor
 * may have read it from the project's own settings. Replaces what was handed over for the folder before; the
 * folder's hub takes them in at once (a server of the same name from the settings page or CLAMP_MCP_CONFIG wins).
 */
export function setEditorMcpServers(dataDir: string, workspace: string, entries: McpServerEntry[]): McpHub {
  editorServers().set(workspace, entries.map((e) => ({ ...e, confined: 'command' in e.def })));
  const hub = getMcpHub(dataDir, workspace);
  hub.reload();
  return hub;
}

function hubs(): Map<string, McpHub> {
  const g = globalThis as unknown as Record<symbol, Map<string, McpHub> | undefined>;
  return (g[KEY] ??= new Map());
}

/**
 * The process-wide hub of a data dir and folder (created on first use; stopped with the launcher). `home` is
 * the workspace whose approvals hold: give it for a session's worktree folder (it defaults to the folder).
 */
export function getMcpHub(dataDir: string, workspace: string, env: NodeJS.ProcessEnv = process.env, home: string = workspace): McpHub {
  const k = `${dataDir}\u0000${workspace}\u0000${home}`;
  let h = hubs().get(k);
  if (!h) {
    h = new McpHub(dataDir, workspace, env, {}, home);
    hubs().set(k, h);
    const hub = h;
    onShutdown(() => hub.shutdown());
  }
  return h;
}

/** Stop and forget the hubs of a folder and the folders in it (a worktree being finished: its servers must not outlive it). Never throws. */
export async function closeMcpHubs(dataDir: string, folder: string): Promise<void> {
  const inside = (h: McpHub) => h.dataDir === dataDir && (h.workspace === folder || h.workspace.startsWith(folder + path.sep));
  const gone = [...hubs()].filter(([, h]) => inside(h));
  for (const [k] of gone) hubs().delete(k);
  await Promise.all(gone.map(([, h]) => h.shutdown()));
}
