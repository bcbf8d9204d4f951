/**
 * The HTTP edge shared by web_fetch and web_search: Node's fetch (undici) for web_search's configured
 * provider, pinned-get.ts for web_fetch (connected to the addresses it checked), redirects left to the caller, two deadlines (response headers, whole call), the user's abort, and a body reader
 * that keeps a capped head and drains and counts the rest. Failures are ToolErrors with a next step.
 */
import type { Budget } from '../../contract/budget';
import { ToolError } from '../../contract/types';
import { formatBytes, formatDuration } from '../../contract/text';

type StopReason = 'user' | 'connect' | 'total';

/**
 * The deadlines of one tool call: the whole call must end within WEB_TOTAL_TIMEOUT_MS, and each
 * request's headers must arrive within WEB_CONNECT_TIMEOUT_MS. One AbortSignal carries all three
 * stops (user, connect, total); why() says which fired. dispose() clears the timers.
 */
export class WebDeadline {
  private readonly ctl = new AbortController();
  private reason: StopReason | undefined;
  private readonly total: NodeJS.Timeout;
  private connect: NodeJS.Timeout | undefined;
  private readonly onUserAbort = () => this.stop('user');

  constructor(
    private readonly user: AbortSignal,
    readonly budget: Pick<Budget, 'WEB_CONNECT_TIMEOUT_MS' | 'WEB_TOTAL_TIMEOUT_MS'>,
  ) {
    this.total = setTimeout(() => this.stop('total'), budget.WEB_TOTAL_TIMEOUT_MS);
    if (user.aborted) this.stop('user');
    else user.addEventListener('abort', this.onUserAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  why(): StopReason | undefined {
    return this.reason;
  }

  private stop(r: StopReason): void {
    if (this.reason) return;
    this.reason = r;
    this.ctl.abort(new Error(`stopped: ${r}`));
  }

  /** Start the headers deadline for one request. */
  armConnect(): void {
    clearTimeout(this.connect);
    this.connect = setTimeout(() => this.stop('connect'), this.budget.WEB_CONNECT_TIMEOUT_MS);
  }

  /** The headers arrived: only the total deadline is left. */
  headersArrived(): void {
    clearTimeout(this.connect);
  }

  dispose(): void {
    clearTimeout(this.total);
    clearTimeout(this.connect);
    this.user.removeEventListener('abort', this.onUserAbort);
  }
}

/** An error whose text ends with its next step (which the hint repeats, since it survives any cut). */
export function stepError(message: string, step: string, meta?: Record<string, unknown>): ToolError {
  return new ToolError(`${message}\n${step}`, step, meta);
}

/** The ToolError for a deadline or abort that stopped a call (tool is "web_fetch" or "web_search"). */
export function stoppedError(tool: string, d: WebDeadline, url: string, progress?: string): ToolError {
  const why = d.why();
  if (why === 'user') return new ToolError(`${tool} was stopped by the user.`);
  if (why === 'connect') {
    return stepError(
      `${tool} timed out after ${formatDuration(d.budget.WEB_CONNECT_TIMEOUT_MS)} waiting for ${url} to answer (no response headers).`,
      'The server may be down or very slow: check the URL, or try again later.',
    );
  }
  return stepError(
    `${tool} timed out after ${formatDuration(d.budget.WEB_TOTAL_TIMEOUT_MS)} reading ${url}${progress ? ` (${progress})` : ''}; the server had not finished sending.`,
    'The page may be slow or stream without end: try again later, or another URL.',
  );
}

/** What request.ts reads of an answer: a fetch Response, or pinned-get.ts's answer of the same shape. */
export type WebResponse = Pick<Response, 'status' | 'statusText' | 'headers' | 'body'>;

/** A network failure (refused, DNS, TLS …) in words, from undici's error and its cause, or node:http's error. */
export function networkCause(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause ?? (e?.code ? e : undefined);
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'ECONNRESET':
      return 'the connection was reset by the server';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    default:
      if (cause?.code?.startsWith('ERR_TLS') || cause?.code?.includes('CERT')) return `the TLS handshake failed (${cause.code})`;
      return cause?.message ?? (err instanceof Error ? err.message : String(err));
  }
}

/**
 * One GET of url under the deadline, redirects not followed (the caller decides). Throws
 * ToolError on a network failure, a timeout or the user's stop.
 */
export async function getOnce(tool: string, url: URL, d: WebDeadline, headers: Record<string, string>): Promise<Response> {
  d.armConnect();
  try {
    const res = await fetch(url, { redirect: 'manual', signal: d.signal, headers });
    d.headersArrived();
    return res;
  } catch (err) {
    if (d.why()) throw stoppedError(tool, d, url.href);
    throw stepError(`${tool} could not reach ${url.host}: ${networkCause(err)}.`, 'Check the URL (host and port), or try again later.');
  }
}

/** A body read with a cap: the kept head and how much the server sent in all. */
export interface Body {
  /** at most keepBytes of the body */
  bytes: Buffer;
  /** bytes received in all (decoded); a lower bound when !complete */
  total: number;
  /** the whole body was received (false: the drain cap or the deadline stopped counting) */
  complete: boolean;
  /** what stopped counting before the end */
  stoppedBy?: 'drain-cap' | 'deadline';
}

/**
 * Read a response body: keep the first keepBytes, then drain and count up to drainMaxBytes more
 * (so the result can say how large the page really was). A deadline that fires after the kept
 * head is full ends the count (the total is then a lower bound); one that fires before throws.
 */
export async function readBody(tool: string, res: WebResponse, url: string, d: WebDeadline, keepBytes: number, drainMaxBytes: number): Promise<Body> {
  const parts: Buffer[] = [];
  let kept = 0;
  let total = 0;
  if (!res.body) return { bytes: Buffer.alloc(0), total: 0, complete: true };
  const reader = res.body.getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (d.why() === 'total' && kept >= keepBytes) return { bytes: Buffer.concat(parts), total, complete: false, stoppedBy: 'deadline' };
        if (d.why()) throw stoppedError(tool, d, url, `${formatBytes(total)} received`);
        throw stepError(`${tool}: the connection to ${url} broke after ${formatBytes(total)} received (${networkCause(err)}).`, 'Try again, or try later.');
      }
      if (chunk.done) return { bytes: Buffer.concat(parts), total, complete: true };
      const v = chunk.value;
      total += v.byteLength;
      if (kept < keepBytes) {
        const take = Math.min(v.byteLength, keepBytes - kept);
        parts.push(Buffer.from(v.subarray(0, take)));
        kept += take;
      }
      if (total - kept > drainMaxBytes) return { bytes: Buffer.concat(parts), total, complete: false, stoppedBy: 'drain-cap' };
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Throw away a body we do not want (a redirect's, a binary's) without reading it. */
export function discard(res: WebResponse): void {
  res.body?.cancel().catch(() => {});
}
