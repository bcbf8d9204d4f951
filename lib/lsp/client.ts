/**
 * One running language server for one workspace: started (under bubblewrap when it can be), initialized,
 * told each file's text, and asked for that text's diagnostics — tsserver's synchronous diagnostics for
 * the built-in TypeScript server, pull diagnostics (`textDocument/diagnostic`) where a server offers
 * them, else the diagnostics it pushes, once they settle. A server that exits is marked dead; its owner
 * starts a new one on the next use.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  type DocumentDiagnosticReport,
  type FullDocumentDiagnosticReport,
  type PublishDiagnosticsParams,
  type ServerCapabilities,
} from 'vscode-languageserver-protocol';
import { signalGroup, waitGroupGone } from '../exec/group';
import { confinedCommand, sandboxArgs, withoutSecrets, type SandboxSpec } from '../exec/sandbox';
import { RpcConnection, RpcError } from './rpc';
import { typescriptFor, type TsSource } from './typescript';

export { typescriptFor, type TsSource };
import { answerServer, initializeParams } from './handshake';
import { fromLsp, fromTs, type RawDiagnostic, type TsDiagnostic } from './raw-diagnostic';
import { languageIdOf, type ServerSpec } from './servers';
import { runsFrom } from './runs-from';

export interface ClientOptions {
  spec: ServerSpec;
  workspace: string;
  dataDir: string;
  /** the bwrap program when the server runs sandboxed, else undefined (unconfined) */
  bwrap?: string;
  env: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  settleMs: number;
}

/** Where the TypeScript the built-in server runs comes from. */

/** Documents kept open per server; the least recently checked is closed past it. */
const OPEN_DOCUMENTS_MAX = 64;
const STDERR_KEPT_BYTES = 4000;
/** How long a server that closed its output or exited is given to finish exiting and writing its last words. */
const EXIT_WORDS_WAIT_MS = 1000;

/** The sandbox a server runs in: read-only, no network, secrets hidden, what it runs from bound in. */
function serverSandboxSpec(spec: ServerSpec, o: { workspace: string; dataDir: string; env: NodeJS.ProcessEnv }): SandboxSpec {
  return { level: 'read-only', workspace: o.workspace, dataDir: o.dataDir, network: false, runsFrom: runsFrom(spec, o.env) };
}

/** The bwrap arguments (up to `--`) a sandboxed server runs under (the client adds the system-call filter and the limits). */
export function serverSandboxArgs(spec: ServerSpec, o: { workspace: string; dataDir: string; env: NodeJS.ProcessEnv }): string[] {
  return sandboxArgs(serverSandboxSpec(spec, o), o.workspace, withoutSecrets(o.env));
}

/** What a server's stderr says about why it stopped: its last line naming an error (Node's "Error: Cannot find module …"), else its last lines. */
export function lastWords(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const named = lines.findLast((l) => /^(\w*Error\b|error\b|fatal\b)/i.test(l));
  return (named ?? lines.slice(-3).join(' ')).slice(0, 500);
}

export class LspClient {
  readonly spec: ServerSpec;
  readonly sandboxed: boolean;
  tsSource?: TsSource;
  /** initialize has been answered */
  initialized = false;
  /** why it stopped or could not start; set once it is dead */
  failure?: string;
  private child?: ChildProcess;
  private rpc?: RpcConnection;
  private readonly ready: Promise<void>;
  private capabilities: ServerCapabilities = {};
  private readonly docs = new Map<string, { version: number; text: string }>();
  private readonly pushed = new Map<string, { seq: number; version?: number; items: RawDiagnostic[] }>();
  private readonly pushWaiters = new Set<() => void>();
  private pushSeq = 0;
  private stderr = '';
  private queue: Promise<unknown> = Promise.resolve();
  private stopping = false;

  constructor(private readonly o: ClientOptions) {
    this.spec = o.spec;
    this.sandboxed = !!o.bwrap;
    this.ready = this.start();
    this.ready.catch(() => undefined); // observed by whoever waits; a failed start is kept in `failure`
  }

  /** Still usable: not failed, not stopped. */
  get alive(): boolean {
    return this.failure === undefined && !this.stopping;
  }

  /** Started and initialized (resolves), or failed (rejects); never waits past the deadline given. */
  whenReady(timeoutMs: number): Promise<'ready' | 'timeout'> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
      this.ready.then(
        () => {
          clearTimeout(t);
          resolve('ready');
        },
        (e: unknown) => {
          clearTimeout(t);
          reject(e);
        },
      );
    });
  }

  private async start(): Promise<void> {
    const env = withoutSecrets(this.o.env);
    const { command, args, initializationOptions } = this.launchCommand(env);
    const child = this.spawnServer(command, args, env);
    const exited = this.exitOf(child);
    const rpc = new RpcConnection(child.stdout!, child.stdin!);
    this.rpc = rpc;
    answerServer(rpc, this.o.workspace, this.spec.settings ?? {}, (p) => this.onPublish(p));
    const init = rpc.request(InitializeRequest.type, initializeParams(this.o.workspace, this.spec, this.sandboxed, initializationOptions), { timeoutMs: this.o.startTimeoutMs });
    const r = await Promise.race([init, exited]).catch(async (e: unknown) => {
      // its output closes as it exits: how it exited and its last words say why, not the closed pipe
      if (e instanceof RpcError && e.kind === 'closed') await Promise.race([exited.catch(() => undefined), new Promise((ok) => setTimeout(ok, EXIT_WORDS_WAIT_MS))]);
      throw this.fail(e instanceof RpcError && e.kind === 'timeout' ? `it did not finish starting within ${Math.round(this.o.startTimeoutMs / 1000)} s` : e instanceof Error ? e.message : String(e));
    });
    this.capabilities = r?.capabilities ?? {};
    this.initialized = true;
    rpc.notify(InitializedNotification.type, {});
    if (this.spec.settings) rpc.notify(DidChangeConfigurationNotification.type, { settings: this.spec.settings });
  }

  /** The program, its arguments and the initialization options: the built-in server's TypeScript chosen, confined when sandboxed. */
  private launchCommand(env: NodeJS.ProcessEnv): { command: string; args: string[]; initializationOptions?: Record<string, unknown> } {
    const { spec, workspace } = this.o;
    let command = spec.command;
    let args = spec.args;
    let initializationOptions = spec.initializationOptions;
    if (spec.kind === 'typescript') {
      const ts = typescriptFor(workspace, this.sandboxed, spec.typescriptLib);
      if (!ts) throw this.fail('Clamp cannot find its own TypeScript (the typescript package); reinstall Clamp with npm ci');
      this.tsSource = ts.source;
      // one tsserver: the second one typescript-language-server starts by default (syntax only, for an editor's quick
      // answers while the project loads) answers nothing Clamp asks, and cost a third of the server's CPU at every start
      initializationOptions = { ...initializationOptions, tsserver: { path: ts.path, useSyntaxServer: 'never' }, disableAutomaticTypingAcquisition: true, hostInfo: 'clamp' };
    }
    if (this.o.bwrap) {
      // the same confinement as a command's: the sandbox's mounts, its system-call filter and its resource limits
      ({ command, args } = confinedCommand(serverSandboxSpec(spec, this.o), this.o.bwrap, env, command, args));
    }
    return { command, args, initializationOptions };
  }

  /** Start the server in its own process group, never holding Clamp open, keeping the tail of its stderr. */
  private spawnServer(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(command, args, { cwd: this.o.workspace, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child = child;
    // a language server never keeps Clamp running (a headless run ends when its turn does)
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    child.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-STDERR_KEPT_BYTES);
    });
    return child;
  }

  /** Rejects (and marks the client failed) when the server cannot start or exits, with its last words once they are in. */
  private exitOf(child: ChildProcess): Promise<never> {
    const exited = new Promise<never>((_, reject) => {
      child.on('error', (e) => reject(this.fail(`${this.spec.command} could not start (${e.message})`)));
      child.on('exit', (code, signal) => {
        const say = () => {
          const last = lastWords(this.stderr);
          reject(this.fail(`the server exited (${signal ?? `code ${code}`})${last ? `: ${last}` : ''}`));
        };
        // its last words may still be in the pipe when it exits
        const err = child.stderr;
        if (!err || err.readableEnded) return say();
        const t = setTimeout(say, EXIT_WORDS_WAIT_MS);
        err.once('end', () => {
          clearTimeout(t);
          say();
        });
      });
    });
    exited.catch(() => undefined);
    return exited;
  }

  /** Pushed diagnostics replace the file's last ones and wake whoever waits for them. */
  private onPublish(params: PublishDiagnosticsParams): void {
    if (!params?.uri) return;
    this.pushed.set(params.uri, { seq: ++this.pushSeq, version: params.version, items: (params.diagnostics ?? []).map(fromLsp) });
    for (const w of [...this.pushWaiters]) w();
  }

  private fail(why: string): Error {
    this.failure ??= why;
    this.rpc?.close(why);
    for (const w of [...this.pushWaiters]) w();
    return new Error(this.failure);
  }

  /**
   * The diagnostics of a file holding `text` (the server is told the text first; the file on disk is not
   * read). One check at a time per server. Rejects when the server fails, the time is up or it is stopped.
   */
  diagnose(abs: string, text: string, o: { timeoutMs: number; signal: AbortSignal }): Promise<RawDiagnostic[]> {
    const deadline = Date.now() + o.timeoutMs;
    const run = this.queue.then(() => this.diagnoseNow(abs, text, deadline, o.signal));
    this.queue = run.catch(() => undefined);
    // the wait in the queue counts against the deadline too
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RpcError(this.initialized ? 'the server is still working' : 'the server is still starting', 'timeout')), Math.max(0, o.timeoutMs));
    });
    return Promise.race([run, late]).finally(() => clearTimeout(timer));
  }

  /** Open (or update) the document with this text once the server is up, without asking anything: tsserver loads its project. */
  prepare(abs: string, text: string): void {
    const run = this.queue.then(async () => {
      await this.ready;
      if (this.rpc && !this.rpc.closed) this.sync(this.rpc, pathToFileURL(abs).href, abs, text);
    });
    this.queue = run.catch(() => undefined);
  }

  private async diagnoseNow(abs: string, text: string, deadline: number, signal: AbortSignal): Promise<RawDiagnostic[]> {
    const o = { signal };
    const left = () => Math.max(0, deadline - Date.now());
    if (left() === 0) throw new RpcError('no time left', 'timeout');
    if ((await this.whenReady(left())) === 'timeout') throw new RpcError('the server is still starting', 'timeout');
    const rpc = this.rpc!;
    const uri = pathToFileURL(abs).href;
    const since = this.pushSeq;
    const version = this.sync(rpc, uri, abs, text);
    if (this.spec.kind === 'typescript') {
      const ask = async (command: string): Promise<{ body?: TsDiagnostic[] } | null> =>
        rpc.request(ExecuteCommandRequest.type, { command: 'typescript.tsserverRequest', arguments: [command, { file: uri }] }, { timeoutMs: left(), signal: o.signal });
      const syntactic = await ask('syntacticDiagnosticsSync');
      const semantic = await ask('semanticDiagnosticsSync');
      return [...(syntactic?.body ?? []), ...(semantic?.body ?? [])].map(fromTs);
    }
    if (this.capabilities.diagnosticProvider) {
      const r: Partial<DocumentDiagnosticReport> | null = await rpc.request(DocumentDiagnosticRequest.type, { textDocument: { uri } }, { timeoutMs: left(), signal: o.signal });
      if (r?.kind !== 'unchanged') return ((r as Partial<FullDocumentDiagnosticReport> | null)?.items ?? []).map(fromLsp);
    }
    return this.settledPush(uri, version, since, left, o.signal);
  }

  /** Open the document with this text, or change it to this text; returns its version. */
  private sync(rpc: RpcConnection, uri: string, abs: string, text: string): number {
    const doc = this.docs.get(uri);
    if (doc) {
      this.docs.delete(uri);
      this.docs.set(uri, doc); // most recently used last
      if (doc.text !== text) {
        doc.version += 1;
        doc.text = text;
        rpc.notify(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: doc.version }, contentChanges: [{ text }] });
        this.pushed.delete(uri);
      }
      return doc.version;
    }
    rpc.notify(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: languageIdOf(this.spec, path.relative(this.o.workspace, abs)), version: 1, text } });
    this.pushed.delete(uri);
    this.docs.set(uri, { version: 1, text });
    while (this.docs.size > OPEN_DOCUMENTS_MAX) {
      const oldest = this.docs.keys().next().value as string;
      this.docs.delete(oldest);
      this.pushed.delete(oldest);
      rpc.notify(DidCloseTextDocumentNotification.type, { textDocument: { uri: oldest } });
    }
    return 1;
  }

  /** Pushed diagnostics for this version of the document, once no new push came for settleMs. */
  private settledPush(uri: string, version: number, since: number, left: () => number, signal: AbortSignal): Promise<RawDiagnostic[]> {
    return new Promise((resolve, reject) => {
      let settle: NodeJS.Timeout | undefined;
      const fresh = () => {
        const p = this.pushed.get(uri);
        return p && p.seq > since && (p.version === undefined || p.version === version) ? p : undefined;
      };
      const finish = (err?: Error) => {
        clearTimeout(timer);
        if (settle) clearTimeout(settle);
        this.pushWaiters.delete(onPush);
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(fresh()?.items ?? []);
      };
      const onPush = () => {
        if (!this.alive) return finish(new Error(this.failure ?? 'the server stopped'));
        if (!fresh()) return;
        if (settle) clearTimeout(settle);
        settle = setTimeout(() => finish(), Math.min(this.o.settleMs, left()));
      };
      const onAbort = () => finish(new RpcError('stopped', 'aborted'));
      const timer = setTimeout(() => (fresh() ? finish() : finish(new RpcError('no diagnostics arrived in time', 'timeout'))), left());
      this.pushWaiters.add(onPush);
      signal.addEventListener('abort', onAbort, { once: true });
      onPush();
    });
  }

  /** shutdown, exit, then a kill after the grace; never throws. */
  async stop(graceMs: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const rpc = this.rpc;
    if (rpc && !rpc.closed && this.failure === undefined) {
      await rpc.request(ShutdownRequest.type, undefined, { timeoutMs: graceMs }).catch(() => undefined);
      rpc.notify(ExitNotification.type);
    }
    const pgid = child.pid;
    if (pgid === undefined) return;
    if (!(await waitGroupGone(pgid, graceMs))) {
      signalGroup(pgid, 'SIGKILL');
      await waitGroupGone(pgid, graceMs);
    }
    this.rpc?.close('the server was stopped');
  }
}
