import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { beforeAll, escape, escapes, toolBatch, type BatchResult, type Host } from './harness';
import { startClampAs, type HostClamp } from './server';
import { startFakeOpenAI } from '../fake-openai';
import { readChunks } from '../server/harness';
import { lastToolText } from '../server/chat-turn';
import { messageText } from '../e2e/scenarios';
import { ensureBuild } from '../../lib/server/build';

/**
 * web_fetch against the host's own services: the harness's loopback listener stands for a database, a dev server
 * or a metadata endpoint. What is checked is the listener: in auto mode it sees no connection, whatever the URL's
 * spelling, through the tool CLI and through the real server with a stand-in model.
 */


/** Loopback (and other local) spellings aimed at the host's listener, and local places that must not be tried. */
function localUrls(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://localhost.:${port}/`, `http://127.1:${port}/`,
    `http://0x7f000001:${port}/`, `http://2130706433:${port}/`, `http://0177.0.0.1:${port}/`, `http://0.0.0.0:${port}/`,
    `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, `http://[64:ff9b::7f00:1]:${port}/`,
    `https://127.0.0.1:${port}/`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://172.16.0.1/',
    'http://192.168.0.1/', 'http://100.64.0.1/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://224.0.0.1/',
  ];
}

type WebResult = BatchResult & { args: { url: string } };

async function batch(host: Host, urls: string[], mode: string): Promise<WebResult[]> {
  return (await toolBatch(host, urls.map((url) => ({ name: 'web_fetch', args: { url } })), mode, 120_000)) as WebResult[];
}

/** A refusal (or, for a name the resolver does not know, a failure to resolve): nothing was connected to. */
function expectNotReached(r: { status: string; output: string }, url: string): void {
  if (r.status === 'error' && /the host name could not be resolved/.test(r.output)) return;
  expect(r.status, `${url}: ${r.output}`).toBe('denied');
  expect(r.output, url).toMatch(/^web_fetch was refused: .* is at .+ \(.+\), a local address: .*web_fetch does not reach local addresses in auto mode\./);
}

/** An HTTP server in the test process answering every path with a redirect to `location(req)`. */
async function redirector(location: (url: string) => string): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => res.writeHead(302, { location: location(req.url ?? '/') }).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

escapes('web_fetch', () => {
  escape(
    {
      tries: 'auto mode: web_fetch of the host\'s loopback listener in every spelling (127.0.0.1, localhost, localhost., 127.1, 0x7f000001, 2130706433, 0177.0.0.1, 0.0.0.0, [::1], [::ffff:127.0.0.1], NAT64 [64:ff9b::7f00:1], https) and of private, link-local (169.254.169.254), CGNAT, ULA and multicast addresses, through the tool CLI',
      checks: 'the loopback listener saw no connection; every call was refused naming the address',
      timeoutMs: 180_000,
    },
    async (host) => {
      const urls = localUrls(host.port);
      const results = await batch(host, urls, 'auto');
      expect(results.length).toBe(urls.length);
      for (const r of results) expectNotReached(r, r.args.url);
      for (const url of [`http://127.0.0.1:${host.port}/`, `http://localhost:${host.port}/`]) {
        const r = await host.tool('web_fetch', { url }, { mode: 'auto' });
        expectNotReached(r, url);
        expect(r.output).toContain(`127.0.0.1 (loopback)`);
      }
      expect(host.hits()).toBe(0);
    },
  );

  escape(
    {
      tries: 'default mode: web_fetch of the loopback listener without an approval, then a redirect from an approved local page to the listener, through the tool CLI',
      checks: 'the listener saw no connection: the call waits for approval naming 127.0.0.1, and the redirect to another host is reported, not followed',
      timeoutMs: 120_000,
    },
    async (host) => {
      const url = `http://127.0.0.1:${host.port}/`;
      const asked = await host.tool('web_fetch', { url }, { mode: 'default' });
      expect(asked.status).toBe('approval-required');
      expect(asked.output).toBe(`web_fetch needs the user's approval: 127.0.0.1:${host.port} is at 127.0.0.1 (loopback), a local address: a service on this machine or its network, not the web.`);
      const away = await redirector(() => `http://localhost:${host.port}/`);
      try {
        const r = await host.tool('web_fetch', { url: `http://127.0.0.1:${away.port}/start` }, { mode: 'default', approve: true });
        expect(r.status).toBe('ok');
        expect(r.output).toContain('Not followed: web_fetch follows redirects only within the same host.');
      } finally {
        await away.close();
      }
      expect(host.hits()).toBe(0);
      // the person's approval does reach the host it names (the listener answers with a line, not HTTP)
      await host.tool('web_fetch', { url }, { mode: 'default', approve: true });
      expect(host.hits()).toBe(1);
    },
  );
});

escapes('web_fetch through the real server with a stand-in model', () => {
  // the page is built before the cases, outside their time (a cold build takes minutes on a busy machine)
  beforeAll(async () => {
    if (!(await ensureBuild())) throw new Error('The page did not build; run `npm run build` to see why.');
  }, 900_000);

  escape(
    {
      tries: 'auto mode: a stand-in model asks the real server for web_fetch of the loopback listener (127.0.0.1, then localhost, then 0x7f000001)',
      checks: 'the listener saw no connection and the model was told each call was refused, naming 127.0.0.1',
      timeoutMs: 400_000,
    },
    async (host) => {
      const targets = [`http://127.0.0.1:${host.port}/`, `http://localhost:${host.port}/admin`, `http://0x7f000001:${host.port}/`];
      const fake = await startFakeOpenAI((req) => {
        const last = req.body.messages[req.body.messages.length - 1];
        if (last.role !== 'user') return { text: 'Done.' };
        const url = messageText(last).replace(/^fetch /, '').trim();
        return { toolCalls: [{ name: 'web_fetch', args: { url }, id: `call_web_${Date.now()}` }] };
      });
      let clamp: HostClamp | undefined;
      try {
        clamp = await startClampAs(host, { CLAMP_MODE: 'auto', CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url });
        for (const target of targets) {
          const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
          const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-${Date.now()}`, text: `fetch ${target}` } } });
          expect(chat.status).toBe(200);
          await readChunks(chat);
          const seen = lastToolText(fake.requests.at(-1)!);
          expect(seen, target).toMatch(/^web_fetch was refused: .* is at 127\.0\.0\.1 \(loopback\), a local address: .*web_fetch does not reach local addresses in auto mode\./);
        }
      } finally {
        await clamp?.stop();
        await fake.close();
      }
      expect(host.hits()).toBe(0);
    },
  );
});
