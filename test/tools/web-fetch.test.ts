import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { webFetchMaxBytes, webFetchTool } from '../../lib/tools/web/web-fetch';
import { budgetTable } from '../../lib/contract/budget';
import { toolBed } from '../helpers';

const PAGE = `<!doctype html><html><head><title>The  Guide</title><style>body{}</style><script>alert(1)</script></head>
<body><h1>Getting started</h1><p>Read the <a href="/docs/api.html">API reference</a> or <a href="https://example.org/x">elsewhere</a>.</p>
<h2>Install</h2><pre><code class="language-sh">npm install clamp
</code></pre><ul><li>one</li><li>two</li></ul></body></html>`;

const SLOW_HEAD = '<p>the first bytes, then nothing more</p>';
const HUGE_BYTES = 5 * 1024 * 1024;
const hugeLine = '<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit.</p>\n';

let server: http.Server;
let base: string;
let port: number;

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const u = new URL(req.url ?? '/', 'http://x');
  switch (u.pathname) {
    case '/page':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    case '/huge': {
      // chunked, no Content-Length: the size reported must be what was counted
      res.writeHead(200, { 'content-type': 'text/html' });
      let sent = 0;
      const pump = () => {
        while (sent < HUGE_BYTES) {
          const chunk = hugeLine.repeat(1000).slice(0, HUGE_BYTES - sent);
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    case '/slow':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(SLOW_HEAD);
      return; // never ends
    case '/hang':
      return; // never answers
    case '/image.png':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '20480' }).end(Buffer.alloc(20480));
      return;
    case '/mystery':
      res.writeHead(200, { 'content-type': '' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
      return;
    case '/text':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('plain <b>text</b>\n');
      return;
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"a": [1, 2]}');
      return;
    case '/accents':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('é'.repeat(100));
      return;
    case '/latin1':
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      return;
    case '/same':
      res.writeHead(302, { location: '/hop' }).end();
      return;
    case '/hop':
      res.writeHead(301, { location: `${base}/page` }).end();
      return;
    case '/other':
      res.writeHead(302, { location: `http://localhost:${port}/page` }).end();
      return;
    case '/loop':
      res.writeHead(307, { location: `/loop?n=${Number(u.searchParams.get('n') ?? 0) + 1}` }).end();
      return;
    case '/missing':
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not here</h1><p>No   such page.</p></body></html>');
      return;
    case '/broken':
      res.writeHead(500, { 'content-type': 'text/plain' }).end('database is down');
      return;
    default:
      res.writeHead(204).end();
  }
}

beforeAll(async () => {
  server = http.createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const bed = toolBed([webFetchTool]);

const fetchUrl = (args: Record<string, unknown>, extra = {}) => bed.h.call('web_fetch', args, extra);
const MAX = webFetchMaxBytes(budgetTable());

describe('web_fetch: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(webFetchTool.schema)).toMatchSnapshot();
  });

  it('max_bytes tops out at what the exit clamp can deliver after the notes reserve', () => {
    const b = budgetTable();
    expect(MAX).toBe(b.TOOL_OUTPUT_MAX_BYTES - b.WEB_FETCH_NOTES_RESERVE_BYTES);
    expect(webFetchMaxBytes(budgetTable({ TOOL_OUTPUT_MAX_BYTES: 6000 }))).toBe(6000 - b.WEB_FETCH_NOTES_RESERVE_BYTES);
    expect(z.toJSONSchema(webFetchTool.schema)).toMatchObject({
      properties: { max_bytes: { maximum: MAX, description: expect.stringContaining(`1 to ${MAX} `) } },
    });
  });

  it('describes itself from the budget and names its siblings', () => {
    const text = webFetchTool.describe(
      budgetTable({ TOOL_OUTPUT_MAX_BYTES: 10_000, WEB_FETCH_NOTES_RESERVE_BYTES: 1000, WEB_RESPONSE_MAX_BYTES: 1024 * 1024, WEB_REDIRECT_MAX_COUNT: 3 }),
    );
    expect(text).toContain('(default and maximum 9,000 bytes)');
    expect(text).toContain('read up to 1.0 MB');
    expect(text).toContain('(up to 3)');
    expect(text).toContain('Gives up after 15 s without an answer, 30 s in all.');
    expect(text).toContain('To find pages by topic use web_search (when listed). For files in the workspace use read_file, not web_fetch.');
    expect(webFetchTool.effect).toBe('system');
  });
});

describe('web_fetch: pages', () => {
  it('turns an HTML page into Markdown with its title, headings and absolute links', async () => {
    const r = await fetchUrl({ url: `${base}/page` });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      [
        `URL: ${base}/page`,
        `Status: 200 OK · text/html · ${Buffer.byteLength(PAGE)} bytes received`,
        'Title: The Guide',
        '',
        '# Getting started',
        '',
        `Read the [API reference](${base}/docs/api.html) or [elsewhere](https://example.org/x).`,
        '',
        '## Install',
        '',
        '```sh',
        'npm install clamp',
        '```',
        '',
        '-   one',
        '-   two',
      ].join('\n'),
    );
    expect(r.truncation).toBeNull();
    expect(r.meta).toMatchObject({ status: 200, finalUrl: `${base}/page`, receivedBytes: Buffer.byteLength(PAGE), complete: true, title: 'The Guide' });
  });

  it('shows plain text and JSON as they are, and decodes the declared charset', async () => {
    expect((await fetchUrl({ url: `${base}/text` })).output).toBe(`URL: ${base}/text\nStatus: 200 OK · text/plain · 18 bytes received\n\nplain <b>text</b>`);
    expect((await fetchUrl({ url: `${base}/json` })).output).toBe(`URL: ${base}/json\nStatus: 200 OK · application/json · 13 bytes received\n\n{"a": [1, 2]}`);
    expect((await fetchUrl({ url: `${base}/latin1` })).output.endsWith('\n\ncafé')).toBe(true);
  });

  it('a huge page: the body is capped, the rest drained and counted, the text clipped with a way to the rest', async () => {
    const r = await fetchUrl({ url: `${base}/huge` }, { budget: { WEB_RESPONSE_MAX_BYTES: 64 * 1024 } });
    expect(r.status).toBe('ok');
    expect(r.output.split('\n').slice(0, 2)).toEqual([`URL: ${base}/huge`, 'Status: 200 OK · text/html · 5.0 MB received']);
    expect(r.meta).toMatchObject({ receivedBytes: HUGE_BYTES, complete: true });
    const spill = r.truncation!.spillPath!;
    const full = fs.readFileSync(spill, 'utf8');
    const lines = full.split('\n').length;
    expect(r.truncation).toMatchObject({ unit: 'bytes', total: Buffer.byteLength(full), by: 'tool' });
    const shown = r.truncation!.shown;
    const shownLines = lines - r.truncation!.omittedLines!;
    expect(shown).toBeLessThanOrEqual(MAX);
    expect(shown).toBeGreaterThan(MAX * 0.75); // cut on a line end when one is in the last quarter
    expect(r.output).toContain(
      `[Text cut at ${shown.toLocaleString('en-US')} of ${Buffer.byteLength(full).toLocaleString('en-US')} bytes (${shownLines.toLocaleString('en-US')} of ${lines.toLocaleString('en-US')} lines shown). ` +
        `The full text is saved at ${spill}: read it with read_file (offset=${shownLines + 1} to continue) or search it with grep.]`,
    );
    expect(r.output).toContain(
      `[Response body cut: converted the first 64.0 KB of 5.0 MB received; the rest was counted, not converted. For all of it, download it with run_command (curl -o page.html '${base}/huge') and read the file.]`,
    );
    expect(r.hint).toBe(`Read the rest with read_file ${spill} offset=${shownLines + 1}.`);
    expect(r.meta?.bodyTruncation).toEqual({ unit: 'bytes', shown: 64 * 1024, total: HUGE_BYTES, by: 'tool' });
    // the notes fit under the exit clamp: no second cut by dispatch
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(budgetTable().TOOL_OUTPUT_MAX_BYTES);
  });

  it('counting past WEB_DRAIN_MAX_BYTES stops and says the total is a lower bound', async () => {
    const r = await fetchUrl({ url: `${base}/huge` }, { budget: { WEB_RESPONSE_MAX_BYTES: 16 * 1024, WEB_DRAIN_MAX_BYTES: 1024 * 1024 } });
    // counting stops within one network chunk past the cap (a loaded machine hands over bigger chunks)
    expect(r.output.split('\n')[1]).toMatch(/^Status: 200 OK · text\/html · at least 1\.\d+ MB received$/);
    expect(r.output).toContain('the rest was counted, not converted (counting stopped there).');
    expect(r.meta).toMatchObject({ complete: false });
  });

  it('max_bytes clips the text on a character boundary; past a lowered exit clamp it is lowered and said; past the maximum refused', async () => {
    let r = await fetchUrl({ url: `${base}/accents`, max_bytes: 51 });
    const text = r.output.split('\n')[3];
    expect(text).toBe('é'.repeat(25));
    expect(r.truncation).toMatchObject({ unit: 'bytes', shown: 50, total: 200, by: 'tool' });
    r = await fetchUrl({ url: `${base}/page`, max_bytes: MAX }, { budget: { TOOL_OUTPUT_MAX_BYTES: 5000 } });
    expect(r.output.endsWith(`\n\n[max_bytes ${MAX.toLocaleString('en-US')} is more than one result can hold here; used 3,500.]`)).toBe(true);
    r = await fetchUrl({ url: `${base}/page`, max_bytes: MAX + 1 });
    expect(r.output).toBe(`Invalid arguments for web_fetch:\n- \`max_bytes\`: Too big: expected number to be <=${MAX}\nFix the arguments and call web_fetch again.`);
    r = await fetchUrl({ url: `${base}/page`, max_bytes: 0 });
    expect(r.status).toBe('error');
  });

  it('a lower per-step budget lowers the clip so the notes still arrive', async () => {
    const r = await fetchUrl({ url: `${base}/huge` }, { budget: { TOOL_OUTPUT_MAX_BYTES: 4000, WEB_RESPONSE_MAX_BYTES: 32 * 1024 } });
    expect(r.truncation?.by).toBe('tool');
    expect(r.truncation!.shown).toBeLessThanOrEqual(4000 - budgetTable().WEB_FETCH_NOTES_RESERVE_BYTES);
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(4000);
  });
});

describe('web_fetch: redirects', () => {
  it('follows same-host redirects and says so', async () => {
    const r = await fetchUrl({ url: `${base}/same` });
    expect(r.status).toBe('ok');
    expect(r.output.split('\n').slice(0, 3)).toEqual([`URL: ${base}/page`, `Redirected from: ${base}/same (2 same-host redirects)`, expect.stringMatching(/^Status: 200 OK/)]);
    expect(r.meta?.redirects).toEqual([`${base}/same`, `${base}/hop`]);
  });

  it('reports a redirect to another host without following it', async () => {
    const r = await fetchUrl({ url: `${base}/other` });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      `${base}/other redirects (302 Found) to another host: http://localhost:${port}/page\n` +
        'Not followed: web_fetch follows redirects only within the same host. If you trust the new address, call web_fetch again with it as url.',
    );
    expect(r.hint).toBe(`To follow the redirect, call web_fetch with url http://localhost:${port}/page`);
    expect(r.meta?.redirect).toEqual({ status: 302, location: `http://localhost:${port}/page` });
  });

  it('stops after WEB_REDIRECT_MAX_COUNT same-host redirects', async () => {
    const r = await fetchUrl({ url: `${base}/loop` }, { budget: { WEB_REDIRECT_MAX_COUNT: 2 } });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `${base}/loop redirected 2 times within 127.0.0.1:${port} and was sent on again (to ${base}/loop?n=3); web_fetch stopped there. The site may redirect in a loop.\n` +
        'Try the last URL directly, or another page of the site.',
    );
  });
});

describe('web_fetch: errors with a next step', () => {
  it('404 and 500 give the status and an excerpt of the page', async () => {
    let r = await fetchUrl({ url: `${base}/missing` });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `HTTP 404 Not Found from ${base}/missing.\nThe page says: # Not here No such page.\n` +
        "Check the URL: the page may have moved (look for it from the site's front page, or with web_search when listed).",
    );
    r = await fetchUrl({ url: `${base}/broken` });
    expect(r.output).toBe(`HTTP 500 Internal Server Error from ${base}/broken.\nThe page says: database is down\nThe server failed: try again later.`);
  });

  it('binary content is refused by type and size, without its bytes', async () => {
    let r = await fetchUrl({ url: `${base}/image.png` });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `${base}/image.png is image/png (20.0 KB declared), not text; web_fetch returns text only and did not keep its bytes.\n` +
        `To save the file, download it with run_command (curl -o <file> '${base}/image.png').`,
    );
    r = await fetchUrl({ url: `${base}/mystery` });
    expect(r.output.split('\n')[0]).toBe(`${base}/mystery is binary data with no content type (8 bytes received, with NUL bytes), not text; web_fetch returns text only and did not keep its bytes.`);
  });

  it('only http and https; a bad URL says what is needed', async () => {
    let r = await fetchUrl({ url: 'file:///etc/passwd' });
    expect(r.output).toBe('web_fetch fetches only http:// and https:// URLs; this one is file:. For files in the workspace use read_file.');
    r = await fetchUrl({ url: 'ftp://example.com/x' });
    expect(r.output).toBe('web_fetch fetches only http:// and https:// URLs; this one is ftp:. Use an http:// or https:// URL instead.');
    r = await fetchUrl({ url: 'example.com/page' });
    expect(r.output).toBe('Not a valid URL: example.com/page. web_fetch needs an absolute URL such as https://example.com/page.');
    r = await fetchUrl({ url: ' ' });
    expect(r.output).toBe('Invalid arguments for web_fetch:\n- `url`: must not be empty.\nPass a non-empty url and call web_fetch again.');
  });

  it('a page that never finishes times out with a clear error', async () => {
    const t0 = Date.now();
    const r = await fetchUrl({ url: `${base}/slow` }, { budget: { WEB_TOTAL_TIMEOUT_MS: 300 } });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `web_fetch timed out after 300 ms reading ${base}/slow (${SLOW_HEAD.length} bytes received); the server had not finished sending.\n` +
        'The page may be slow or stream without end: try again later, or another URL.',
    );
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a server that never answers hits the connect timeout', async () => {
    const r = await fetchUrl({ url: `${base}/hang` }, { budget: { WEB_CONNECT_TIMEOUT_MS: 200 } });
    expect(r.output).toBe(
      `web_fetch timed out after 200 ms waiting for ${base}/hang to answer (no response headers).\nThe server may be down or very slow: check the URL, or try again later.`,
    );
  });

  it('a refused connection names the host and the cause', async () => {
    const spare = http.createServer();
    await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
    const closed = (spare.address() as AddressInfo).port;
    await new Promise((r) => spare.close(r));
    const r = await fetchUrl({ url: `http://127.0.0.1:${closed}/` });
    expect(r.output).toBe(`web_fetch could not reach 127.0.0.1:${closed}: the connection was refused (nothing listens there).\nCheck the URL (host and port), or try again later.`);
  });

  it('the user stopping the turn stops the fetch', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const r = await fetchUrl({ url: `${base}/slow` }, { signal: ctl.signal });
    expect(r.status).toBe('error');
    expect(r.output).toBe('web_fetch was stopped by the user.');
  });
});
