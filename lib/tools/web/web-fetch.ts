/**
 * web_fetch: one http(s) URL as text the model can read. HTML becomes Markdown, text and JSON come
 * as they are, binary types are refused by name and size without downloading them.
 *
 * Two cuts, both stated: the response body is kept up to WEB_RESPONSE_MAX_BYTES and the rest is
 * drained and counted (so the result says how large the page really was, whatever Content-Length
 * claimed); the text returned is clipped to max_bytes, whose largest value is what the exit clamp
 * can deliver once the header and notes have their room — a larger max_bytes could never take
 * effect, so it is lowered and the result says so. The full Markdown of a clipped page is spilled
 * to the data dir, where read_file can page through it.
 *
 * Redirects are followed only within one host: a redirect elsewhere is a decision (a shortened
 * link, a login wall, a moved site), so it is reported and the model calls again.
 *
 * Local addresses (this machine, its networks, the cloud metadata service) are not the web: see
 * fetch-policy.ts. Each request connects only to the addresses it checked (pinned-get.ts).
 */
import { z } from 'zod';
import { defineTool } from '../../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult, type Truncation } from '../../contract/types';
import { BUDGET, type Budget } from '../../contract/budget';
import { byteLength, clipLine, cutHead, fitWithNote, formatBytes, formatCount, formatDuration, type Cut } from '../../contract/text';
import { spillOrWhy, type Spilled } from '../../contract/spill';
import { htmlToMarkdown } from './html-to-markdown';
import { discard, readBody, stepError, WebDeadline, type Body, type WebResponse } from './request';
import { getPinned } from './pinned-get';
import { checkedAddresses, fetchPolicy } from './fetch-policy';

const TOOL = 'web_fetch';
const HEADERS = {
  'user-agent': 'Clamp (web_fetch; a coding agent fetching one page for its user)',
  accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
};
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The largest useful max_bytes: the exit clamp minus room for the header and notes. */
export function webFetchMaxBytes(b: Budget): number {
  return Math.max(1, b.TOOL_OUTPUT_MAX_BYTES - b.WEB_FETCH_NOTES_RESERVE_BYTES);
}

const schema = z.strictObject({
  url: z.string().describe('Absolute http:// or https:// URL.'),
  // the maximum is what the exit clamp can deliver after the notes; a lowered clamp (ctx.budget) lowers it at run time
  max_bytes: z
    .number()
    .int()
    .min(1)
    .max(webFetchMaxBytes(BUDGET))
    .optional()
    .describe(
      `Most bytes of text, 1 to ${webFetchMaxBytes(BUDGET)} (default: the most).`,
    ),
});

type Input = z.infer<typeof schema>;

function describe(b: Budget): string {
  return [
    'Fetch one http:// or https:// URL and return it as text: HTML as Markdown (links made absolute), plain text and JSON as they are.',
    `At most max_bytes of text (default and maximum ${formatCount(webFetchMaxBytes(b))} bytes); a longer page is cut with a note and its full Markdown saved to a file to read with read_file.`,
    `The body is read up to ${formatBytes(b.WEB_RESPONSE_MAX_BYTES)}, the rest counted. Binary content is refused with its type and size.`,
    `Same-host redirects are followed (up to ${b.WEB_REDIRECT_MAX_COUNT}); one to another host is reported: call web_fetch with the new URL.`,
    'Local addresses (localhost, LAN) need the user\'s approval.',
    `Gives up after ${formatDuration(b.WEB_CONNECT_TIMEOUT_MS)} without an answer, ${formatDuration(b.WEB_TOTAL_TIMEOUT_MS)} in all. HTTP errors return the status and an excerpt.`,
    'To find pages by topic use web_search (when listed). For files in the workspace use read_file, not web_fetch.'
  ].join('\n');
}

type Kind = 'html' | 'text' | 'binary';

/** html, text, binary from the Content-Type; undefined when there is none (the bytes decide). */
function kindOf(mime: string): Kind | undefined {
  if (!mime) return undefined;
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime.startsWith('text/') || mime.includes('json') || mime.endsWith('xml') || mime.endsWith('+xml')) return 'text';
  if (/^application\/(javascript|ecmascript|x-javascript|yaml|x-yaml|toml|x-sh|sql|graphql)$/.test(mime)) return 'text';
  return 'binary';
}

function sniffKind(head: Buffer, sniffBytes: number): Kind {
  if (head.subarray(0, sniffBytes).includes(0)) return 'binary';
  return /^\s*(<!doctype html|<html)/i.test(head.subarray(0, 1024).toString('latin1')) ? 'html' : 'text';
}

/** Decode with the response's charset (UTF-8 when absent or unknown); a cut body drops its last partial character. */
function decode(bytes: Buffer, contentType: string, cut: boolean): string {
  const label = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  let dec: TextDecoder;
  try {
    dec = new TextDecoder(label);
  } catch {
    dec = new TextDecoder('utf-8');
  }
  return dec.decode(bytes, { stream: cut });
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolError(
      `Not a valid URL: ${clipLine(raw, BUDGET.URL_SHOWN_MAX_BYTES)}. web_fetch needs an absolute URL such as https://example.com/page.`,
      'Pass an absolute http:// or https:// URL. For files in the workspace use read_file.',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const step = url.protocol === 'file:' ? 'For files in the workspace use read_file.' : 'Use an http:// or https:// URL instead.';
    throw new ToolError(`web_fetch fetches only http:// and https:// URLs; this one is ${url.protocol}. ${step}`, step);
  }
  return url;
}

/** Same host: same host name and port, or the same host name upgraded from http to https on default ports. */
function sameHost(from: URL, to: URL): boolean {
  if (from.hostname !== to.hostname) return false;
  if (from.protocol === to.protocol) return from.port === to.port;
  return from.protocol === 'http:' && to.protocol === 'https:' && from.port === '' && to.port === '';
}

const statusLine = (res: WebResponse) => `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
/** URLs in results are clipped (the model has the one it asked for). */
const shownUrl = (u: string) => clipLine(u, BUDGET.URL_SHOWN_MAX_BYTES);

/** The error for a non-2xx answer: status, a short excerpt of what the page says, and a next step. */
async function httpError(res: WebResponse, url: URL, d: WebDeadline, b: Budget): Promise<ToolError> {
  let excerpt = '';
  try {
    // error pages are mostly markup: keep several times the excerpt so its text survives conversion
    const body = await readBody(TOOL, res, url.href, d, b.WEB_ERROR_EXCERPT_BYTES * 8, 0);
    const ct = res.headers.get('content-type') ?? '';
    const raw = decode(body.bytes, ct, !body.complete);
    const kind = kindOf(ct.split(';')[0].trim().toLowerCase()) ?? sniffKind(body.bytes, b.BINARY_SNIFF_BYTES);
    const text = kind === 'html' ? htmlToMarkdown(raw, url.href).markdown : kind === 'text' ? raw : '';
    excerpt = clipLine(text.replace(/\s+/g, ' ').trim(), b.WEB_ERROR_EXCERPT_BYTES);
  } catch {
    // the status is the error; a body we could not read only loses the excerpt
  }
  const s = res.status;
  const step =
    s === 404 || s === 410
      ? 'Check the URL: the page may have moved (look for it from the site\'s front page, or with web_search when listed).'
      : s === 401 || s === 403
        ? 'The page needs a login or refuses automated clients; web_fetch cannot log in. Ask the user for the content.'
        : s === 429
          ? 'The site is rate-limiting: wait before trying again.'
          : s >= 500
            ? 'The server failed: try again later.'
            : 'Check the URL and try again.';
  return new ToolError(`HTTP ${statusLine(res)} from ${shownUrl(url.href)}.${excerpt ? `\nThe page says: ${excerpt}` : ''}\n${step}`, step, {
    status: s,
    url: url.href,
  });
}

/** What web_fetch tells the page: where it went, what came back, and a redirect it did not follow. */
export interface WebFetchMeta {
  /** the URL asked for */
  url: string;
  finalUrl?: string;
  redirects?: string[];
  status?: number;
  contentType?: string;
  receivedBytes?: number;
  /** the whole body arrived */
  complete?: boolean;
  title?: string;
  /** the body's own cut, when the text was cut again */
  bodyTruncation?: Truncation;
  /** a redirect to another host, reported instead of followed */
  redirect?: { status: number; location: string };
}

async function run(input: Input, ctx: ToolContext): Promise<ToolOutput<WebFetchMeta>> {
  const b = ctx.budget;
  const start = parseUrl(input.url);
  const d = new WebDeadline(ctx.signal, b);
  try {
    let url = start;
    const hops: string[] = [];
    for (;;) {
      // every request, redirects included: resolved and checked now, connected to what was checked
      const addresses = await checkedAddresses(TOOL, url, ctx);
      const res = await getPinned(TOOL, url, addresses, d, HEADERS);
      if (res.status >= 300 && res.status < 400 && REDIRECT_STATUSES.has(res.status)) {
        discard(res);
        const loc = res.headers.get('location');
        if (!loc) throw stepError(`${shownUrl(url.href)} answered ${statusLine(res)} without a Location to go to.`, 'Try the site\'s front page, or another URL.');
        let next: URL;
        try {
          next = new URL(loc, url);
        } catch {
          throw stepError(`${shownUrl(url.href)} redirects (${statusLine(res)}) to an invalid address: ${shownUrl(loc)}.`, 'Try another URL.');
        }
        if (!sameHost(url, next)) return crossHostReport(url, next, res);
        if (hops.length >= b.WEB_REDIRECT_MAX_COUNT) {
          throw stepError(
            `${shownUrl(start.href)} redirected ${b.WEB_REDIRECT_MAX_COUNT} times within ${url.host} and was sent on again (to ${shownUrl(next.href)}); web_fetch stopped there. The site may redirect in a loop.`,
            'Try the last URL directly, or another page of the site.',
            { redirects: [...hops, next.href] },
          );
        }
        hops.push(url.href);
        url = next;
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw await httpError(res, url, d, b);
      return await page(res, input, start, url, hops, d, ctx);
    }
  } finally {
    d.dispose();
  }
}

function crossHostReport(from: URL, to: URL, res: WebResponse): ToolOutput<WebFetchMeta> {
  const where = to.protocol !== 'http:' && to.protocol !== 'https:' ? `a ${to.protocol} address` : to.host !== from.host ? 'another host' : `${to.protocol.slice(0, -1)} on ${to.host}`;
  return {
    output:
      `${shownUrl(from.href)} redirects (${statusLine(res)}) to ${where}: ${to.href}\n` +
      'Not followed: web_fetch follows redirects only within the same host. If you trust the new address, call web_fetch again with it as url.',
    hint: `To follow the redirect, call web_fetch with url ${to.href}`,
    meta: { url: from.href, redirect: { status: res.status, location: to.href } },
  };
}

/** A 2xx answer read as text: what it says it is, what was received, and the text (Markdown for HTML). */
interface PageText {
  /** the Content-Type header, and its media type */
  ct: string;
  mime: string;
  kind: 'html' | 'text';
  body: Body;
  /** "12 KB" or "at least 5 MB" */
  received: string;
  text: string;
  title?: string;
}

/** Classify, read capped and convert; binary data is refused before or after reading. */
async function pageText(res: WebResponse, url: URL, d: WebDeadline, b: Budget): Promise<PageText> {
  const ct = res.headers.get('content-type') ?? '';
  const mime = ct.split(';')[0].trim().toLowerCase();
  const declared = Number(res.headers.get('content-length') ?? NaN);
  let kind = kindOf(mime);
  if (kind === 'binary') {
    discard(res);
    throw binaryError(url, mime, Number.isFinite(declared) ? `${formatBytes(declared)} declared` : 'size not declared');
  }
  const body = await readBody(TOOL, res, url.href, d, b.WEB_RESPONSE_MAX_BYTES, b.WEB_DRAIN_MAX_BYTES);
  kind ??= sniffKind(body.bytes, b.BINARY_SNIFF_BYTES);
  const received = `${body.complete ? '' : 'at least '}${formatBytes(body.total)}`;
  if (kind === 'binary' || body.bytes.subarray(0, b.BINARY_SNIFF_BYTES).includes(0)) {
    throw binaryError(url, mime || 'binary data with no content type', `${received} received, with NUL bytes`);
  }
  const raw = decode(body.bytes, ct, body.total > body.bytes.length);
  const conv = kind === 'html' ? htmlToMarkdown(raw, url.href) : { markdown: raw, title: undefined };
  return { ct, mime, kind, body, received, text: conv.markdown, ...(conv.title ? { title: conv.title } : {}) };
}

/** The lines above the text: where it came from, its status and type, its title. */
function pageHead(p: PageText, res: WebResponse, start: URL, url: URL, hops: string[], b: Budget): string {
  return [
    `URL: ${shownUrl(url.href)}`,
    ...(hops.length ? [`Redirected from: ${shownUrl(start.href)} (${hops.length} same-host redirect${hops.length === 1 ? '' : 's'})`] : []),
    `Status: ${statusLine(res)} · ${p.mime || 'no content type'} · ${p.received} received`,
    ...(p.title ? [`Title: ${clipLine(p.title, b.URL_SHOWN_MAX_BYTES)}`] : []),
  ].join('\n');
}

/** The notes below the text on what was lowered or not read; a body cut short is a truncation of its own. */
function pageNotes(p: PageText, input: Input, url: URL, b: Budget): { notes: string[]; bodyTrunc: Truncation | null; hint?: string } {
  const most = webFetchMaxBytes(b);
  const notes: string[] = [];
  if (input.max_bytes !== undefined && input.max_bytes > most) {
    notes.push(`[max_bytes ${formatCount(input.max_bytes)} is more than one result can hold here; used ${formatCount(most)}.]`);
  }
  const { body } = p;
  if (body.total <= body.bytes.length) return { notes, bodyTrunc: null };
  notes.push(
    `[Response body cut: converted the first ${formatBytes(body.bytes.length)} of ${p.received} received; the rest was counted, not converted` +
      `${body.stoppedBy === 'deadline' ? ` (counting stopped at the ${formatDuration(b.WEB_TOTAL_TIMEOUT_MS)} limit)` : body.stoppedBy === 'drain-cap' ? ' (counting stopped there)' : ''}. ` +
      `For all of it, download it with run_command (curl -o page.html '${shownUrl(url.href)}') and read the file.]`,
  );
  return {
    notes,
    bodyTrunc: { unit: 'bytes', shown: body.bytes.length, total: body.total, by: 'tool' },
    hint: 'The page was larger than web_fetch reads; download it with run_command to see all of it.',
  };
}

/**
 * The text clipped to max_bytes, and further until the head and notes fit under the exit clamp with it; a cut
 * text is saved whole to the data dir (once) and the note says where. `cut` is the text's truncation, if any.
 */
function fitPage(p: PageText, head: string, notes: string[], input: Input, ctx: ToolContext): { text: string; cut: Truncation | null; hint?: string } {
  const b = ctx.budget;
  const most = webFetchMaxBytes(b);
  const clip = Math.min(input.max_bytes ?? most, most);
  const total = byteLength(p.text);
  let spilled: Spilled | undefined;
  const spill = () => (spilled ??= spillOrWhy(ctx.dataDir, p.text, TOOL));
  const clipNote = (c: Cut) => {
    const s = spill();
    const where = s.path
      ? `The full text is saved at ${s.path}: read it with read_file (offset=${c.shownLines + 1} to continue) or search it with grep.`
      : `${s.why} Call web_fetch on a more specific page.`;
    return `[Text cut at ${formatCount(c.shownBytes)} of ${formatCount(total)} bytes (${formatCount(c.shownLines)} of ${formatCount(c.totalLines)} lines shown). ${where}]`;
  };
  const assemble = (c: Cut) => {
    const all = c.cut ? [clipNote(c), ...notes] : notes;
    const bodyText = c.text.trim() ? c.text.trimEnd() : p.kind === 'html' ? '(The page has no text.)' : '(The response is empty.)';
    return [head, '', bodyText, ...(all.length ? ['', ...all] : [])].join('\n');
  };
  const fit = fitWithNote(b.TOOL_OUTPUT_MAX_BYTES, (room) => cutHead(p.text, Math.min(clip, room)), assemble);
  const c = fit.cut;
  if (!c.cut) return { text: fit.text, cut: null };
  const saved = spill().path;
  return {
    text: fit.text,
    cut: { unit: 'bytes', shown: c.shownBytes, total, omittedLines: c.totalLines - c.shownLines, ...(saved ? { spillPath: saved } : {}), by: 'tool' },
    ...(saved ? { hint: `Read the rest with read_file ${saved} offset=${c.shownLines + 1}.` } : {}),
  };
}

/** A 2xx answer: classify, read capped, convert, clip to max_bytes, and say every cut. */
async function page(res: WebResponse, input: Input, start: URL, url: URL, hops: string[], d: WebDeadline, ctx: ToolContext): Promise<ToolOutput<WebFetchMeta>> {
  const b = ctx.budget;
  const p = await pageText(res, url, d, b);
  const { notes, bodyTrunc, hint: bodyHint } = pageNotes(p, input, url, b);
  const fit = fitPage(p, pageHead(p, res, start, url, hops, b), notes, input, ctx);
  const trunc = fit.cut ?? bodyTrunc;
  const hint = fit.cut ? (fit.hint ?? bodyHint) : bodyHint;
  return {
    output: fit.text,
    truncation: trunc,
    ...(hint ? { hint } : {}),
    meta: {
      url: start.href,
      finalUrl: url.href,
      redirects: hops,
      status: res.status,
      contentType: p.ct,
      receivedBytes: p.body.total,
      complete: p.body.complete,
      ...(p.title ? { title: p.title } : {}),
      ...(bodyTrunc && trunc !== bodyTrunc ? { bodyTruncation: bodyTrunc } : {}),
    },
  };
}

function binaryError(url: URL, type: string, size: string): ToolError {
  return stepError(
    `${shownUrl(url.href)} is ${type} (${size}), not text; web_fetch returns text only and did not keep its bytes.`,
    `To save the file, download it with run_command (curl -o <file> '${shownUrl(url.href)}').`,
  );
}

export const webFetchTool = defineTool({
  name: 'web_fetch',
  effect: 'system',
  traits: { deferRank: 3, hookAs: { name: 'WebFetch' }, activity: 'fetch' },
  schema,
  describe,
  nonEmpty: ['url'],
  // a local address (loopback, private, link-local …) is refused in auto mode and asked about in the others
  policy: (input, ctx) => fetchPolicy(input.url, ctx.mode),
  summary: (input, r?: ToolResult<WebFetchMeta>) => {
    const m = r?.meta;
    const end = m?.redirect ? ` → ${m.redirect.location} (not followed)` : m?.finalUrl && m.finalUrl !== input.url ? ` → ${m.finalUrl}` : '';
    return `${input.url}${end}${m?.status !== undefined ? ` (${m.status})` : ''}`;
  },
  run,
});
