import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseHostPatterns } from '../../lib/contract/hosts';
import { startCommand, type RunResult } from '../../lib/exec/runner';
import type { SandboxSpec } from '../../lib/exec/sandbox';
import { sandboxNetLine, sandboxNetPids, sessionNet, stopSandboxNets, type NetJoin } from '../../lib/exec/sandbox-net';
import { sandboxNetStatus } from '../../lib/exec/net-tools';
import type { ForwardedPort } from '../../lib/contract/tasks';
import { connectProbe as connect, loopbackCounter } from '../helpers';

/**
 * The session's network, through the real runner, bwrap and pasta: what a command inside reaches (its
 * session's loopback, the proxy for allowed hosts, nothing else), which of its ports reach this machine (on
 * 127.0.0.1 only), and that every helper Clamp started is gone afterwards.
 */

const text = (r: RunResult) => Buffer.concat([r.stdout.head, r.stdout.tail]).toString('utf8') + Buffer.concat([r.stderr.head, r.stderr.tail]).toString('utf8');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const otherAddress = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

let root = '';
const loopback = loopbackCounter();
let allowed = parseHostPatterns([]).patterns;

function spec(): SandboxSpec {
  return { level: 'workspace-write', workspace: path.join(root, 'ws'), dataDir: path.join(root, 'data'), network: false, home: path.join(root, 'home') };
}

async function joined(key: string): Promise<NetJoin> {
  const n = sessionNet(key);
  if (typeof n === 'string') throw new Error(n);
  const j = await n.join({ allowed: () => allowed });
  if (typeof j === 'string') throw new Error(j);
  return j;
}

function run(command: string, j: NetJoin | undefined, timeoutMs = 30_000) {
  return startCommand({ command, cwd: path.join(root, 'ws'), logDir: path.join(root, 'data', 'logs'), captureMaxBytes: 64 * 1024, killGraceMs: 500, timeoutMs, sandbox: spec(), ...(j ? { net: j } : {}) });
}

beforeAll(() => {
  expect(sandboxNetStatus().available, sandboxNetStatus().problem).toBe(true);
  root = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'clamp-net-')));
  for (const d of ['ws', 'data', 'home']) fs.mkdirSync(path.join(root, d));
});
afterEach(() => {
  allowed = parseHostPatterns([]).patterns;
});
afterAll(async () => {
  stopSandboxNets();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the session network', () => {
  it('reaches the proxy and nothing else: no route, no name, no loopback of this machine, a refusal named', async () => {
    // even allowed by name, this machine's loopback is never connected to
    allowed = parseHostPatterns(['127.0.0.1', 'localhost']).patterns;
    const j = await joined('net-test-a');
    expect(j.env.HTTPS_PROXY).toMatch(/^http:\/\/clamp:[\w-]+@127\.0\.0\.1:\d+$/);
    const r = await run(
      [
        `curl -s -m 3 --noproxy '*' http://127.0.0.1:${loopback.port}/; echo "direct loopback=$?"`,
        `curl -s -m 3 --noproxy '' http://127.0.0.1:${loopback.port}/; echo " proxied loopback=$?"`,
        `curl -s -m 3 --noproxy '' http://localhost:${loopback.port}/; echo " proxied localhost=$?"`,
        'curl -s -m 3 --noproxy "*" http://192.0.2.1/; echo "direct route=$?"',
        'getent hosts name.example.invalid >/dev/null; echo "dns=$?"',
        'curl -s -m 5 -o /dev/null -w "refused=%{http_code}\\n" https://refused.example.net/',
      ].join('; '),
      j,
    ).done;
    const out = text(r);
    expect(out).toMatch(/direct loopback=7/);
    expect(out).toMatch(/direct route=7/);
    expect(out).toMatch(/dns=2/);
    expect(out).toContain('refused=000');
    expect(loopback.hits).toBe(0);
    expect(out).toContain("Clamp's sandbox proxy refused 127.0.0.1: it leads to this machine's loopback (127.0.0.1)");
    expect(j.refused().map((e) => [e.host, e.reason])).toEqual([
      ['127.0.0.1', 'local'],
      ['localhost', 'local'],
      ['refused.example.net', 'not-allowed'],
    ]);
  });

  it('forwards a port a command listens on to 127.0.0.1 only, tells the run, and drops it when the server stops', async () => {
    const j = await joined('net-test-b');
    const seen: ForwardedPort[][] = [];
    j.listen((p) => seen.push(p));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const h = run(`python3 -m http.server ${port} --bind 0.0.0.0 >/dev/null 2>&1 & sleep 20; kill %1; sleep 2`, j);
    for (let i = 0; i < 150 && !seen.some((p) => p.length); i++) await new Promise((r) => setTimeout(r, 100));
    const p = seen.find((x) => x.length)![0]!;
    expect(p).toMatchObject({ port, hostAddress: '127.0.0.1' });
    expect(p.url).toBe(`http://127.0.0.1:${p.hostPort}/`);
    const res = await fetch(p.url);
    expect(res.status).toBe(200);
    if (otherAddress) expect(await connect(otherAddress, p.hostPort)).not.toBe('open');
    // a later command of the same session reaches the server at localhost
    const other = await run(`curl -s -o /dev/null -w "inside=%{http_code}" http://localhost:${port}/`, await joined('net-test-b')).done;
    expect(text(other)).toContain('inside=200');
    await h.kill('user');
    for (let i = 0; i < 50 && seen.at(-1)!.length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(seen.at(-1)).toEqual([]);
    expect(await connect('127.0.0.1', p.hostPort)).not.toBe('open');
  }, 60_000);

  it('maps a port taken on this machine to another one, and shows that one', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const j = await joined('net-test-c');
      const seen: ForwardedPort[][] = [];
      j.listen((p) => seen.push(p));
      const h = run(`python3 -m http.server ${port} --bind 127.0.0.1 >/dev/null 2>&1 & sleep 20`, j);
      for (let i = 0; i < 150 && !seen.some((x) => x.length); i++) await new Promise((r) => setTimeout(r, 100));
      const p = seen.find((x) => x.length)![0]!;
      expect(p.port).toBe(port);
      expect(p.hostPort).not.toBe(port);
      expect((await fetch(p.url)).status).toBe(200);
      await h.kill('user');
    } finally {
      busy.close();
    }
  }, 60_000);

  it('stops every helper it started and leaves none running', async () => {
    await joined('net-test-d');
    const pids = sandboxNetPids();
    expect(pids.length).toBeGreaterThan(0);
    stopSandboxNets();
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
    expect(pids.filter(alive)).toEqual([]);
    expect(sandboxNetPids()).toEqual([]);
  });

  it('without pasta: says why, on the launcher\'s line too', async () => {
    const env = { ...process.env, CLAMP_PASTA: path.join(root, 'no-pasta') };
    const n = sessionNet('net-test-e', env);
    expect(n).toMatch(/^pasta is not installed \(Debian\/Ubuntu: apt-get install passt/);
    const view = { level: 'by-mode', available: true, network: false };
    expect(sandboxNetLine(view, env)).toMatch(/^Sandbox network: NOT AVAILABLE: pasta is not installed .* sandboxed commands have no network/);
    expect(sandboxNetLine(view, { ...process.env, CLAMP_SANDBOX_ALLOW_HOSTS: 'packages.example.org' })).toBe(
      "Sandbox network: only through Clamp's proxy, to the hosts you allow (settings page, CLAMP_SANDBOX_ALLOW_HOSTS: packages.example.org, or a session's approval); a port a command listens on opens on 127.0.0.1.",
    );
    // no line where it does not apply: the network open, or no sandbox
    expect(sandboxNetLine({ ...view, network: true })).toBeUndefined();
    expect(sandboxNetLine({ ...view, level: 'off' })).toBeUndefined();
  });
});
