import crypto from 'node:crypto';
import { BUDGET } from '../contract/budget';

/** The cookie that carries the launch token after the first visit. */
export const TOKEN_COOKIE = 'clamp_token';

export interface DoorRequest {
  method: string;
  /** path and query, as in req.url */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export type DoorVerdict =
  | { kind: 'pass' }
  /** a valid ?token= on a page load: set the cookie and redirect to the same URL without it */
  | { kind: 'set-cookie'; location: string; cookie: string }
  | { kind: 'refuse'; status: 401 | 403 | 411 | 413; message: string };

function header(req: DoorRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Constant-time token comparison. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function cookieToken(req: DoorRequest): string | undefined {
  const raw = header(req, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === TOKEN_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Hosts a browser on this machine uses for Clamp; anything else is DNS rebinding or a proxy. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
}

/**
 * A request body must declare its length, within maxBytes. Next.js reads a whole body (buffering up
 * to 10 MB of it for proxy.ts) before a route can count it, so an unbounded or slow body has to be
 * refused here, before anything reads it. Browsers' fetch always sends Content-Length.
 */
function bodyVerdict(req: DoorRequest, maxBytes: number): DoorVerdict {
  const length = header(req, 'content-length');
  if (length === undefined) {
    if (header(req, 'transfer-encoding') === undefined) return { kind: 'pass' };
    return { kind: 'refuse', status: 411, message: `Send the request body with a Content-Length (at most ${maxBytes} bytes).` };
  }
  if (!/^\d+$/.test(length.trim()) || Number(length) > maxBytes) {
    return { kind: 'refuse', status: 413, message: `The request body is larger than ${maxBytes} bytes. Send less.` };
  }
  return { kind: 'pass' };
}

/**
 * The server's door: every request needs the launch token (?token= once → HttpOnly SameSite=Strict
 * cookie, or the cookie, or an `Authorization: Bearer` header for scripts); a foreign Host gets 403;
 * a state-changing request with a missing, null or foreign Origin gets 403; a token holder's body
 * without a length gets 411, over bodyMaxBytes 413. Pure: no I/O.
 */
export function checkDoor(req: DoorRequest, token: string, port: number, bodyMaxBytes = BUDGET.DOOR_BODY_MAX_BYTES): DoorVerdict {
  const host = (header(req, 'host') ?? '').toLowerCase();
  const hosts = allowedHosts(port);
  if (!hosts.has(host)) {
    return { kind: 'refuse', status: 403, message: `Host ${host || '(none)'} is not allowed. Open Clamp at http://127.0.0.1:${port}/.` };
  }
  const method = req.method.toUpperCase();
  const safe = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  if (!safe) {
    const origin = header(req, 'origin');
    if (!origin || origin === 'null' || !hosts.has(origin.replace(/^http:\/\//, '').toLowerCase()) || !origin.startsWith('http://')) {
      return { kind: 'refuse', status: 403, message: `Origin ${origin ?? '(missing)'} is not allowed to change state.` };
    }
  }
  const url = new URL(req.url, `http://${host}`);
  const queryToken = url.searchParams.get('token') ?? undefined;
  const auth = header(req, 'authorization');
  const bearer = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
  if (tokenMatches(cookieToken(req), token) || tokenMatches(bearer, token)) return bodyVerdict(req, bodyMaxBytes);
  if (tokenMatches(queryToken, token)) {
    if (!safe) return bodyVerdict(req, bodyMaxBytes);
    url.searchParams.delete('token');
    return {
      kind: 'set-cookie',
      location: url.pathname + (url.search || ''),
      cookie: `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
    };
  }
  return {
    kind: 'refuse',
    status: 401,
    message: 'Clamp needs its access token. Open the URL the launcher printed (it ends in ?token=…), or restart Clamp to get a new one.',
  };
}
