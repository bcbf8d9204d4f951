import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { webSearchTool } from '../../lib/tools/web/web-search';
import { webFetchTool } from '../../lib/tools/web/web-fetch';
import { budgetTable } from '../../lib/contract/budget';
import { createRegistry, listedTools } from '../../lib/dispatch/registry';
import { harness, toolBed } from '../helpers';

/** A fake SearXNG: /search?q=…&format=json; the query picks the answer. */
const seen: string[] = [];
function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const u = new URL(req.url ?? '/', 'http://x');
  seen.push(u.search);
  const q = u.searchParams.get('q') ?? '';
  if (u.pathname !== '/search' || u.searchParams.get('format') !== 'json') return void res.writeHead(404).end();
  const json = (data: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(data));
  if (q === 'many') {
    json({
      results: Array.from({ length: 12 }, (_, i) => ({ title: `Result ${i + 1}`, url: `https://example.com/${i + 1}`, content: `About  item\n${i + 1}.` })),
    });
  } else if (q === 'long') {
    json({ results: [{ title: 'T'.repeat(300), url: 'https://example.com/long', content: 'word '.repeat(200) }] });
  } else if (q === 'messy') {
    json({
      results: [
        { title: 'Good', url: 'https://a.example/', content: '' },
        { title: 'Again', url: 'https://a.example/', content: 'repeat' },
        { title: 'No URL' },
        { title: 'Script', url: 'javascript:alert(1)' },
        { url: 'http://b.example/x', content: 'untitled' },
      ],
    });
  } else if (q === 'none') {
    json({ results: [] });
  } else if (q === 'html') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>JSON is disabled</html>');
  } else if (q === 'shape') {
    json({ answers: [] });
  } else if (q === 'fail') {
    res.writeHead(503).end();
  } else if (q === 'slow') {
    // never answers
  } else {
    json({ results: [{ title: `You searched ${q}`, url: 'https://example.com/q', content: 'A snippet.' }] });
  }
}

let server: http.Server;
let endpoint: string;
beforeAll(async () => {
  server = http.createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const bed = toolBed([webSearchTool], () => ({ services: { searchUrl: endpoint } }));
beforeEach(() => {
  seen.length = 0;
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const search = (args: Record<string, unknown>, extra = {}) => bed.h.call('web_search', args, extra);

describe('web_search: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(webSearchTool.schema)).toMatchSnapshot();
  });

  it('describes itself from the budget and names web_fetch and grep', () => {
    const text = webSearchTool.describe(budgetTable({ WEB_SEARCH_DEFAULT_RESULTS: 3, WEB_SEARCH_MAX_RESULTS: 7, WEB_SEARCH_SNIPPET_MAX_BYTES: 250 }));
    expect(text).toContain('(default 3, at most 7 with count)');
    expect(text).toContain('(cut to 250 bytes)');
    expect(text).toContain('to read a page, call web_fetch with its URL');
    expect(text).toContain('For code and files in the workspace use grep and glob, not web_search.');
    expect(webSearchTool.effect).toBe('system');
  });

  it('is listed only when CLAMP_SEARCH_URL (or the searchUrl service) is set', () => {
    const reg = createRegistry([webFetchTool, webSearchTool]);
    const ctx = { workspace: bed.ws.workspace, dataDir: bed.ws.dataDir, services: {} };
    vi.stubEnv('CLAMP_SEARCH_URL', '');
    expect(listedTools(reg, 'default', ctx).map((t) => t.name)).toEqual(['web_fetch']);
    vi.stubEnv('CLAMP_SEARCH_URL', endpoint);
    expect(listedTools(reg, 'default', ctx).map((t) => t.name)).toEqual(['web_fetch', 'web_search']);
    vi.stubEnv('CLAMP_SEARCH_URL', '');
    expect(listedTools(reg, 'default', { ...ctx, services: { searchUrl: endpoint } }).map((t) => t.name)).toEqual(['web_fetch', 'web_search']);
  });
});

describe('web_search: results', () => {
  it('asks the provider for JSON and lists title, URL and snippet', async () => {
    const r = await search({ query: 'clamp agent' });
    expect(r.status).toBe('ok');
    expect(seen).toEqual(['?q=clamp+agent&format=json']);
    expect(r.output).toBe('1 of 1 results for "clamp agent":\n1. You searched clamp agent\n   https://example.com/q\n   A snippet.\nRead a page with web_fetch.');
    expect(r.truncation).toBeNull();
  });

  it('reads CLAMP_SEARCH_URL at call time', async () => {
    vi.stubEnv('CLAMP_SEARCH_URL', endpoint);
    const r = await harness([webSearchTool], bed.ws).call('web_search', { query: 'env' });
    expect(r.output.split('\n')[1]).toBe('1. You searched env');
  });

  it('returns the default count, says how many more there are, and count raises it to the cap', async () => {
    let r = await search({ query: 'many' });
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('5 of 12 results for "many":');
    expect(lines.slice(1, 4)).toEqual(['1. Result 1', '   https://example.com/1', '   About item 1.']);
    expect(lines.at(-1)).toBe('[7 more results not shown: ask for up to 10 with count, or refine the query.] Read a page with web_fetch.');
    expect(r.truncation).toEqual({ unit: 'items', shown: 5, total: 12, by: 'tool' });
    expect(r.hint).toBe('7 more results: ask for up to 10 with count, or refine the query.');
    r = await search({ query: 'many', count: 10 });
    expect(r.output.split('\n')[0]).toBe('10 of 12 results for "many":');
    expect(r.output.split('\n').at(-1)).toBe('[2 more results not shown: refine the query to see others.] Read a page with web_fetch.');
    r = await search({ query: 'many', count: 11 });
    expect(r.output).toBe('Invalid arguments for web_search:\n- `count`: Too big: expected number to be <=10\nFix the arguments and call web_search again.');
  });

  it('cuts titles and snippets to their caps', async () => {
    const r = await search({ query: 'long' }, { budget: { WEB_SEARCH_SNIPPET_MAX_BYTES: 20, WEB_SEARCH_TITLE_MAX_BYTES: 10 } });
    expect(r.output).toBe(
      '1 of 1 results for "long":\n1. TTTTTTTTTT… [line cut: 290 more bytes]\n   https://example.com/long\n   word word word word … [line cut: 979 more bytes]\nRead a page with web_fetch.',
    );
  });

  it('skips results without an http(s) URL and repeats, and counts them', async () => {
    const r = await search({ query: 'messy' });
    expect(r.output).toBe(
      '2 of 2 results for "messy" (3 results without an http(s) URL or repeated were skipped):\n1. Good\n   https://a.example/\n2. (no title)\n   http://b.example/x\n   untitled\nRead a page with web_fetch.',
    );
  });

  it('no results says so with a next step', async () => {
    expect((await search({ query: 'none' })).output).toBe('No results for "none". Try other words, or fewer of them.');
  });
});

describe('web_search: errors with a next step', () => {
  it('without a provider it says how to configure one', async () => {
    vi.stubEnv('CLAMP_SEARCH_URL', '');
    const r = await harness([webSearchTool], bed.ws).call('web_search', { query: 'x' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'web_search has no search provider configured.\nAsk the user to set CLAMP_SEARCH_URL to a SearXNG-compatible JSON endpoint (for example http://localhost:8888/search), or use web_fetch on a URL you know.',
    );
  });

  it('a provider that fails, answers HTML, or answers without results', async () => {
    expect((await search({ query: 'fail' })).output).toBe(
      `The search provider at ${endpoint} answered HTTP 503 Service Unavailable.\nTry again later; if it keeps failing, ask the user to check the search service (CLAMP_SEARCH_URL).`,
    );
    expect((await search({ query: 'html' })).output).toBe(
      `The search provider at ${endpoint} did not answer with JSON (content type text/html).\nCLAMP_SEARCH_URL must be a SearXNG-compatible endpoint with the JSON format enabled; ask the user to check it.`,
    );
    expect((await search({ query: 'shape' })).output).toBe(
      `The search provider at ${endpoint} answered JSON without a results list.\nAsk the user to check CLAMP_SEARCH_URL (a SearXNG-compatible endpoint).`,
    );
  });

  it('a provider that never answers times out', async () => {
    const r = await search({ query: 'slow' }, { budget: { WEB_CONNECT_TIMEOUT_MS: 200 } });
    expect(r.output).toBe(
      `web_search timed out after 200 ms waiting for ${endpoint}?q=slow&format=json to answer (no response headers).\nThe server may be down or very slow: check the URL, or try again later.`,
    );
  });

  it('an empty query is refused before any request', async () => {
    const r = await search({ query: '  ' });
    expect(r.output).toBe('Invalid arguments for web_search:\n- `query`: must not be empty.\nPass a non-empty query and call web_search again.');
    expect(seen).toEqual([]);
  });
});
