import dns from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { allowedBy, normalHost, type HostPattern } from '../contract/hosts';
import { BUDGET } from '../contract/budget';
import { localAddressReason } from './local-addresses';

/**
 * The sandbox's way out: an HTTP proxy (CONNECT for TLS, absolute-form requests for plain HTTP) on the
 * host's loopback, the one port a sandboxed command's network reaches. It connects only to hosts on the
 * allowed list (read at each connection, so a change applies at once), never to an address of this
 * machine or a link-local one (checked on what the name resolved to, and that address is the one
 * connected to), and records every refusal with the host, so the command's result can name it.
 * Commands identify themselves with the proxy URL's credentials (a token per run), so a refusal is
 * told to the run that made it.
 */

export type RefusalReason = 'not-allowed' | 'local' | 'unreachable' | 'bad-request';

export interface ProxyEvent {
  /** the host as the command asked for it (normalised), and the port */
  host: string;
  port: number;
  reason: RefusalReason;
  /** the words after the host: "not on the allowed hosts", "it resolves to this machine's loopback (127.0.0.1)" … */
  detail: string;
  /** the run that asked (its proxy token), when it sent one */
  token?: string;
  at: number;
}

export interface EgressProxyOptions {
  /** the allowed host patterns, read at each connection */
  allowed: () => readonly HostPattern[];
  onRefused?: (e: ProxyEvent) => void;
  /** why an address may not be connected to (default: localAddressReason; tests let one loopback port through) */
  unreachable?: (address: string, port: number) => string | undefined;
}

const HOP_BY_HOP = ['connection', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** The run token a client sent in Proxy-Authorization (Basic, user `clamp`), or undefined. */
function tokenOf(req: http.IncomingMessage): string | undefined {
  const auth = req.headers['proxy-authorization'];
  const m = typeof auth === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(auth.trim()) : null;
  if (!m) return undefined;
  const [user, pass] = Buffer.from(m[1]!, 'base64').toString('utf8').split(':');
  return user === 'clamp' && pass ? pass : undefined;
}

/** Where a request goes: an address the checks passed, or why not. */
type Route = { address: string; host: string; port: number } | { refused: Omit<ProxyEvent, 'token' | 'at'> };

/** One HTTP proxy on 127.0.0.1 (an ephemeral port). */
export class EgressProxy {
  private server: http.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly o: EgressProxyOptions) {}

  /** Listen on 127.0.0.1; resolves with the port. */
  async start(): Promise<number> {
    const server = http.createServer({ requestTimeout: 0, headersTimeout: BUDGET.SANDBOX_PROXY_CONNECT_TIMEOUT_MS }, (req, res) => void this.forward(req, res));
    server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void this.tunnel(req, socket, head));
    server.on('connection', (s: net.Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Stop listening and cut every connection. */
  close(): void {
    this.server?.close();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  /** Check a host and port: allowed, resolvable, and resolving to no address of this machine. */
  private async route(rawHost: string, port: number): Promise<Route> {
    const host = normalHost(rawHost);
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
      return { refused: { host: rawHost.slice(0, 255), port, reason: 'bad-request', detail: 'not a host and port the proxy understands' } };
    }
    // an address is judged before the list (the note must not suggest allowing this machine); a name is never
    // resolved before it is allowed (a lookup would carry it out of the sandbox)
    const literal = net.isIP(host) ? (this.o.unreachable ?? localAddressReason)(host, port) : undefined;
    if (literal) return { refused: { host, port, reason: 'local', detail: `it leads to ${literal} (${host}), which a sandboxed command never reaches` } };
    if (!allowedBy(this.o.allowed(), host, port)) return { refused: { host, port, reason: 'not-allowed', detail: 'not on the allowed hosts' } };
    let addresses: string[];
    if (net.isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        return { refused: { host, port, reason: 'unreachable', detail: `its name does not resolve on this machine (${code})` } };
      }
    }
    // every address is checked: a name that resolves to a public address and to this machine is refused
    for (const a of addresses) {
      const why = (this.o.unreachable ?? localAddressReason)(a, port);
      if (why) return { refused: { host, port, reason: 'local', detail: `it leads to ${why} (${a}), which a sandboxed command never reaches` } };
    }
    if (!addresses.length) return { refused: { host, port, reason: 'unreachable', detail: 'its name has no address' } };
    return { address: addresses[0]!, host, port };
  }

  private refuse(e: Omit<ProxyEvent, 'token' | 'at'>, req: http.IncomingMessage): { status: number; text: string } {
    this.o.onRefused?.({ ...e, ...(tokenOf(req) ? { token: tokenOf(req)! } : {}), at: Date.now() });
    const status = e.reason === 'not-allowed' || e.reason === 'local' ? 403 : e.reason === 'bad-request' ? 400 : 502;
    return { status, text: `Clamp's sandbox proxy refused ${e.host}: ${e.detail}.\n` };
  }

  /** CONNECT host:port: a tunnel (TLS goes through it untouched). */
  private async tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const target = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    const r = target ? await this.route(target[1]!, Number(target[2])) : { refused: { host: String(req.url).slice(0, 255), port: 0, reason: 'bad-request' as const, detail: 'CONNECT needs host:port' } };
    if ('refused' in r) {
      const { status, text } = this.refuse(r.refused, req);
      client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
      return;
    }
    const upstream = net.connect({ host: r.address, port: r.port });
    upstream.setTimeout(BUDGET.SANDBOX_PROXY_CONNECT_TIMEOUT_MS, () => upstream.destroy(new Error('timed out')));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      if (!connected && !client.destroyed) {
        const { status, text } = this.refuse({ host: r.host, port: r.port, reason: 'unreachable', detail: `the connection failed (${(err as NodeJS.ErrnoException).code ?? err.message})` }, req);
        client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
      } else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  /** A plain-HTTP request in absolute form (`GET http://host/path`), sent on with the Host it names. */
  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = undefined;
    }
    const answer = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
      res.end(text);
    };
    if (!url || url.protocol !== 'http:') {
      const { status, text } = this.refuse({ host: url?.hostname || String(req.url).slice(0, 255), port: 0, reason: 'bad-request', detail: 'only http:// URLs in absolute form, or CONNECT for https' }, req);
      return answer(status, text);
    }
    const r = await this.route(url.hostname, Number(url.port || 80));
    if ('refused' in r) {
      const { status, text } = this.refuse(r.refused, req);
      return answer(status, text);
    }
    const headers: http.OutgoingHttpHeaders = {};
    const dropped = new Set([...HOP_BY_HOP, ...String(req.headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim())]);
    for (const [k, v] of Object.entries(req.headers)) if (!dropped.has(k) && k !== 'host' && v !== undefined) headers[k] = v;
    headers.host = url.host;
    const up = http.request({ host: r.address, port: r.port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false });
    up.setTimeout(BUDGET.SANDBOX_PROXY_CONNECT_TIMEOUT_MS, () => up.destroy(new Error('timed out')));
    up.on('response', (ur) => {
      up.setTimeout(0);
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(ur.headers)) if (!HOP_BY_HOP.includes(k) && v !== undefined) out[k] = v;
      res.writeHead(ur.statusCode ?? 502, out);
      ur.pipe(res);
    });
    up.on('error', (err) => {
      if (res.headersSent) return void res.destroy();
      const { status, text } = this.refuse({ host: r.host, port: r.port, reason: 'unreachable', detail: `the connection failed (${(err as NodeJS.ErrnoException).code ?? err.message})` }, req);
      answer(status, text);
    });
    req.pipe(up);
  }
}
