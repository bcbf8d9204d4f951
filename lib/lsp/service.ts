/**
 * Diagnostics after edits, as the service dispatch calls (`ctx.services.diagnostics`): which server
 * covers a file, one warm server per workspace and server (started on first use, started again after
 * a crash, stopped when Clamp stops or the setting turns diagnostics off), and the new errors of a change.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BUDGET, type Budget } from '../contract/budget';
import type { DiagnosticsMeta, DiagnosticsReport, DiagnosticsService, FileBefore, FileDiagnostic, LanguageServerView } from '../contract/diagnostics';
import { onShutdown } from '../contract/shutdown';
import { sandboxStatus } from '../exec/sandbox';
import type { LspClient } from './client';
import type { RawDiagnostic } from './raw-diagnostic';
import { reportText } from './format';
import { newErrors } from './match';
import type { RpcError } from './rpc';
import { typescriptFor } from './typescript';
import { findProgram } from '../exec/programs';
import { loadServers, matchesPatterns, type ServerList, type ServerSpec } from './servers';
import { readConfined } from '../policy/confined-io';

export interface DiagnosticsOptions {
  workspace: string;
  dataDir: string;
  /** read at each call: the setting (and CLAMP_DIAGNOSTICS) may change between calls */
  enabled: () => boolean;
  env?: NodeJS.ProcessEnv;
  budget?: Partial<Budget>;
}

/** How one configured server stands, for the settings page. */
export type ServerStatus = LanguageServerView;

const CLIENTS = Symbol.for('clamp.lspClients');

interface Registry {
  clients: Map<string, LspClient>;
  /** the last diagnostics each client gave for a file's text: the next change's baseline when the text is the same */
  last: Map<string, { text: string; diags: RawDiagnostic[] }>;
  hooked: boolean;
}

function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry | undefined>;
  return (g[CLIENTS] ??= { clients: new Map(), last: new Map(), hooked: false });
}

/** The client modules (the language-server protocol packages with them), loaded at the first use of a server. */
interface LspModules {
  LspClient: typeof LspClient;
  RpcError: typeof RpcError;
}
let modules: LspModules | null = null;
let loadingModules: Promise<LspModules> | null = null;

/** Load the client modules once: a run that never reads or edits a file a server covers does not load them. */
function loadModules(): Promise<LspModules> {
  loadingModules ??= Promise.all([import('./client'), import('./rpc')]).then(([c, r]) => (modules = { LspClient: c.LspClient, RpcError: r.RpcError }));
  return loadingModules;
}

/** Stop every language server of a workspace (all workspaces when none is named); never throws. */
export async function stopLanguageServers(workspace?: string, graceMs: number = BUDGET.LSP_SHUTDOWN_GRACE_MS): Promise<void> {
  const reg = registry();
  const stopping: Promise<void>[] = [];
  for (const [key, c] of reg.clients) {
    if (workspace !== undefined && !key.startsWith(`${workspace}\u0000`)) continue;
    reg.clients.delete(key);
    stopping.push(c.stop(graceMs).catch(() => undefined));
  }
  for (const key of [...reg.last.keys()]) if (workspace === undefined || key.startsWith(`${workspace}\u0000`)) reg.last.delete(key);
  await Promise.all(stopping);
}

const cachedLists = new Map<string, { mtimeMs: number; list: ServerList }>();

/** The servers for a data dir, read again when the configuration file changes. */
function serversOf(dataDir: string, env: NodeJS.ProcessEnv): ServerList {
  const probe = loadServersStat(dataDir, env);
  const key = `${dataDir}\u0000${env.CLAMP_LSP_CONFIG ?? ''}`;
  const hit = cachedLists.get(key);
  if (hit && hit.mtimeMs === probe) return hit.list;
  const list = loadServers(dataDir, env);
  cachedLists.set(key, { mtimeMs: probe, list });
  return list;
}

function loadServersStat(dataDir: string, env: NodeJS.ProcessEnv): number {
  try {
    return fs.statSync(env.CLAMP_LSP_CONFIG ? path.resolve(env.CLAMP_LSP_CONFIG) : path.join(dataDir, 'lsp.json')).mtimeMs;
  } catch {
    return -1;
  }
}

/** Whether a server may run here, and how: sandboxed, unconfined, or not at all (with why). */
function placement(spec: ServerSpec, env: NodeJS.ProcessEnv): { bwrap?: string; problem?: ServerStatus['state']; detail?: string } {
  if (spec.kind === 'generic' && !findProgram(spec.command, env)) return { problem: 'missing', detail: `${spec.command} was not found on PATH; install it or fix "command" in the configuration` };
  const wantsSandbox = spec.sandbox && env.CLAMP_SANDBOX !== 'off';
  if (!wantsSandbox) return {};
  const st = sandboxStatus(env);
  if (st.available) return { bwrap: st.bwrap };
  // the built-in server then runs Clamp's own TypeScript unconfined (no code of the workspace's runs); a configured one waits for the sandbox
  if (spec.kind === 'typescript') return {};
  return { problem: 'needs-sandbox', detail: `it is set to run sandboxed and ${st.problem}; or set "sandbox": false for it` };
}

/** A changed file a server covers, with its text after the change and the server that checks it. */
interface Planned {
  file: FileBefore;
  after: string;
  spec: ServerSpec;
  client: LspClient;
}

class LspDiagnostics implements DiagnosticsService {
  private readonly env: NodeJS.ProcessEnv;
  private readonly b: Budget;

  constructor(private readonly o: DiagnosticsOptions) {
    this.env = o.env ?? process.env;
    this.b = { ...BUDGET, ...o.budget };
    const reg = registry();
    if (!reg.hooked) {
      reg.hooked = true;
      onShutdown(() => stopLanguageServers());
    }
  }

  private rel(abs: string): string {
    return path.relative(this.o.workspace, abs).split(path.sep).join('/');
  }

  private serverFor(abs: string): ServerSpec | undefined {
    const rel = this.rel(abs);
    if (rel.startsWith('../') || path.isAbsolute(rel)) return undefined;
    return serversOf(this.o.dataDir, this.env).servers.find((s) => matchesPatterns(rel, s.patterns));
  }

  covers(abs: string): boolean {
    const yes = this.o.enabled() && this.serverFor(abs) !== undefined;
    // asked before a change to a covered file: the client modules load while the change is made
    if (yes && !modules) loadModules().catch(() => undefined);
    return yes;
  }

  /** The spec's running client, or a new one; skip when it cannot run here. The client modules must be loaded (loadModules). */
  private clientFor(spec: ServerSpec): { client?: LspClient; skip?: boolean } {
    if (!modules) return { skip: true };
    const reg = registry();
    const key = `${this.o.workspace}\u0000${spec.name}\u0000${JSON.stringify(spec)}`;
    const have = reg.clients.get(key);
    if (have?.alive) return { client: have };
    if (have) reg.clients.delete(key); // crashed: a new one starts now
    const where = placement(spec, this.env);
    if (where.problem) return { skip: true };
    const client = new modules.LspClient({
      spec,
      workspace: this.o.workspace,
      dataDir: this.o.dataDir,
      bwrap: where.bwrap,
      env: this.env,
      startTimeoutMs: this.b.LSP_START_TIMEOUT_MS,
      settleMs: this.b.DIAGNOSTICS_SETTLE_MS,
    });
    reg.clients.set(key, client);
    return { client };
  }

  /**
   * Read a changed file as text for a server; undefined when it is gone, too large, not text, or no longer
   * inside the workspace (read through the file opened and checked: a link swapped in is not followed out).
   */
  private textOf(abs: string): string | undefined {
    try {
      const got = readConfined({ abs, rel: abs, root: this.o.workspace }, this.b.DIAGNOSTICS_FILE_MAX_BYTES);
      if (got?.kind !== 'file') return undefined;
      const raw = got.data;
      if (raw.subarray(0, this.b.BINARY_SNIFF_BYTES).includes(0)) return undefined;
      return new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      return undefined;
    }
  }

  warm(abs: string): void {
    if (!this.o.enabled()) return;
    const spec = this.serverFor(abs);
    const text = spec ? this.textOf(abs) : undefined;
    if (!spec || text === undefined) return;
    if (!modules) {
      // warming is a courtesy: it happens once the client modules are in
      loadModules().then(() => this.warm(abs), () => undefined);
      return;
    }
    this.clientFor(spec).client?.prepare(abs, text);
  }

  /**
   * The change's report within DIAGNOSTICS_WAIT_MS; else a 'pending' report whose `late` is the whole one,
   * which goes on (past the call's stop too) up to DIAGNOSTICS_TIMEOUT_MS. A call stopped while it waits
   * gets 'not-ready' at once.
   */
  async check(files: FileBefore[], signal: AbortSignal): Promise<DiagnosticsReport | undefined> {
    if (!this.o.enabled()) return undefined;
    const started = Date.now();
    if (!modules && files.some((f) => this.serverFor(f.abs))) await loadModules();
    const plan: Planned[] = [];
    for (const file of files) {
      const spec = this.serverFor(file.abs);
      const after = spec ? this.textOf(file.abs) : undefined;
      const { client } = spec && after !== undefined ? this.clientFor(spec) : {};
      // a missing program or no sandbox: the settings page says so, the result does not
      if (spec && client && after !== undefined) plan.push({ file, after, spec, client });
    }
    if (plan.length === 0) return undefined;
    // the check runs on its own signal: once the result has gone back without it, stopping the turn does not end it
    const own = new AbortController();
    const whole = this.checkAll(plan, started, own.signal);
    const first = await new Promise<DiagnosticsReport | 'wait' | 'stopped'>((resolve) => {
      const timer = setTimeout(() => resolve('wait'), Math.max(0, this.b.DIAGNOSTICS_WAIT_MS - (Date.now() - started)));
      const onAbort = () => resolve('stopped');
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void whole.then(resolve).finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      });
    });
    if (first === 'stopped') {
      own.abort();
      return this.report({ servers: [...new Set(plan.map((p) => p.spec.name))], state: 'not-ready', newErrors: [], shown: 0, preexisting: 0, note: 'the call was stopped', durationMs: Date.now() - started });
    }
    if (first !== 'wait') return first;
    const starting = plan.some((p) => !p.client.initialized);
    const pending = this.report({
      servers: [...new Set(plan.map((p) => p.spec.name))],
      state: 'pending',
      newErrors: [],
      shown: 0,
      preexisting: 0,
      note: starting ? 'it is still starting' : 'it is still working',
      durationMs: Date.now() - started,
      lateId: randomUUID(),
    });
    return { ...pending, late: whole };
  }

  /** The report of a change: each file's baseline and new diagnostics, up to DIAGNOSTICS_TIMEOUT_MS from `started`. Never rejects. */
  private async checkAll(plan: Planned[], started: number, signal: AbortSignal): Promise<DiagnosticsReport> {
    const deadline = started + this.b.DIAGNOSTICS_TIMEOUT_MS;
    const servers = new Set<string>();
    const fresh: FileDiagnostic[] = [];
    let preexisting = 0;
    let state: DiagnosticsMeta['state'] = 'checked';
    let note: string | undefined;
    const reg = registry();
    for (const { file: f, after, spec, client } of plan) {
      servers.add(spec.name);
      const lastKey = `${this.o.workspace}\u0000${spec.name}\u0000${f.abs}`;
      try {
        const ask = (text: string) => client.diagnose(f.abs, text, { timeoutMs: deadline - Date.now(), signal });
        const known = reg.last.get(lastKey);
        const baseline = f.before === null ? [] : known && known.text === f.before ? known.diags : await ask(f.before);
        const now = await ask(after);
        reg.last.set(lastKey, { text: after, diags: now });
        const r = newErrors(baseline, now, f.before, after);
        preexisting += r.preexisting;
        fresh.push(...r.fresh.map((d) => ({ ...d, path: f.rel })));
      } catch (err) {
        const e = modules && err instanceof modules.RpcError ? err : undefined;
        if (e?.kind === 'timeout' || e?.kind === 'aborted' || (!client.failure && signal.aborted)) {
          state = 'not-ready';
          note = e?.kind === 'aborted' || signal.aborted ? 'the call was stopped' : !client.initialized ? 'it is still starting' : 'it is still working';
        } else {
          state = 'failed';
          note = `the ${spec.name} language server ${client.failure ? `stopped: ${client.failure}` : `failed (${err instanceof Error ? err.message : String(err)})`}`;
        }
        break;
      }
    }
    return this.report({
      servers: [...servers],
      state,
      newErrors: fresh,
      shown: Math.min(fresh.length, this.b.DIAGNOSTICS_MAX_SHOWN),
      preexisting,
      ...(note ? { note } : {}),
      durationMs: Date.now() - started,
    });
  }

  private report(meta: DiagnosticsMeta): DiagnosticsReport {
    const b = this.b;
    return { text: reportText(meta, { maxShown: b.DIAGNOSTICS_MAX_SHOWN, messageMaxBytes: b.DIAGNOSTICS_MESSAGE_MAX_BYTES, timeoutMs: b.DIAGNOSTICS_TIMEOUT_MS, waitMs: b.DIAGNOSTICS_WAIT_MS }), meta };
  }

  /** Every server in effect for this workspace and how it stands. */
  status(): { servers: ServerStatus[]; configPath: string; configProblem?: string } {
    const list = serversOf(this.o.dataDir, this.env);
    const reg = registry();
    const servers = list.servers.map((spec): ServerStatus => {
      const key = `${this.o.workspace}\u0000${spec.name}\u0000${JSON.stringify(spec)}`;
      const c = reg.clients.get(key);
      const where = placement(spec, this.env);
      const base = { name: spec.name, command: spec.kind === 'typescript' ? 'typescript-language-server (built in)' : [spec.command, ...spec.args].join(' '), patterns: spec.patterns, sandboxed: !!where.bwrap };
      if (where.problem) return { ...base, state: where.problem, detail: where.detail };
      const ts = spec.kind === 'typescript' ? { typescript: c?.tsSource ?? typescriptFor(this.o.workspace, !!where.bwrap, spec.typescriptLib)?.source } : {};
      if (!c) return { ...base, ...ts, state: 'idle', detail: 'starts on the first edit of a file it covers' };
      if (c.failure) return { ...base, ...ts, state: 'failed', detail: `${c.failure}; it starts again on the next edit` };
      return { ...base, ...ts, state: c.initialized ? 'running' : 'starting' };
    });
    return { servers, configPath: list.configPath, ...(list.configProblem ? { configProblem: list.configProblem } : {}) };
  }
}

/** The diagnostics service of a workspace (cheap to make: the servers behind it are shared process-wide). */
export function createDiagnostics(o: DiagnosticsOptions): DiagnosticsService & { status: LspDiagnostics['status'] } {
  return new LspDiagnostics(o);
}
