import type { FilePage, LogSearchAnswer } from '@/lib/contract/viewer';

/**
 * The page's client for paged files: GET /api/files (spilled outputs) and GET /api/tasks/:id/log
 * (task logs), both answering one FilePage per request.
 */

/** Which log of a task: both streams in arrival order (as a terminal shows them), or one of them. */
export type TaskLogStream = 'combined' | 'stdout' | 'stderr';

/** A task without a stream asks for the server's default: the combined log. */
export type PageSource = { kind: 'file'; path: string } | { kind: 'task'; taskId: string; stream?: TaskLogStream };

/** bytes asked for per request: a few thousand lines of a typical log */
export const PAGE_BYTES = 256 * 1024;

/** A failed page request, with the server's message when it sent one. */
export class PageError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'PageError';
  }
}

/** The URL of one page of a source. */
export function pageUrl(source: PageSource, offset: number, limit: number): string {
  const q = new URLSearchParams({ offset: String(Math.max(0, Math.floor(offset))), limit: String(Math.max(0, Math.floor(limit))) });
  if (source.kind === 'file') {
    q.set('path', source.path);
    return `/api/files?${q}`;
  }
  if (source.stream) q.set('stream', source.stream);
  return `/api/tasks/${encodeURIComponent(source.taskId)}/log?${q}`;
}

/** The URL of a search over the whole of a source (the server reads the file on disk). */
export function searchUrl(source: PageSource, query: string): string {
  const q = new URLSearchParams({ q: query });
  if (source.kind === 'file') {
    q.set('path', source.path);
    return `/api/files/search?${q}`;
  }
  if (source.stream) q.set('stream', source.stream);
  return `/api/tasks/${encodeURIComponent(source.taskId)}/log/search?${q}`;
}

/** Search a whole source; throws PageError with the server's message on a non-2xx answer or a malformed body. */
export async function fetchSearch(source: PageSource, query: string, signal?: AbortSignal): Promise<LogSearchAnswer> {
  const res = await fetch(searchUrl(source, query), { signal, headers: { accept: 'application/json' } });
  if (!res.ok) throw new PageError(await responseMessage(res), res.status);
  const body = (await res.json().catch(() => null)) as LogSearchAnswer | null;
  if (!body || !Array.isArray(body.matches) || !Number.isFinite(body.total)) throw new PageError('The server answered with something that is not a search result.', res.status);
  return body;
}

/** A stable string for a source, for React keys and effect dependencies. */
export function sourceKey(source: PageSource): string {
  return source.kind === 'file' ? `file:${source.path}` : `task:${source.taskId}:${source.stream ?? 'combined'}`;
}

/** Fetch one page; throws PageError with the server's message on a non-2xx answer or a malformed body. */
export async function fetchPage(source: PageSource, offset: number, limit: number, signal?: AbortSignal): Promise<FilePage> {
  const res = await fetch(pageUrl(source, offset, limit), { signal, headers: { accept: 'application/json' } });
  if (!res.ok) throw new PageError(await responseMessage(res), res.status);
  const body: unknown = await res.json().catch(() => null);
  if (!isFilePage(body)) throw new PageError('The server answered with something that is not a page of the file.', res.status);
  return body;
}

/** Shape check of a page from the server (the page trusts no JSON blindly). */
export function isFilePage(v: unknown): v is FilePage {
  if (!v || typeof v !== 'object') return false;
  const p = v as Record<string, unknown>;
  return (
    typeof p.text === 'string' &&
    Number.isFinite(p.offset) &&
    Number.isFinite(p.nextOffset) &&
    Number.isFinite(p.totalBytes) &&
    typeof p.eof === 'boolean'
  );
}

/** The message of a failed response: the server's { error } when it sent one, else its text or status. */
export async function responseMessage(res: Response): Promise<string> {
  const raw = await res.text().catch(() => '');
  try {
    // every route answers a failure as { error } (lib/server/http.ts errorResponse)
    const j = JSON.parse(raw) as { error?: unknown };
    if (typeof j.error === 'string' && j.error) return j.error;
  } catch {
    // not JSON: fall through to the raw text
  }
  return raw.trim().slice(0, 300) || `The server answered ${res.status} ${res.statusText}.`;
}
