/**
 * web_search: a web search through one provider shape, so no vendor is built in: CLAMP_SEARCH_URL
 * points to a SearXNG-compatible JSON endpoint (GET <url>?q=…&format=json → { results: [{ title,
 * url, content }] }). SearXNG runs locally in one container; other engines can sit behind a small
 * adapter of the same shape. Without the variable the tool is not listed at all.
 *
 * The endpoint is read at call time (ctx.services.searchUrl first, for tests and the settings page),
 * never at import.
 */
import { z } from 'zod';
import { defineTool } from '../../contract/types';
import type { ToolContext, ToolOutput, ToolResult } from '../../contract/types';
import { BUDGET, type Budget } from '../../contract/budget';
import { clipLine, formatBytes, formatCount } from '../../contract/text';
import { getOnce, readBody, stepError, WebDeadline } from './request';

const TOOL = 'web_search';

/** The configured endpoint, or undefined when no search provider is set up. */
export function searchEndpoint(ctx: Pick<ToolContext, 'services'>): string | undefined {
  const v = ctx.services.searchUrl ?? process.env.CLAMP_SEARCH_URL;
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

const schema = z.strictObject({
  query: z.string().describe('What to search for, in words a search engine understands.'),
  count: z
    .number()
    .int()
    .min(1)
    .max(BUDGET.WEB_SEARCH_MAX_RESULTS)
    .optional()
    .describe(`How many results to return, 1 to ${BUDGET.WEB_SEARCH_MAX_RESULTS} (default ${BUDGET.WEB_SEARCH_DEFAULT_RESULTS}).`),
});

type Input = z.infer<typeof schema>;

function describe(b: Budget): string {
  return [
    `Search the web and return the top results (default ${b.WEB_SEARCH_DEFAULT_RESULTS}, at most ${b.WEB_SEARCH_MAX_RESULTS} with count):`,
    `each a title, its URL and a snippet (cut to ${formatBytes(b.WEB_SEARCH_SNIPPET_MAX_BYTES)}).`,
    'Snippets are short: to read a page, call web_fetch with its URL (web_fetch is also the tool when you already know the URL).',
    'For code and files in the workspace use grep and glob, not web_search.',
  ].join('\n');
}

interface Hit {
  title: string;
  url: string;
  content: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '');

/** The provider's results that have an http(s) URL, each URL once; and how many were left out. */
function hitsOf(data: unknown): { hits: Hit[]; dropped: number } | undefined {
  const results = (data as { results?: unknown })?.results;
  if (!Array.isArray(results)) return undefined;
  const seen = new Set<string>();
  const hits: Hit[] = [];
  for (const r of results) {
    const url = text((r as Hit)?.url);
    if (!/^https?:\/\//i.test(url) || seen.has(url)) continue;
    seen.add(url);
    hits.push({ title: text((r as Hit).title), url, content: text((r as Hit).content) });
  }
  return { hits, dropped: results.length - hits.length };
}

/** What web_search tells the page: the results it showed. */
export interface WebSearchMeta {
  query: string;
  results: Hit[];
}

/** The configured provider's search URL for this query, checked to be http(s). */
function searchUrl(query: string, ctx: ToolContext): URL {
  const endpoint = searchEndpoint(ctx);
  const notConfigured = 'Ask the user to set CLAMP_SEARCH_URL to a SearXNG-compatible JSON endpoint (for example http://localhost:8888/search), or use web_fetch on a URL you know.';
  if (!endpoint) throw stepError('web_search has no search provider configured.', notConfigured);
  let url: URL;
  try {
    url = new URL(endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw stepError(`CLAMP_SEARCH_URL is not an http(s) URL: ${clipLine(endpoint, ctx.budget.URL_SHOWN_MAX_BYTES)}.`, notConfigured);
  }
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  return url;
}

/** The provider's JSON answer, read capped under the web deadline; a failed, oversized or non-JSON answer is an error with a step. */
async function askProvider(url: URL, provider: string, ctx: ToolContext): Promise<unknown> {
  const b = ctx.budget;
  const d = new WebDeadline(ctx.signal, b);
  try {
    const res = await getOnce(TOOL, url, d, { accept: 'application/json', 'user-agent': 'Clamp (web_search)' });
    if (res.status < 200 || res.status >= 300) {
      res.body?.cancel().catch(() => {});
      throw stepError(
        `The search provider at ${provider} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}.`,
        'Try again later; if it keeps failing, ask the user to check the search service (CLAMP_SEARCH_URL).',
      );
    }
    const body = await readBody(TOOL, res, provider, d, b.WEB_RESPONSE_MAX_BYTES, 0);
    if (!body.complete) {
      throw stepError(`The search provider's answer is over ${formatBytes(b.WEB_RESPONSE_MAX_BYTES)}; web_search reads no more.`, 'Ask the user to check the search service (CLAMP_SEARCH_URL).');
    }
    try {
      return JSON.parse(body.bytes.toString('utf8'));
    } catch {
      throw stepError(
        `The search provider at ${provider} did not answer with JSON (content type ${res.headers.get('content-type') || 'none'}).`,
        'CLAMP_SEARCH_URL must be a SearXNG-compatible endpoint with the JSON format enabled; ask the user to check it.',
      );
    }
  } finally {
    d.dispose();
  }
}

/** The first `count` hits (q: the query as shown), numbered with their title, URL and snippet, and a note on the ones not shown. */
function listHits(query: string, q: string, hits: Hit[], skipped: string, count: number, b: Budget): ToolOutput<WebSearchMeta> {
  const shown = hits.slice(0, count);
  const lines = shown.map((h, i) => {
    const title = h.title ? clipLine(h.title, b.WEB_SEARCH_TITLE_MAX_BYTES) : '(no title)';
    const snippet = h.content ? `\n   ${clipLine(h.content, b.WEB_SEARCH_SNIPPET_MAX_BYTES)}` : '';
    return `${i + 1}. ${title}\n   ${h.url}${snippet}`;
  });
  const more = hits.length > shown.length;
  const head = `${formatCount(shown.length)} of ${formatCount(hits.length)} results for ${q}${skipped}:`;
  const moreStep =
    count < b.WEB_SEARCH_MAX_RESULTS ? `ask for up to ${b.WEB_SEARCH_MAX_RESULTS} with count, or refine the query` : 'refine the query to see others';
  const tail = more ? `\n[${formatCount(hits.length - shown.length)} more results not shown: ${moreStep}.] Read a page with web_fetch.` : '\nRead a page with web_fetch.';
  return {
    output: `${head}\n${lines.join('\n')}${tail}`,
    truncation: more ? { unit: 'items', shown: shown.length, total: hits.length, by: 'tool' } : null,
    ...(more ? { hint: `${formatCount(hits.length - shown.length)} more results: ${moreStep}.` } : {}),
    meta: { query, results: shown },
  };
}

async function run(input: Input, ctx: ToolContext): Promise<ToolOutput<WebSearchMeta>> {
  const b = ctx.budget;
  const url = searchUrl(input.query, ctx);
  const count = Math.min(input.count ?? b.WEB_SEARCH_DEFAULT_RESULTS, b.WEB_SEARCH_MAX_RESULTS);
  const provider = `${url.origin}${url.pathname}`;
  const q = JSON.stringify(clipLine(input.query, b.QUERY_SHOWN_MAX_BYTES));
  const found = hitsOf(await askProvider(url, provider, ctx));
  if (!found) {
    throw stepError(`The search provider at ${provider} answered JSON without a results list.`, 'Ask the user to check CLAMP_SEARCH_URL (a SearXNG-compatible endpoint).');
  }
  const { hits, dropped } = found;
  const skipped = dropped ? ` (${formatCount(dropped)} result${dropped === 1 ? '' : 's'} without an http(s) URL or repeated were skipped)` : '';
  if (hits.length === 0) {
    return { output: `No results for ${q}${skipped}. Try other words, or fewer of them.`, meta: { query: input.query, results: [] } };
  }
  return listHits(input.query, q, hits, skipped, count, b);
}

export const webSearchTool = defineTool({
  name: 'web_search',
  effect: 'system',
  traits: { deferRank: 2, hookAs: { name: 'WebSearch' }, activity: 'fetch' },
  schema,
  describe,
  nonEmpty: ['query'],
  summary: (input, r?: ToolResult<WebSearchMeta>) =>
    `${JSON.stringify(clipLine(input.query, 120))}${r?.meta?.results ? ` (${formatCount(r.meta.results.length)} shown)` : ''}`,
  available: (ctx) => searchEndpoint(ctx) !== undefined,
  run,
});
