/**
 * JSON-RPC 2.0 over a pair of byte streams with LSP's `Content-Length` framing: requests with a
 * timeout and an abort signal, notifications both ways, and answers to the requests a server sends
 * its client (configuration, capability registration, progress tokens).
 */
import type { Readable, Writable } from 'node:stream';

/** The most bytes one message may declare; a larger header means the stream is not an LSP server's. */
const MESSAGE_MAX_BYTES = 64 * 1024 * 1024;

/** An error the server answered with, or the connection's own (closed, timed out, aborted). */
export class RpcError extends Error {
  constructor(
    message: string,
    public readonly kind: 'remote' | 'closed' | 'timeout' | 'aborted',
    public readonly code?: number,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

type Handler = (params: unknown) => unknown;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: RpcError) => void;
  method: string;
}

/** One connection to a server; `close()` (or the stream ending) rejects whatever is still pending. */
export class RpcConnection {
  private buf: Buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notifications = new Map<string, Handler>();
  private readonly requests = new Map<string, Handler>();
  private closedWith: string | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {
    input.on('data', (d: Buffer) => this.onData(d));
    input.on('end', () => this.close('the server closed its output'));
    input.on('error', (e) => this.close(`the server's output failed (${e.message})`));
    output.on('error', (e) => this.close(`writing to the server failed (${e.message})`));
  }

  /** Handle a notification the server sends (the latest handler per method wins). */
  onNotification(method: string, h: Handler): void {
    this.notifications.set(method, h);
  }

  /** Answer a request the server sends; unknown methods get MethodNotFound. */
  onRequest(method: string, h: Handler): void {
    this.requests.set(method, h);
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Send a request; rejects with RpcError on an error answer, a timeout, an abort or a closed connection. */
  request<T>(method: string, params: unknown, o: { timeoutMs: number; signal?: AbortSignal }): Promise<T> {
    if (this.closedWith) return Promise.reject(new RpcError(this.closedWith, 'closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        this.pending.delete(id);
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        this.write({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } });
        reject(new RpcError(`${method} was stopped`, 'aborted'));
      };
      this.pending.set(id, {
        method,
        resolve: (v) => {
          done();
          resolve(v as T);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      const timer = setTimeout(() => {
        done();
        this.write({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } });
        reject(new RpcError(`${method} got no answer within ${o.timeoutMs} ms`, 'timeout'));
      }, Math.max(0, o.timeoutMs));
      if (o.signal?.aborted) return onAbort();
      o.signal?.addEventListener('abort', onAbort, { once: true });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Send a notification (no answer). */
  notify(method: string, params?: unknown): void {
    this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** Reject everything pending; later requests fail at once. */
  close(why: string): void {
    if (this.closedWith) return;
    this.closedWith = why;
    for (const p of [...this.pending.values()]) p.reject(new RpcError(`${p.method}: ${why}`, 'closed'));
    this.pending.clear();
  }

  private write(msg: object): void {
    if (this.closedWith) return;
    const body = Buffer.from(JSON.stringify(msg), 'utf8');
    try {
      this.output.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
    } catch (err) {
      this.close(`writing to the server failed (${(err as Error).message})`);
    }
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const header = this.buf.subarray(0, end).toString('ascii');
      const m = /(?:^|\r\n)content-length:\s*(\d+)/i.exec(header);
      const n = m ? Number(m[1]) : NaN;
      if (!Number.isFinite(n) || n > MESSAGE_MAX_BYTES) {
        this.close('the server wrote something that is not an LSP message');
        this.buf = Buffer.alloc(0);
        return;
      }
      if (this.buf.length < end + 4 + n) return;
      const body = this.buf.subarray(end + 4, end + 4 + n).toString('utf8');
      this.buf = this.buf.subarray(end + 4 + n);
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(body) as Record<string, unknown>;
      } catch {
        continue; // one unreadable message is skipped; the framing still holds
      }
      this.dispatch(msg);
    }
  }

  private dispatch(msg: Record<string, unknown>): void {
    const method = typeof msg.method === 'string' ? msg.method : undefined;
    if (method === undefined) {
      const p = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
      if (!p) return;
      const err = msg.error as { message?: string; code?: number } | undefined;
      if (err) p.reject(new RpcError(`${p.method}: ${err.message ?? 'error'}`, 'remote', err.code));
      else p.resolve(msg.result ?? null);
      return;
    }
    if (msg.id === undefined || msg.id === null) {
      try {
        this.notifications.get(method)?.(msg.params);
      } catch {
        // a handler's failure must not break the connection
      }
      return;
    }
    const h = this.requests.get(method);
    if (!h) {
      this.write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Clamp does not handle ${method}` } });
      return;
    }
    Promise.resolve()
      .then(() => h(msg.params))
      .then(
        (result) => this.write({ jsonrpc: '2.0', id: msg.id, result: result ?? null }),
        (e: unknown) => this.write({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: e instanceof Error ? e.message : String(e) } }),
      );
  }
}
