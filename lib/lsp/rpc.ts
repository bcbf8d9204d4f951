/**
 * A language server's JSON-RPC connection on vscode-jsonrpc (its `Content-Length` framing and message
 * handling), with what Clamp adds: requests with a timeout and an abort signal, one closing that rejects
 * whatever is pending, a bound on how much a server may write before a message ends, and answers to the
 * requests a server sends its client (configuration, capability registration, progress tokens).
 */
import type { Readable, Writable } from 'node:stream';
import {
  CancellationTokenSource,
  ErrorCodes,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
  type DataCallback,
  type Disposable,
  type MessageConnection,
  type NotificationType,
  type NotificationType0,
  type RequestType,
  type RequestType0,
} from 'vscode-jsonrpc/node';

/** The most bytes a server may write without a whole message arriving; past it the stream is not an LSP server's. */
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
/** A method by name, or one of vscode-languageserver-protocol's typed messages. */
type Method = string | { method: string };
export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

const methodOf = (m: Method) => (typeof m === 'string' ? m : m.method);

/** vscode-jsonrpc's stream reader, counting the bytes read since the last whole message. */
class BoundedReader extends StreamMessageReader {
  private unread = 0;

  constructor(input: Readable, tooLarge: () => void) {
    super(input);
    // a partly written message waits as long as the server lives (no timer keeps Clamp running)
    this.partialMessageTimeout = 0;
    input.on('data', (d: Buffer) => {
      this.unread += d.length;
      if (this.unread > MESSAGE_MAX_BYTES) tooLarge();
    });
  }

  override listen(callback: DataCallback): Disposable {
    return super.listen((msg) => {
      this.unread = 0;
      callback(msg);
    });
  }
}

/** One connection to a server; `close()` (or the stream ending) rejects whatever is still pending. */
export class RpcConnection {
  private readonly conn: MessageConnection;
  private readonly pending = new Set<(why: string) => void>();
  private readonly notifications = new Map<string, Handler>();
  private readonly requests = new Map<string, Handler>();
  private closedWith: string | undefined;

  constructor(input: Readable, output: Writable) {
    input.on('end', () => this.close('the server closed its output'));
    input.on('error', (e) => this.close(`the server's output failed (${e.message})`));
    const reader = new BoundedReader(input, () => this.close('the server wrote something that is not an LSP message'));
    // one unreadable message is skipped (the framing still holds); a broken header ends the connection
    reader.onError((e) => (e instanceof SyntaxError ? undefined : this.close('the server wrote something that is not an LSP message')));
    const writer = new StreamMessageWriter(output);
    writer.onError(([e]) => this.close(`writing to the server failed (${e.message})`));
    this.conn = createMessageConnection(reader, writer);
    this.conn.onClose(() => this.close('the server closed its output'));
    this.conn.onNotification((method, params) => this.onServerNotification(method, params));
    this.conn.onRequest((method, params) => this.onServerRequest(method, params));
    this.conn.listen();
  }

  /** Handle a notification the server sends (the latest handler per method wins). */
  onNotification<P>(type: NotificationType<P>, h: (params: P) => void): void;
  onNotification(method: string, h: Handler): void;
  onNotification(type: Method, h: Handler): void {
    this.notifications.set(methodOf(type), h);
  }

  /** Answer a request the server sends; unknown methods get MethodNotFound. */
  onRequest<P, R>(type: RequestType<P, R, unknown>, h: (params: P) => R): void;
  onRequest<R>(type: RequestType0<R, unknown>, h: () => R): void;
  onRequest(method: string, h: Handler): void;
  onRequest(type: Method, h: Handler): void {
    this.requests.set(methodOf(type), h);
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Send a request; rejects with RpcError on an error answer, a timeout, an abort or a closed connection. */
  request<P, R>(type: RequestType<P, R, unknown>, params: P, o: RequestOptions): Promise<R>;
  request<R>(type: RequestType0<R, unknown>, params: undefined, o: RequestOptions): Promise<R>;
  request<R>(method: string, params: unknown, o: RequestOptions): Promise<R>;
  request(type: Method, params: unknown, o: RequestOptions): Promise<unknown> {
    if (this.closedWith) return Promise.reject(new RpcError(this.closedWith, 'closed'));
    const method = methodOf(type);
    const cancel = new CancellationTokenSource();
    return new Promise((resolve, reject) => {
      const done = () => {
        this.pending.delete(onClosed);
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (e: RpcError) => {
        done();
        reject(e);
      };
      // a stopped or late request is cancelled on the server ($/cancelRequest) and settled here at once
      const onAbort = () => {
        cancel.cancel();
        fail(new RpcError(`${method} was stopped`, 'aborted'));
      };
      const onClosed = (why: string) => fail(new RpcError(`${method}: ${why}`, 'closed'));
      const timer = setTimeout(() => {
        cancel.cancel();
        fail(new RpcError(`${method} got no answer within ${o.timeoutMs} ms`, 'timeout'));
      }, Math.max(0, o.timeoutMs));
      if (o.signal?.aborted) return onAbort();
      o.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.add(onClosed);
      this.send(method, params, cancel).then(
        (v) => {
          done();
          resolve(v ?? null);
        },
        (e: unknown) => {
          // an error answer is the server's; a failed write or a closed connection closes this one (settling what is pending)
          if (e instanceof ResponseError && e.code !== ErrorCodes.MessageWriteError) return fail(new RpcError(`${method}: ${e.message || 'error'}`, 'remote', e.code));
          this.close(e instanceof ResponseError ? `writing to the server failed (${e.message})` : 'the server closed its output');
        },
      );
    });
  }

  /** Send a notification (no answer). */
  notify<P>(type: NotificationType<P>, params: P): void;
  notify(type: NotificationType0): void;
  notify(method: string, params?: unknown): void;
  notify(type: Method, params?: unknown): void {
    if (this.closedWith) return;
    try {
      const sent = params === undefined ? this.conn.sendNotification(methodOf(type)) : this.conn.sendNotification(methodOf(type), params);
      sent.catch(() => undefined); // a failed write closes the connection through the writer's error
    } catch (err) {
      this.close(`writing to the server failed (${(err as Error).message})`);
    }
  }

  /** Reject everything pending; later requests fail at once. */
  close(why: string): void {
    if (this.closedWith) return;
    this.closedWith = why;
    for (const onClosed of [...this.pending]) onClosed(why);
    this.pending.clear();
    this.conn.dispose();
  }

  private send(method: string, params: unknown, cancel: CancellationTokenSource): Promise<unknown> {
    try {
      return params === undefined ? this.conn.sendRequest(method, cancel.token) : this.conn.sendRequest(method, params, cancel.token);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private onServerNotification(method: string, params: unknown): void {
    try {
      this.notifications.get(method)?.(params);
    } catch {
      // a handler's failure must not break the connection
    }
  }

  private async onServerRequest(method: string, params: unknown): Promise<unknown> {
    const h = this.requests.get(method);
    if (!h) return new ResponseError(ErrorCodes.MethodNotFound, `Clamp does not handle ${method}`);
    try {
      return await h(params);
    } catch (e) {
      return new ResponseError(ErrorCodes.InternalError, e instanceof Error ? e.message : String(e));
    }
  }
}
