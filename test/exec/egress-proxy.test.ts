import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy, type ProxyEvent } from '../../lib/exec/egress-proxy';
import { localAddressReason } from '../../lib/exec/local-addresses';
import { allowedBy, normalHost, parseHostPattern, parseHostPatterns } from '../../lib/contract/hosts';

/** A raw request to the proxy; resolves with what it answered (status line, headers and body as text). */
function raw(port: number, text: string, after?: (s: net.Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(text);
      after?.(s);
    });
    let out = '';
    s.on('data', (d) => {
      out += d.toString();
      if (after && out.includes('\r\n\r\n') && out.startsWith('HTTP/1.1 200')) after = undefined;
    });
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
    setTimeout(() => s.destroy(), 5000).unref();
  });
}

const auth = (token: string) => `Proxy-Authorization: Basic ${Buffer.from(`clamp:${token}`).toString('base64')}\r\n`;

describe('host patterns', () => {
  it('normalise names and addresses the way a URL does', () => {
    expect(normalHost('Registry.Example.ORG.')).toBe('registry.example.org');
    expect(['127.1', '0x7f000001', '2130706433', '127.0.0.1'].map(normalHost)).toEqual(Array(4).fill('127.0.0.1'));
    expect(normalHost('[0:0::1]')).toBe('::1');
    expect(normalHost('bücher.example')).toBe('xn--bcher-kva.example');
    expect(['a b', '', 'x/y', 'u@h', '1.2.3.999'].map(normalHost)).toEqual(Array(5).fill(undefined));
  });

  it('parse a name, a wildcard, an address and a port, and refuse what is none of them', () => {
    expect(parseHostPattern('*.example.org')).toEqual({ host: 'example.org', wildcard: true, text: '*.example.org' });
    expect(parseHostPattern('.example.org')).toMatchObject({ text: '*.example.org' });
    expect(parseHostPattern('Example.org:443')).toEqual({ host: 'example.org', wildcard: false, port: 443, text: 'example.org:443' });
    expect(parseHostPattern('[::1]:8080')).toMatchObject({ host: '::1', port: 8080 });
    for (const bad of ['*.com', '*.1.2.3.4', 'ex ample', 'host:0', 'host:70000', 'https://x.org', 'a:b']) {
      expect(parseHostPattern(bad), bad).toMatchObject({ error: expect.stringContaining('is not a host pattern') });
    }
  });

  it('match a name exactly, a wildcard only below its name, and a port only when given', () => {
    const { patterns, errors } = parseHostPatterns(['*.example.org', 'packages.example.net:443', ' ', 'bad host']);
    expect(errors).toHaveLength(1);
    expect(allowedBy(patterns, 'a.b.example.org', 80)?.text).toBe('*.example.org');
    expect(allowedBy(patterns, 'example.org', 80)).toBeUndefined();
    expect(allowedBy(patterns, 'evilexample.org', 80)).toBeUndefined();
    expect(allowedBy(patterns, 'Packages.Example.NET.', 443)?.text).toBe('packages.example.net:443');
    expect(allowedBy(patterns, 'packages.example.net', 80)).toBeUndefined();
  });
});

describe('local addresses', () => {
  it('are loopback in every spelling, link-local, unspecified and this machine\'s own', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '0.0.0.0', '::', '169.254.169.254', 'fe80::1', 'fd00:ec2::254', '224.0.0.1']) {
      expect(localAddressReason(a), a).toBeDefined();
    }
    expect(localAddressReason('93.184.215.14')).toBeUndefined();
    expect(localAddressReason('2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toBeUndefined();
  });
});

describe('the egress proxy', () => {
  let upstream: http.Server;
  let upPort = 0;
  let seen: string[] = [];
  let proxy: EgressProxy;
  const refused: ProxyEvent[] = [];
  let allowed = parseHostPatterns(['127.0.0.1']).patterns;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} host=${req.headers.host} auth=${req.headers['proxy-authorization'] ?? '-'}`);
      res.end(`hello from ${req.url}`);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upPort = (upstream.address() as net.AddressInfo).port;
    // the test's upstream is on loopback: only its port is let through, everything else local stays refused
    proxy = new EgressProxy({
      allowed: () => allowed,
      onRefused: (e) => refused.push(e),
      unreachable: (a, port) => (port === upPort && a === '127.0.0.1' ? undefined : localAddressReason(a)),
    });
    await proxy.start();
  });
  afterAll(() => {
    proxy.close();
    upstream.close();
  });

  it('forwards a plain-HTTP request to an allowed host with its Host and without the proxy credentials', async () => {
    seen = [];
    const out = await raw(proxy.port, `GET http://127.0.0.1:${upPort}/a?b=1 HTTP/1.1\r\nHost: elsewhere\r\n${auth('t1')}Connection: close\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1.1 200/);
    expect(out).toContain('hello from /a?b=1');
    expect(seen).toEqual([`GET /a?b=1 host=127.0.0.1:${upPort} auth=-`]);
  });

  it('tunnels CONNECT to an allowed host', async () => {
    seen = [];
    const out = await raw(proxy.port, `CONNECT 127.0.0.1:${upPort} HTTP/1.1\r\n${auth('t1')}\r\n`, (s) => {
      setTimeout(() => s.write('GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 100);
    });
    expect(out).toMatch(/^HTTP\/1.1 200 Connection Established/);
    expect(out).toContain('hello from /tunnel');
    expect(seen).toHaveLength(1);
  });

  it('refuses a host not on the list, naming it, and tells the run that asked', async () => {
    refused.length = 0;
    const out = await raw(proxy.port, `CONNECT registry.example.net:443 HTTP/1.1\r\n${auth('run-7')}\r\n`);
    expect(out).toMatch(/^HTTP\/1.1 403/);
    expect(out).toContain("Clamp's sandbox proxy refused registry.example.net: not on the allowed hosts.");
    expect(refused).toMatchObject([{ host: 'registry.example.net', port: 443, reason: 'not-allowed', token: 'run-7' }]);
    const plain = await raw(proxy.port, 'GET http://Other.Example.NET/x HTTP/1.1\r\nHost: other.example.net\r\n\r\n');
    expect(plain).toMatch(/^HTTP\/1.1 403/);
    expect(refused[1]).toMatchObject({ host: 'other.example.net', port: 80, reason: 'not-allowed' });
    expect(refused[1]!.token).toBeUndefined();
    // an address of this machine is refused for what it is, even when no pattern names it
    await raw(proxy.port, 'CONNECT [::ffff:127.0.0.2]:80 HTTP/1.1\r\n\r\n');
    expect(refused[2]).toMatchObject({ host: '::ffff:7f00:2', reason: 'local' });
  });

  it('never connects to this machine, whatever the list allows or the name resolves to', async () => {
    refused.length = 0;
    allowed = parseHostPatterns(['localhost', '127.0.0.1', '[::1]', '169.254.169.254']).patterns;
    try {
      for (const target of ['localhost:22', '127.0.0.1:1', '[::1]:80', '169.254.169.254:80', `127.0.0.1:${upPort + 1}`]) {
        const out = await raw(proxy.port, `CONNECT ${target} HTTP/1.1\r\n\r\n`);
        expect(out, target).toMatch(/^HTTP\/1.1 403/);
      }
      expect(refused.every((e) => e.reason === 'local')).toBe(true);
      expect(refused[0]!.detail).toContain("this machine's loopback");
    } finally {
      allowed = parseHostPatterns(['127.0.0.1']).patterns;
    }
  });

  it('answers what it cannot read with 400 and what it cannot reach with 502, naming the host', async () => {
    expect(await raw(proxy.port, 'GET /relative HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1.1 400/);
    expect(await raw(proxy.port, 'CONNECT nohostport HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1.1 400/);
    allowed = parseHostPatterns(['does-not-exist.invalid']).patterns;
    try {
      const out = await raw(proxy.port, 'CONNECT does-not-exist.invalid:443 HTTP/1.1\r\n\r\n');
      expect(out).toMatch(/^HTTP\/1.1 502/);
      expect(out).toContain('refused does-not-exist.invalid: its name does not resolve');
    } finally {
      allowed = parseHostPatterns(['127.0.0.1']).patterns;
    }
  });
});
