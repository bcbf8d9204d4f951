import net from 'node:net';
import { BUDGET } from '../contract/budget';
import type { ForwardedPort } from '../contract/tasks';
import { startHelper, type Helper, type NetTools } from './net-tools';
export type { ForwardedPort };
import { listeners, listening, namespaceOf, socketHolders, type Listener } from './proc-net';
import { procParent } from './proc-stat';

/**
 * Ports a sandboxed command listens on, forwarded to the host's loopback: the session's namespace is looked at
 * every SANDBOX_PORT_POLL_MS while a command runs in it, and each new listening port gets a pasta of its own
 * that binds the host's 127.0.0.1 (::1 for a server that listens on ::1 only; never another interface) and
 * splices every connection to the namespace's port. The host port is the same number when it is free there,
 * else another free one, and that is the one shown. A port that stops listening loses its forward.
 */

type Notify = (ports: ForwardedPort[]) => void;

interface Forward {
  port: number;
  hostAddress: string;
  hostPort?: number;
  pasta?: Helper;
  ready: boolean;
  notify?: Notify;
}

export interface PortForwardsOptions {
  tools: NetTools;
  /** a process in the namespace (its holder) */
  holder: number;
  /** the proxy's port (pasta's own listener inside): never forwarded */
  proxyPort: number;
  /** the run a socket's holder belongs to, by its ancestors (nearest first): its port callback */
  ownerOf: (ancestors: readonly number[]) => Notify | undefined;
}

/** Whether 127.0.0.1 (or ::1) has `port` free, tried by listening on it for a moment. */
function hostPortFree(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: address, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A port free on 127.0.0.1 (or ::1) now, chosen by the kernel. */
function freeHostPort(address: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(undefined));
    s.listen({ port: 0, host: address, exclusive: true }, () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function ancestors(pid: number): number[] {
  const out = [pid];
  for (let p = procParent(pid); p !== undefined && p > 1 && out.length < 64; p = procParent(p)) out.push(p);
  return out;
}

export class PortForwards {
  private readonly forwards = new Map<number, Forward>();
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private polling = false;
  private stopped = false;

  constructor(private readonly o: PortForwardsOptions) {}

  /** Look at the namespace's ports every SANDBOX_PORT_POLL_MS while on; stop looking when off. */
  watch(on: boolean): void {
    if (!on) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.timer || this.stopped) return;
    // the first look is one interval away: a short command pays nothing for it
    this.timer = setInterval(() => void this.poll(), BUDGET.SANDBOX_PORT_POLL_MS);
    this.timer.unref();
  }

  /** A run ended: when ports are forwarded, look again now, so its ports' forwards go with it. */
  forget(_pid: number | undefined): void {
    if (this.forwards.size) void this.poll();
  }

  stop(): void {
    this.stopped = true;
    this.watch(false);
    for (const f of this.forwards.values()) f.pasta?.stop();
    this.forwards.clear();
  }

  pids(): number[] {
    return [...this.forwards.values()].map((f) => f.pasta?.pid).filter((p): p is number => p !== undefined);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const now = listeners(this.o.holder).filter((l) => l.port !== this.o.proxyPort);
      const byPort = new Map<number, Listener[]>();
      for (const l of now) byPort.set(l.port, [...(byPort.get(l.port) ?? []), l]);
      for (const [port, f] of this.forwards) if (!byPort.has(port)) this.drop(port, f);
      const fresh = [...byPort].filter(([port]) => !this.forwards.has(port));
      if (fresh.length) {
        const netns = namespaceOf(this.o.holder, 'net');
        const holders = netns ? socketHolders(new Set(fresh.flatMap(([, ls]) => ls.map((l) => l.inode))), netns) : new Map<string, number>();
        for (const [port, ls] of fresh) {
          const pid = ls.map((l) => holders.get(l.inode)).find((p) => p !== undefined);
          const notify = pid === undefined ? undefined : this.o.ownerOf(ancestors(pid));
          // a server on ::1 alone is reached from the host's ::1; any other (127.0.0.1, 0.0.0.0, ::) from 127.0.0.1
          const hostAddress = ls.every((l) => l.address === '::1') ? '::1' : '127.0.0.1';
          const f: Forward = { port, hostAddress, ready: false, ...(notify ? { notify } : {}) };
          this.forwards.set(port, f);
          void this.open(f);
        }
      }
    } finally {
      this.polling = false;
    }
  }

  private async open(f: Forward): Promise<void> {
    const hostPort = (await hostPortFree(f.hostAddress, f.port)) ? f.port : await freeHostPort(f.hostAddress);
    if (hostPort === undefined || this.stopped || this.forwards.get(f.port) !== f) return;
    f.hostPort = hostPort;
    const t = this.o.tools;
    const h = this.o.holder;
    const bind = f.hostAddress.includes(':') ? `${f.hostAddress}/${hostPort}:${f.port}` : `127.0.0.1/${hostPort}:${f.port}`;
    f.pasta = startHelper(t, t.pasta, [
      ...(process.getuid?.() === 0 ? ['--runas', '0:0'] : []), '-q', '-f', '--no-udp', '--no-icmp', '--no-dhcp', '--no-ndp', '--no-dhcpv6', '--no-ra',
      '-I', `clampfwd${++this.seq % 10000}`, '-t', bind, '-T', 'none', '-u', 'none', '-U', 'none', '--userns', `/proc/${h}/ns/user`, '--netns', `/proc/${h}/ns/net`,
    ]);
    if (!f.pasta) return;
    const deadline = Date.now() + BUDGET.SANDBOX_NET_START_TIMEOUT_MS;
    let gone = false;
    void f.pasta.exited.then(() => {
      gone = true;
      if (this.forwards.get(f.port) === f && f.ready) this.drop(f.port, f);
    });
    for (let wait = 2; !gone && !this.stopped && Date.now() < deadline; wait = Math.min(wait * 2, 50)) {
      if (listening('self', f.hostAddress, hostPort)) {
        f.ready = true;
        this.tell(f.notify);
        return;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private drop(port: number, f: Forward): void {
    f.pasta?.stop();
    this.forwards.delete(port);
    // told once the forward is really gone (its pasta exited and closed the host's port)
    if (f.ready) void (f.pasta?.exited ?? Promise.resolve()).then(() => this.tell(f.notify));
  }

  /** Tell a run its ready forwards. */
  private tell(notify: Notify | undefined): void {
    if (!notify) return;
    const ports = [...this.forwards.values()]
      .filter((f) => f.ready && f.notify === notify && f.hostPort !== undefined)
      .map((f) => ({ port: f.port, hostAddress: f.hostAddress, hostPort: f.hostPort!, url: `http://${f.hostAddress.includes(':') ? `[${f.hostAddress}]` : f.hostAddress}:${f.hostPort}/` }))
      .sort((a, b) => a.port - b.port);
    notify(ports);
  }
}
