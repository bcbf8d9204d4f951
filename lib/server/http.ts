import { z } from 'zod';
import { ConfigError, loadConfig } from '../config';
import { StoreError } from '../store/db';
import { DiskFullError, diskFullText, isDiskFull } from '../contract/disk-full';
import { ApprovalAnsweredError } from '../store/approvals';
import type { ApprovalConflictAnswer } from '../contract/rest';
import type { PermissionMode } from '../contract/types';

/** A request the route refuses, with the status and the message the page shows. */
export class HttpError extends Error {
  constructor(
    public readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A JSON response (no CORS headers: the page is same-origin); json<RouteAnswer>(…) checks the body against the route's declared answer. */
export function json<T>(data: T, status = 200): Response {
  return Response.json(data, { status, headers: { 'cache-control': 'no-store' } });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  return field ? `field "${field}": ${issue.message}` : issue.message;
}

/** Read a request body of at most maxBytes; throws HttpError 413 past it (counting as it reads, not trusting Content-Length). */
export async function readBody(req: Request, maxBytes: number): Promise<string> {
  const tooBig = () => new HttpError(413, `The request body is larger than ${maxBytes} bytes. Send less.`);
  const declared = Number(req.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooBig();
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooBig();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Read, parse and validate a JSON body: 413 over maxBytes, 400 when empty or malformed,
 * 400 naming the field that fails the schema. Throws HttpError; errorResponse turns it into the response.
 */
export async function parseJson<S extends z.ZodType>(req: Request, schema: S, maxBytes: number): Promise<z.infer<S>> {
  return parseJsonText(await readBody(req, maxBytes), schema);
}

/** parseJson on a body already read. */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.infer<S> {
  if (text.trim() === '') throw new HttpError(400, 'The request body is empty. Send a JSON object.');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `The request body is not valid JSON (${(err as Error).message}).`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new HttpError(400, `Invalid request: ${parsed.error.issues.map(describeIssue).join('; ')}.`);
  }
  return parsed.data;
}

const STORE_STATUS: Record<StoreError['code'], number> = { 'not-found': 404, conflict: 409, invalid: 400 };

/** Map a thrown error to a JSON response { error }: known errors to their 4xx, a full disk to 507, the rest to 500. */
export function errorResponse(err: unknown): Response {
  if (err instanceof HttpError) return json({ error: err.message }, err.status);
  // the page takes the earlier answer from the 409 instead of showing an error
  if (err instanceof ApprovalAnsweredError) return json<ApprovalConflictAnswer>({ error: err.message, approval: err.approval }, 409);
  if (err instanceof StoreError) return json({ error: err.message }, STORE_STATUS[err.code]);
  if (err instanceof z.ZodError) return json({ error: `Invalid request: ${err.issues.map(describeIssue).join('; ')}.` }, 400);
  if (err instanceof ConfigError) return json({ error: err.message }, 500);
  // a full disk is 507 Insufficient Storage, with the words that name it (the store's transaction left everything as it was)
  if (err instanceof DiskFullError) return json({ error: err.message }, 507);
  if (isDiskFull(err)) return json({ error: diskFullText('This change', dataDirOr(), err) }, 507);
  console.error('clamp: request failed:', err);
  return json({ error: `Internal error: ${err instanceof Error ? err.message : String(err)}` }, 500);
}

/** The data dir for a message, when the configuration can be read. */
function dataDirOr(): string {
  try {
    return serverConfig().dataDir;
  } catch {
    return process.env.CLAMP_DATA_DIR ?? 'CLAMP_DATA_DIR';
  }
}

export interface ServerConfig {
  workspace: string;
  dataDir: string;
  mode: PermissionMode;
}

let cached: { key: string; config: ServerConfig } | undefined;

/** The workspace, data dir and default mode from CLAMP_WORKSPACE / CLAMP_DATA_DIR / CLAMP_MODE (set by the launcher). Throws ConfigError. */
export function serverConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const key = JSON.stringify([env.CLAMP_WORKSPACE, env.CLAMP_DATA_DIR, env.CLAMP_MODE, env.INIT_CWD]);
  if (cached?.key === key) return cached.config;
  // only the three variables: a bad CLAMP_PORT is the launcher's business, not a route's
  const { CLAMP_WORKSPACE, CLAMP_DATA_DIR, CLAMP_MODE, INIT_CWD } = env;
  const { workspace, dataDir, mode } = loadConfig({ NODE_ENV: env.NODE_ENV, CLAMP_WORKSPACE, CLAMP_DATA_DIR, CLAMP_MODE, INIT_CWD });
  cached = { key, config: { workspace, dataDir, mode } };
  return cached.config;
}

/** A route's id parameter: url-safe characters only, else 404 (it cannot name anything stored). */
export function routeId(id: string, what: string): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) throw new HttpError(404, `${what} ${id} not found.`);
  return id;
}
