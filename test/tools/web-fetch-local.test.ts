import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { webFetchTool } from '../../lib/tools/web/web-fetch';
import { localKind, v6ToBigInt } from '../../lib/tools/web/addresses';
import { fetchPolicy } from '../../lib/tools/web/fetch-policy';
import { toolBed } from '../helpers';
import { createContext } from '../../lib/dispatch/context';
import { createRegistry } from '../../lib/dispatch/registry';
import { dispatch, judge } from '../../lib/dispatch/dispatch';
import { approvalInfo } from '../../lib/agent/agent-tools';
import type { PolicyDecision } from '../../lib/contract/types';

/**
 * web_fetch and addresses that are not the web: what counts as local, the verdict in each mode, and the
 * request itself (checked again and connected to what was checked, on every redirect too).
 */

interface Listener {
  server: http.Server;
  port: number;
  hits: number;
}

async function listen(host: string, route: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, r) => r.end('local page\n')): Promise<Listener> {
  const l = { hits: 0 } as Listener;
  l.server = http.createServer((req, res) => {
    l.hits++;
    route(req, res);
  });
  await new Promise<void>((r) => l.server.listen(0, host, r));
  l.port = (l.server.address() as AddressInfo).port;
  return l;
}

let a: Listener;
let b: Listener;
beforeAll(async () => {
  a = await listen('127.0.0.1', (req, res) => {
    if (req.url === '/hop') res.writeHead(302, { location: '/next' }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('local page\n');
  });
  b = await listen('127.0.0.2');
});
afterAll(async () => {
  for (const l of [a, b]) {
    l.server.closeAllConnections();
    await new Promise((r) => l.server.close(r));
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  a.hits = 0;
  b.hits = 0;
});

const bed = toolBed([webFetchTool]);

/** dns.promises.lookup answering from a script, one answer per call (the last repeats). */
function scriptedDns(...answers: string[][]) {
  let i = 0;
  return vi.spyOn(dns.promises, 'lookup').mockImplementation((async () => {
    const list = answers[Math.min(i++, answers.length - 1)];
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as unknown as typeof dns.promises.lookup);
}

describe('what is local', () => {
  it('names every range that is not the public web, and passes the web', () => {
    const local: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '127.255.0.9': 'loopback',
      '10.1.2.3': 'private, 10.0.0.0/8',
      '172.16.0.1': 'private, 172.16.0.0/12',
      '172.31.255.255': 'private, 172.16.0.0/12',
      '192.168.1.1': 'private, 192.168.0.0/16',
      '169.254.169.254': 'link-local: the cloud metadata service',
      '169.254.1.1': 'link-local, 169.254.0.0/16',
      '100.64.0.1': 'carrier-grade NAT, 100.64.0.0/10',
      '0.0.0.0': '"this network", 0.0.0.0/8',
      '224.0.0.1': 'multicast, 224.0.0.0/4',
      '255.255.255.255': 'reserved, 240.0.0.0/4 (broadcast included)',
      '::1': 'loopback',
      '::': 'unspecified, ::',
      'fd00::1': 'unique local, fc00::/7',
      'fc12:3456::1': 'unique local, fc00::/7',
      'fe80::1': 'link-local, fe80::/10',
      'fe80::1%eth0': 'link-local, fe80::/10',
      'ff02::1': 'multicast, ff00::/8',
      '::ffff:127.0.0.1': 'IPv4-mapped 127.0.0.1: loopback',
      '::ffff:7f00:1': 'IPv4-mapped 127.0.0.1: loopback',
      '::ffff:a9fe:a9fe': 'IPv4-mapped 169.254.169.254: link-local: the cloud metadata service',
      '64:ff9b::7f00:1': 'NAT64 of 127.0.0.1: loopback',
      '64:ff9b::10.0.0.1': 'NAT64 of 10.0.0.1: private, 10.0.0.0/8',
      '64:ff9b:1::1': 'local-use NAT64, 64:ff9b:1::/48',
      '2002:7f00:1::1': '6to4 of 127.0.0.1: loopback',
      '::127.0.0.1': 'not a global unicast address (outside 2000::/3)',
      '2001:db8::1': 'documentation, 2001:db8::/32',
      '2001:0:4136:e378::1': 'IETF protocol assignments, 2001::/23 (Teredo included)',
    };
    for (const [address, kind] of Object.entries(local)) expect(localKind(address), address).toBe(kind);
    for (const address of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(localKind(address), address).toBeNull();
    }
    expect(v6ToBigInt('::1')).toBe(1n);
    expect(v6ToBigInt('1::2::3')).toBeNull();
  });

  it('odd spellings of loopback reach the check as the address they spell', () => {
    for (const spelled of ['127.1', '0x7f000001', '2130706433', '0177.0.0.1', '127.000.000.001']) {
      expect(new URL(`http://${spelled}:8080/`).hostname, spelled).toBe('127.0.0.1');
    }
    expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });
});

describe('the verdict', () => {
  it('auto mode refuses a local host naming its address; the other modes ask, and only about these addresses', async () => {
    const url = `http://127.0.0.1:${a.port}/`;
    expect(await fetchPolicy(url, 'auto')).toEqual({
      action: 'deny',
      reason: `127.0.0.1:${a.port} is at 127.0.0.1 (loopback), a local address: a service on this machine or its network, not the web; web_fetch does not reach local addresses in auto mode`,
      localAddresses: ['127.0.0.1'],
    });
    for (const mode of ['default', 'accept-edits', 'debug'] as const) {
      expect(await fetchPolicy(url, mode)).toEqual({
        action: 'ask',
        opaque: true,
        reason: `127.0.0.1:${a.port} is at 127.0.0.1 (loopback), a local address: a service on this machine or its network, not the web`,
        localAddresses: ['127.0.0.1'],
      });
    }
    expect(await fetchPolicy('http://[::1]/', 'auto')).toMatchObject({ action: 'deny', localAddresses: ['::1'] });
    expect(await fetchPolicy('http://169.254.169.254/latest/meta-data/', 'auto')).toMatchObject({
      action: 'deny',
      reason: expect.stringContaining('169.254.169.254 (link-local: the cloud metadata service)'),
    });
  });

  it('a name is judged by every address it resolves to', async () => {
    scriptedDns(['93.184.216.34', '10.0.0.7']);
    expect(await fetchPolicy('https://mixed.example/', 'auto')).toMatchObject({ action: 'deny', reason: expect.stringContaining('10.0.0.7 (private, 10.0.0.0/8)') });
    vi.restoreAllMocks();
    scriptedDns(['93.184.216.34']);
    expect(await fetchPolicy('https://public.example/', 'auto')).toEqual({ action: 'ask', reason: 'fetches a page from public.example on the web (93.184.216.34)' });
  });
});

describe('the request', () => {
  it('auto mode: every spelling of a local address is refused and nothing is connected to', async () => {
    const p = a.port;
    const urls = [
      `http://127.0.0.1:${p}/`, `http://localhost:${p}/`, `http://localhost.:${p}/`, `http://127.1:${p}/`, `http://0x7f000001:${p}/`,
      `http://2130706433:${p}/`, `http://0.0.0.0:${p}/`, `http://[::ffff:127.0.0.1]:${p}/`, `http://[::1]:${p}/`, `http://127.0.0.2:${b.port}/`,
    ];
    for (const url of urls) {
      const r = await bed.h.call('web_fetch', { url }, { mode: 'auto' });
      // a resolver may not answer for "localhost." at all: then nothing is reached either
      if (url.includes('localhost.') && r.status === 'error') {
        expect(r.output).toMatch(/could not reach localhost\.:\d+: the host name could not be resolved/);
        continue;
      }
      expect(r.status, url).toBe('denied');
      expect(r.output, url).toMatch(/^web_fetch was refused: .* is at .*(loopback|this network|could not).*web_fetch does not reach local addresses in auto mode\. Do not retry it; ask the user what to do instead\.$/);
    }
    expect(a.hits + b.hits).toBe(0);
  });

  it('another mode asks first; the approved call reaches exactly that host', async () => {
    const url = `http://127.0.0.1:${a.port}/`;
    const asked = await bed.h.call('web_fetch', { url }, {}, { approver: { approved: false } });
    expect(asked.status).toBe('approval-required');
    expect(asked.output).toBe(`web_fetch needs the user's approval: 127.0.0.1:${a.port} is at 127.0.0.1 (loopback), a local address: a service on this machine or its network, not the web.`);
    expect(a.hits).toBe(0);
    const approved = await bed.h.call('web_fetch', { url });
    expect(approved.status).toBe('ok');
    expect(approved.output).toContain('local page');
    expect(a.hits).toBe(1);
  });

  it('the approval record keeps the addresses, and the call resumed on it reaches them (and only them)', async () => {
    const url = `http://127.0.0.1:${a.port}/`;
    const ctx = createContext({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir, mode: 'default' });
    const reg = createRegistry([webFetchTool]);
    const j = await judge(reg, 'web_fetch', { url }, ctx);
    if (!j.ok) throw new Error(j.result.output);
    const info = await approvalInfo(j.tool, j.input, j.decision, { ...ctx, paths: j.paths }, 'call-1');
    // stored as JSON with the pending approval, read back when the person answers
    const recorded = JSON.parse(JSON.stringify(info.decision)) as PolicyDecision;
    expect(recorded).toMatchObject({ action: 'ask', opaque: true, localAddresses: ['127.0.0.1'] });
    const r = await dispatch(reg, 'web_fetch', { url }, ctx, { approver: { approved: true }, verdict: recorded });
    expect(r.status).toBe('ok');
    expect(a.hits).toBe(1);
    // the same approval does not cover another local address
    const other = await dispatch(reg, 'web_fetch', { url: `http://127.0.0.2:${b.port}/` }, ctx, { approver: { approved: true }, verdict: recorded });
    expect(other.output).toMatch(/is now at 127\.0\.0\.2 \(loopback\), a local address this call was not approved to reach/);
    expect(b.hits).toBe(0);
  });

  it('a name public when judged and local when fetched (DNS rebinding) is refused without connecting', async () => {
    scriptedDns(['93.184.216.34'], ['127.0.0.1']);
    const r = await bed.h.call('web_fetch', { url: `http://rebind.example:${a.port}/` });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `web_fetch did not fetch http://rebind.example:${a.port}/: rebind.example:${a.port} is now at 127.0.0.1 (loopback), a local address this call was not approved to reach, so no connection was made.\n` +
        'If this address is meant, call web_fetch again with this URL so the user can approve it; otherwise do not retry.',
    );
    expect(a.hits).toBe(0);
  });

  it('connects to the address it checked: the name is looked up once per request, never again by the connection', async () => {
    // judged and approved at 127.0.0.1; a resolver asked a second time would answer 127.0.0.2
    const lookup = scriptedDns(['127.0.0.1'], ['127.0.0.1'], ['127.0.0.2']);
    const r = await bed.h.call('web_fetch', { url: `http://pinned.example:${a.port}/` });
    expect(r.status).toBe('ok');
    expect(a.hits).toBe(1);
    expect(lookup).toHaveBeenCalledTimes(2); // the policy's and the request's
  });

  it('a redirect within the host to a local address the approval did not name is refused', async () => {
    // approved for 127.0.0.1; the redirect's lookup answers 127.0.0.2, another local address
    scriptedDns(['127.0.0.1'], ['127.0.0.1'], ['127.0.0.2']);
    const r = await bed.h.call('web_fetch', { url: `http://hop.example:${a.port}/hop` });
    expect(r.status).toBe('error');
    expect(r.output.split('\n')[0]).toBe(
      `web_fetch did not fetch http://hop.example:${a.port}/next: hop.example:${a.port} is now at 127.0.0.2 (loopback), a local address this call was not approved to reach, so no connection was made.`,
    );
    expect(a.hits).toBe(1);
    expect(b.hits).toBe(0);
  });
});
