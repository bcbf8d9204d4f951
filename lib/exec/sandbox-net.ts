import crypto from 'node:crypto';
import { BUDGET } from '../contract/budget';
import type { HostPattern } from '../contract/hosts';
import { onShutdown } from '../contract/shutdown';
import { EgressProxy, type ProxyEvent } from './egress-proxy';
import { sandboxNetStatus, startHelper, type Helper, type NetTools } from './net-tools';
import { listening, namespaceOf } from './proc-net';
import { PortForwards, type ForwardedPort } from './port-forward';

export type { ForwardedPort } from './port-forward';

/**
 * The sandbox's network: one network namespace per session (and sandbox level), shared by the session's
 * sandboxed commands — so a command reaches the dev server a background task of the same session runs — and
 * by nothing else. In it: the loopback, and one port forwarded out by pasta, 127.0.0.1:<proxy port>, to
 * Clamp's egress proxy on the host's loopback (egress-proxy.ts); no route, no DNS, nothing else leaves. A
 * port a command listens on is forwarded in, to the host's 127.0.0.1 only (port-forward.ts). It starts with
 * the first command that needs it and stops when no command has run in it for SANDBOX_NET_IDLE_MS, on
 * Clamp's shutdown, and when Clamp's process ends: every helper (the holder, each pasta) is stopped by pid.
 */

/** What a run needs to start inside the session's network (the runner puts `enter` before bwrap). */
export interface NetJoin {
  /** nsenter and its arguments, up to and including `--` */
  enter: string[];
  /** the namespace is owned by the holder's user namespace, which the command enters too (not root): bwrap maps the uid back */
  joinsUserns: boolean;
  /** the proxy variables the command gets (its token in the URL's credentials) */
  env: Record<string, string>;
  /** the run's pid, once it started: the ports its processes listen on are told to onPorts */
  attach(pid: number | undefined): void;
  /** tell `cb` the run's forwarded ports each time they change */
  listen(cb: (ports: ForwardedPort[]) => void): void;
  /** what the proxy refused this run so far */
  refused(): ProxyEvent[];
  /** the run ended: its ports are forgotten and the network may idle out; returns its refusals */
  release(): ProxyEvent[];
}

export interface JoinOptions {
  /** the hosts the proxy allows, read at each connection */
  allowed: () => readonly HostPattern[];
}

interface Run {
  token: string;
  pid?: number;
  refused: ProxyEvent[];
  onPorts?: (ports: ForwardedPort[]) => void;
  /** what the port forwards call: one function per run, as they group a run's ports by it */
  notify: (ports: ForwardedPort[]) => void;
}

const PROXY_VARS = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'npm_config_proxy', 'npm_config_https_proxy', 'YARN_HTTP_PROXY', 'YARN_HTTPS_PROXY', 'PIP_PROXY'];

/** One session's network namespace, its proxy and its forwarded ports. */
export class SessionNet {
  private holder: Helper | undefined;
  private outbound: Helper | undefined;
  private proxy: EgressProxy | undefined;
  private forwards: PortForwards | undefined;
  private starting: Promise<string | undefined> | undefined;
  private readonly runs = new Map<string, Run>();
  private idleTimer: NodeJS.Timeout | undefined;
  private allowed: () => readonly HostPattern[] = () => [];
  private stopped = false;

  constructor(
    readonly key: string,
    private readonly tools: NetTools,
    private readonly onEnd: () => void,
  ) {}

  /** Join a run: starts the namespace when it is not up. A string says why it could not start (the run then has no network). */
  async join(o: JoinOptions): Promise<NetJoin | string> {
    this.allowed = o.allowed;
    clearTimeout(this.idleTimer);
    const token = crypto.randomBytes(9).toString('base64url');
    const run: Run = { token, refused: [], notify: (ports) => run.onPorts?.(ports) };
    // held while the namespace starts, so an idle stop cannot take it away under this run
    this.runs.set(token, run);
    const problem = await (this.starting ??= this.start());
    if (problem || this.stopped || !this.holder) {
      this.runs.delete(token);
      this.maybeIdle();
      return problem ?? 'the sandbox\'s network stopped while it started';
    }
    const h = this.holder.pid;
    const root = process.getuid?.() === 0;
    const url = `http://clamp:${token}@127.0.0.1:${this.proxy!.port}`;
    const env: Record<string, string> = { NO_PROXY: 'localhost,127.0.0.1,::1', no_proxy: 'localhost,127.0.0.1,::1' };
    for (const v of PROXY_VARS) env[v] = url;
    return {
      enter: [this.tools.nsenter, ...(root ? [] : [`--user=/proc/${h}/ns/user`, '--preserve-credentials']), `--net=/proc/${h}/ns/net`, '--'],
      joinsUserns: !root,
      env,
      attach: (pid) => {
        if (pid === undefined) return;
        run.pid = pid;
        this.forwards?.watch(true);
      },
      listen: (cb) => {
        run.onPorts = cb;
      },
      refused: () => [...run.refused],
      release: () => {
        this.runs.delete(token);
        this.forwards?.forget(run.pid);
        this.maybeIdle();
        return [...run.refused];
      },
    };
  }

  /** Stop everything it started (idempotent). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.idleTimer);
    this.forwards?.stop();
    this.outbound?.stop();
    this.holder?.stop();
    this.proxy?.close();
    this.onEnd();
  }

  /** Every pid it started and still runs (tests look for leftovers with it). */
  pids(): number[] {
    return [this.holder?.pid, this.outbound?.pid, ...(this.forwards?.pids() ?? [])].filter((p): p is number => p !== undefined);
  }

  private maybeIdle(): void {
    if (this.runs.size > 0 || this.stopped) return;
    this.forwards?.watch(false);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(), BUDGET.SANDBOX_NET_IDLE_MS);
    this.idleTimer.unref();
  }

  /** The holder (a namespace of its own), the proxy, and pasta forwarding the proxy's port out. Undefined when all is up. */
  private async start(): Promise<string | undefined> {
    const deadline = Date.now() + BUDGET.SANDBOX_NET_START_TIMEOUT_MS;
    const t = this.tools;
    // a user namespace too: pasta joins a namespace through the user namespace that owns it
    this.holder = startHelper(t, t.unshare, ['--user', '--map-root-user', '--net', '--', t.sleep, 'infinity']);
    if (!this.holder) return this.fail('unshare could not start');
    const h = this.holder.pid;
    const mine = namespaceOf('self', 'net');
    // never hand out the namespace before it is a new one: nsenter into the host's would be the host's network
    if (!(await until(() => {
      const ns = namespaceOf(h, 'net');
      return ns !== undefined && ns !== mine;
    }, deadline))) return this.fail('its namespace did not appear');
    this.proxy = new EgressProxy({ allowed: () => this.allowed(), onRefused: (e) => this.refusal(e) });
    const port = await this.proxy.start();
    const root = process.getuid?.() === 0;
    this.outbound = startHelper(t, t.pasta, [
      ...(root ? ['--runas', '0:0'] : []), '-q', '-f', '-4', '--no-udp', '--no-icmp', '--no-dhcp', '--no-ndp', '--no-dhcpv6', '--no-ra',
      '-t', 'none', '-T', String(port), '-u', 'none', '-U', 'none', '--userns', `/proc/${h}/ns/user`, '--netns', `/proc/${h}/ns/net`,
    ]);
    if (!this.outbound) return this.fail('pasta could not start');
    let outboundGone = false;
    void this.outbound.exited.then(() => (outboundGone = true));
    // ready when the proxy's port listens inside the namespace
    if (!(await until(() => outboundGone || listening(h, '127.0.0.1', port), deadline)) || outboundGone) {
      return this.fail(outboundGone ? 'pasta exited at once' : 'pasta did not attach in time');
    }
    this.forwards = new PortForwards({ tools: t, holder: h, proxyPort: port, ownerOf: (chain) => this.ownerRun(chain) });
    // a holder or pasta that dies takes the network with it: the next command starts a new one
    void this.holder.exited.then(() => this.stop());
    void this.outbound.exited.then(() => this.stop());
    return undefined;
  }

  private fail(why: string): string {
    this.stop();
    return `the sandbox's network could not start (${why})`;
  }

  /** The run a process belongs to: the first attached run pid among its ancestors. */
  private ownerRun(ancestors: readonly number[]): ((ports: ForwardedPort[]) => void) | undefined {
    for (const pid of ancestors) for (const r of this.runs.values()) if (r.pid === pid) return r.notify;
    return undefined;
  }

  private refusal(e: ProxyEvent): void {
    const owners = e.token && this.runs.has(e.token) ? [this.runs.get(e.token)!] : [...this.runs.values()];
    for (const r of owners) if (r.refused.length < 100) r.refused.push(e);
  }
}

/** Poll `ok` every few milliseconds until it holds (true) or the deadline passes (false). */
async function until(ok: () => boolean, deadline: number): Promise<boolean> {
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    if (ok()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, wait));
  }
}

interface Registry {
  nets: Map<string, SessionNet>;
  hooked: boolean;
}
const KEY = Symbol.for('clamp.sandboxNets');

function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry | undefined>;
  return (g[KEY] ??= { nets: new Map(), hooked: false });
}

/** What the launcher and the settings page say about the sandbox's network. Never throws. */
export function sandboxNetView(env: NodeJS.ProcessEnv = process.env): { available: boolean; problem?: string } {
  const st = sandboxNetStatus(env);
  return st.available ? { available: true } : { available: false, problem: st.problem ?? 'unknown' };
}

/** The launcher's line about the sandbox's network, under the sandbox's own line; undefined when it does not apply. */
export function sandboxNetLine(view: { level: string; available: boolean; network: boolean }, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (view.level === 'off' || !view.available || view.network) return undefined;
  const net = sandboxNetView(env);
  const allowed = splitHosts(env.CLAMP_SANDBOX_ALLOW_HOSTS);
  if (!net.available) return `Sandbox network: NOT AVAILABLE: ${net.problem}.`;
  return `Sandbox network: only through Clamp's proxy, to the hosts you allow (settings page, CLAMP_SANDBOX_ALLOW_HOSTS${allowed.length ? `: ${allowed.join(', ')}` : ''}, or a session's approval); a port a command listens on opens on 127.0.0.1.`;
}

function splitHosts(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** Stop every session's network (Clamp's shutdown; tests). */
export function stopSandboxNets(): void {
  for (const n of [...registry().nets.values()]) n.stop();
}

/** Every helper pid the session networks run now. */
export function sandboxNetPids(): number[] {
  return [...registry().nets.values()].flatMap((n) => n.pids());
}

/**
 * The network of a session (key: the session and the sandbox level), made when first asked for; a string when
 * it cannot start here at all (why, with the fix). Shared through globalThis like the task manager.
 */
export function sessionNet(key: string, env: NodeJS.ProcessEnv = process.env): SessionNet | string {
  const st = sandboxNetStatus(env);
  if (!st.available || !st.tools) return st.problem ?? 'the sandbox\'s network is not available';
  const reg = registry();
  if (!reg.hooked) {
    reg.hooked = true;
    onShutdown(() => stopSandboxNets());
    // a process that ends without its shutdown hooks still stops its helpers (they run in groups of their own)
    process.once('exit', () => stopSandboxNets());
  }
  let net = reg.nets.get(key);
  if (!net) {
    net = new SessionNet(key, st.tools, () => {
      if (reg.nets.get(key) === net) reg.nets.delete(key);
    });
    reg.nets.set(key, net);
  }
  return net;
}
