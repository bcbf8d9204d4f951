import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Budget } from '../contract/budget';
import type { McpServerDef, McpServerEntry } from './config';
import { confinedLaunch, type Confinement } from './confine';
import { loadMcpSdk, type McpSdk } from './sdk';
import { liveDescendants } from '../exec/group';
import { processStartTicks, procStat } from '../exec/proc-stat';

export type ServerStatus = 'stopped' | 'starting' | 'running' | 'crashed' | 'failed';

/** The folder of MCP servers' stderr logs (inside the data dir's logs, so the page's viewer opens them). */
export function mcpLogDir(dataDir: string): string {
  return path.join(dataDir, 'logs', 'mcp');
}

const CLIENT_INFO = { name: 'clamp', version: '0.1.0' };
type StdioDef = Extract<McpServerDef, { command: string }>;
type HttpDef = Exclude<McpServerDef, StdioDef>;
type Sandboxed = Extract<Confinement, { bwrap: string }>;

/**
 * One MCP server: its connection, its tools as the server lists them, its status, its stderr log and
 * its restarts. A crash (the process exits, the connection drops) restarts it after a back-off that
 * doubles at each crash in a row; after MCP_RESTART_MAX_ATTEMPTS it stays failed until started again.
 */
export class ServerRuntime {
  status: ServerStatus = 'stopped';
  /** why it is crashed or failed, for the page */
  error: string | null = null;
  tools: Tool[] = [];
  /** whether the server offers resources and prompts (its capabilities at its last start; the hub's cache before that) */
  offers = { resources: false, prompts: false };
  /** crashes in a row (reset by a call that succeeds, or an explicit start) */
  crashes = 0;
  readonly logPath: string;
  private client: Client | null = null;
  /** the stdio server's process (bwrap for a confined one), until it is stopped */
  private pid: number | null = null;
  private starting: Promise<void> | null = null;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly entry: McpServerEntry,
    /** confine: where the server's command runs (a repository's server: the sandbox), read at each start; absent: unconfined */
    private readonly o: { dataDir: string; workspace: string; budget: Budget; confine?: () => Confinement },
  ) {
    this.logPath = path.join(mcpLogDir(o.dataDir), `${entry.name.replace(/[^A-Za-z0-9_.-]/g, '_')}.log`);
  }

  /** Called whenever the status or the tool list changes. Returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) {
      try {
        fn();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /** Start (or wait for the start in progress); resolves once the tools are listed, rejects with the reason. */
  start(): Promise<void> {
    if (this.status === 'running') return Promise.resolve();
    if (this.starting) return this.starting;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.stopping = false;
    this.status = 'starting';
    this.error = null;
    this.changed();
    this.starting = this.connect()
      .then(() => {
        this.status = 'running';
        this.changed();
      })
      .catch((err: unknown) => {
        this.error = startError(this.entry, err);
        this.log(`clamp: could not start: ${this.error}`);
        this.crashed();
        throw err;
      })
      .finally(() => {
        this.starting = null;
      });
    return this.starting;
  }

  private log(line: string): void {
    try {
      fs.mkdirSync(path.dirname(this.logPath), { recursive: true, mode: 0o700 });
      fs.appendFileSync(this.logPath, `${new Date().toISOString()} ${line}\n`);
    } catch {
      // logging must never break the server
    }
  }

  private openLog(): fs.WriteStream {
    fs.mkdirSync(path.dirname(this.logPath), { recursive: true, mode: 0o700 });
    try {
      if (fs.statSync(this.logPath).size > this.o.budget.MCP_LOG_MAX_BYTES) fs.rmSync(this.logPath, { force: true });
    } catch {
      // no log yet
    }
    const log = fs.createWriteStream(this.logPath, { flags: 'a', mode: 0o600 });
    // logging must never break the server: a log that cannot be opened or written (its folder removed) is dropped
    log.on('error', () => undefined);
    return log;
  }

  private async connect(): Promise<void> {
    const def = this.entry.def;
    const timeout = this.o.budget.MCP_CONNECT_TIMEOUT_MS;
    const confined = 'command' in def ? this.o.confine?.() : undefined;
    if (confined && 'problem' in confined) throw new Error(confined.problem);
    const sandbox = confined && 'spec' in confined ? confined : undefined;
    const where = sandbox ? ` (in the sandbox: ${sandbox.spec.level}, ${sandbox.spec.network ? 'network allowed' : 'no network'})` : '';
    this.log(`clamp: starting ${'command' in def ? [def.command, ...(def.args ?? [])].join(' ') : def.url}${where}`);
    const sdk = await loadMcpSdk();
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    if ('command' in def) await this.connectStdio(sdk, client, def, sandbox, timeout);
    else await this.connectHttp(sdk, client, def, timeout);
    this.follow(sdk, client, timeout);
    this.client = client;
    try {
      this.tools = await listAllTools(client, timeout);
      const caps = client.getServerCapabilities();
      this.offers = { resources: Boolean(caps?.resources), prompts: Boolean(caps?.prompts) };
    } catch (err) {
      this.client = null;
      this.stopping = true;
      await client.close().catch(() => undefined);
      this.stopping = false;
      throw err;
    }
  }

  /** A local server: its command (inside the sandbox when confined), its stderr appended to its log. */
  private async connectStdio(sdk: McpSdk, client: Client, def: StdioDef, sandbox: Sandboxed | undefined, timeout: number): Promise<void> {
    const launch = sandbox
      ? confinedLaunch(sandbox.spec, sandbox.bwrap, def.command, def.args ?? [], sdk.getDefaultEnvironment(), def.env ?? {})
      : { command: def.command, args: def.args ?? [], env: { ...sdk.getDefaultEnvironment(), ...(def.env ?? {}) } };
    const t = new sdk.StdioClientTransport({ ...launch, cwd: this.o.workspace, stderr: 'pipe' });
    const log = this.openLog();
    t.stderr?.on('data', (d: Buffer) => log.write(d));
    t.stderr?.on('end', () => log.end());
    await client.connect(t, { timeout });
    this.pid = t.pid;
  }

  /** A remote server: Streamable HTTP, falling back to HTTP+SSE; or HTTP+SSE alone when the entry says so. */
  private async connectHttp(sdk: McpSdk, client: Client, def: HttpDef, timeout: number): Promise<void> {
    const url = new URL(def.url);
    const headers = def.headers ?? {};
    if (def.type === 'sse') return client.connect(sseTransport(sdk, url, headers), { timeout });
    try {
      await client.connect(new sdk.StreamableHTTPClientTransport(url, { requestInit: { headers } }), { timeout });
    } catch (err) {
      // an older server speaks only the HTTP+SSE transport: try it before giving up
      this.log(`clamp: Streamable HTTP failed (${err instanceof Error ? err.message : String(err)}); trying SSE`);
      await client.connect(sseTransport(sdk, url, headers), { timeout });
    }
  }

  /** A dropped connection is a crash (unless it is being stopped); a changed tool list is listed again. */
  private follow(sdk: McpSdk, client: Client, timeout: number): void {
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = null;
      if (this.stopping) return;
      this.error = 'the server closed the connection (it exited or crashed)';
      this.log(`clamp: ${this.error}`);
      this.crashed();
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
      this.log('clamp: the server changed its tool list');
      try {
        this.tools = await listAllTools(client, timeout);
        this.changed();
      } catch (err) {
        this.log(`clamp: could not list the changed tools: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  }

  private crashed(): void {
    this.crashes++;
    const max = this.o.budget.MCP_RESTART_MAX_ATTEMPTS;
    if (this.crashes >= max) {
      this.status = 'failed';
      this.error = `${this.error ?? 'it stopped'}; gave up after ${this.crashes} ${this.crashes === 1 ? "try" : "tries in a row"} (restart it on the settings page)`;
      this.changed();
      return;
    }
    this.status = 'crashed';
    const wait = Math.min(this.o.budget.MCP_RESTART_BACKOFF_MAX_MS, this.o.budget.MCP_RESTART_BACKOFF_MIN_MS * 2 ** (this.crashes - 1));
    this.log(`clamp: restarting in ${wait} ms (crash ${this.crashes} in a row)`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopping) this.start().catch(() => undefined);
    }, wait);
    this.restartTimer.unref?.();
    this.changed();
  }

  /** Stop the server (no restart follows). Never throws. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const c = this.client;
    this.client = null;
    // what runs below the server (a sandbox's processes, a child it left in a session of its own), looked at before
    // the close ends the server: the first process can be gone a moment before the rest
    const below = (this.pid !== null ? liveDescendants(this.pid) : []).map((pid) => ({ pid, start: processStartTicks(pid) }));
    if (c) await c.close().catch(() => undefined);
    // the SDK sends SIGKILL last without waiting: stopped means gone, the server and everything that ran below it
    if (this.pid !== null) await gone(this.pid);
    await Promise.all(below.map((p) => (p.start === undefined ? undefined : gone(p.pid, p.start))));
    this.pid = null;
    this.status = 'stopped';
    this.changed();
  }

  /** Start again from scratch (the page's Restart): the crash count starts over. */
  async restart(): Promise<void> {
    await this.stop();
    this.crashes = 0;
    await this.start();
  }

  /**
   * Call a tool: starts the server first when it is not running (a first-use server, or one waiting out
   * its back-off). Throws the SDK's errors (timeout, connection closed) for the caller to word.
   */
  async call(name: string, args: unknown, opts: { signal: AbortSignal; timeoutMs: number; onProgress?: (text: string) => void }): Promise<CallToolResult> {
    const client = await this.connected();
    const { CallToolResultSchema } = await loadMcpSdk();
    const r = await client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, CallToolResultSchema, {
      signal: opts.signal,
      timeout: opts.timeoutMs,
      maxTotalTimeout: opts.timeoutMs,
      onprogress: opts.onProgress
        ? (p) => opts.onProgress!(`${p.message ? `${p.message} ` : ''}${p.total ? `${p.progress}/${p.total}` : String(p.progress)}`.trim())
        : undefined,
    });
    this.crashes = 0;
    return r as CallToolResult;
  }

  /** Any other request (resources, prompts) on the connection, starting the server first as call() does. Throws the SDK's errors. */
  async request<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const r = await fn(await this.connected());
    this.crashes = 0;
    return r;
  }

  private async connected(): Promise<Client> {
    if (this.status !== 'running' || !this.client) {
      if (this.status === 'failed') this.crashes = 0;
      await this.start();
    }
    if (!this.client) throw new Error('the server is not connected');
    return this.client;
  }
}

/** Resolves once process pid has exited, killing it after a few seconds if it has not. Never throws. */
async function gone(pid: number, start?: string): Promise<void> {
  for (let waited = 0; runs(pid, start); waited += GONE_POLL_MS) {
    if (waited === GONE_KILL_AFTER_MS) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    if (waited > GONE_KILL_AFTER_MS + GONE_KILL_AFTER_MS) return;
    await new Promise((r) => setTimeout(r, GONE_POLL_MS));
  }
}

/**
 * The process still runs: not a zombie (an orphan waits for a slow init to reap it), and, when its start time is
 * given, the same process (its pid not yet reused by another). Without /proc (macOS) the signal's answer.
 */
function runs(pid: number, start: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const f = procStat(pid);
  if (!f) return start === undefined;
  if (f[0] === 'Z' || f[0] === 'X') return false;
  return start === undefined || f[19] === start;
}
const GONE_POLL_MS = 20;
const GONE_KILL_AFTER_MS = 2000;

function sseTransport(sdk: McpSdk, url: URL, headers: Record<string, string>): SSEClientTransport {
  return new sdk.SSEClientTransport(url, {
    requestInit: { headers },
    eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
  });
}

async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const out: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    out.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Why a server did not start, in words with the fix. */
function startError(entry: McpServerEntry, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const def = entry.def;
  if ('command' in def && e?.code === 'ENOENT') return `the command "${def.command}" was not found: install it, or give its full path`;
  if ('command' in def && e?.code === 'EACCES') return `the command "${def.command}" cannot be run (permission denied)`;
  const msg = err instanceof Error ? err.message : String(err);
  if (!('command' in def) && /ECONNREFUSED|fetch failed/i.test(msg)) return `nothing answers at ${def.url} (${msg}): is the server running?`;
  return msg;
}
