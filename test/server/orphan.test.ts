/**
 * The launcher stops with its parent: `npm start` really through npm, a background task and a
 * foreground command running, then npm is killed with SIGKILL (it can forward nothing). Clamp must
 * notice the orphaning, stop as on SIGTERM and free the port, leaving no command running.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { tempWorkspace } from '../helpers';
import { buildOnce } from './harness';

const ws = tempWorkspace('clamp-orphan-');
afterAll(() => ws.cleanup());

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** True when nothing accepts a connection on the port. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', () => resolve(true));
  });
}

function pids(word: string): number[] {
  return spawnSync('pgrep', ['-f', word], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
}

function children(pid: number): number[] {
  return spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
}

/** The process runs (a zombie waiting for its parent to reap it counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Wait until the output shows the launcher's URL. */
async function started(out: () => string): Promise<void> {
  await expect.poll(out, { timeout: 90_000, interval: 200 }).toMatch(/Open http:\/\/127\.0\.0\.1:\d+\//);
}

describe('the launcher under npm start', () => {
  it('stops, frees the port within 5 s and leaves no command running when npm is killed', { timeout: 180_000 }, async () => {
    await buildOnce();
    const marker = `orphan-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    // a process that runs until it is killed; the marker in its command line finds it
    ws.write('ticker.js', 'setInterval(() => console.log("tick"), 200);\n');
    const script = path.join(ws.root, 'script.json');
    fs.writeFileSync(
      script,
      JSON.stringify([
        {
          text: 'Starting both.',
          toolCalls: [
            { name: 'run_command', args: { command: `node ticker.js bg-${marker}`, background: true }, id: 'bg' },
            { name: 'run_command', args: { command: `node ticker.js fg-${marker}` }, id: 'fg' },
          ],
        },
        { text: 'never reached' },
      ]),
    );
    const port = await freePort();
    const token = `orphan-token-${marker}`;
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CLAMP_PORT: String(port), CLAMP_TOKEN: token, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: `scripted:${script}`, CLAMP_MODE: 'auto' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    npm.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const npmExited = new Promise<void>((r) => npm.once('exit', () => r()));
    let launcher: number[] = [];
    try {
      await started(() => out);
      expect(out).toContain(`Model: scripted demo · script.json (not a real model)`);
      const base = `http://127.0.0.1:${port}`;
      const api = (p: string, body: unknown) =>
        fetch(base + p, { method: 'POST', headers: { cookie: `clamp_token=${token}`, origin: base, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const created = await api('/api/sessions', {});
      expect(created.status).toBe(201);
      const { session } = (await created.json()) as { session: { id: string } };
      // the turn stays open while the foreground command runs; it is never awaited
      const chat = api('/api/chat', { sessionId: session.id, message: { id: 'u1', text: 'start them' } }).then((r) => r.text()).catch(() => '');
      await expect.poll(() => [pids(`bg-${marker}`).length > 0, pids(`fg-${marker}`).length > 0], { timeout: 30_000, interval: 200 }).toEqual([true, true]);

      // npm → sh -c → node bin/clamp.mjs
      launcher = children(npm.pid!).flatMap(children);
      expect(launcher).toHaveLength(1);
      npm.kill('SIGKILL');
      await npmExited;
      const killedAt = Date.now();
      await expect.poll(() => portFree(port), { timeout: 5000, interval: 100 }).toBe(true);
      expect(Date.now() - killedAt).toBeLessThan(5000);
      await expect.poll(() => [...pids(`bg-${marker}`), ...pids(`fg-${marker}`)], { timeout: 5000, interval: 100 }).toEqual([]);
      await expect.poll(() => out, { timeout: 5000 }).toMatch(/npm \(pid \d+\) is gone: stopping Clamp and every background task/);
      // the process itself ends too, as after SIGTERM (whose shutdown hooks take their own bounded time, longer on a busy machine)
      await expect.poll(() => alive(launcher[0]), { timeout: 30_000, message: `the launcher still runs:\n${out}` }).toBe(false);
      await chat;
    } finally {
      npm.kill('SIGKILL');
      for (const pid of [...pids(`bg-${marker}`), ...pids(`fg-${marker}`), ...launcher]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('stops when a plain parent (a shell, not npm) is killed', { timeout: 120_000 }, async () => {
    await buildOnce();
    const port = await freePort();
    // `; exit` keeps the shell from exec-ing node, so node's parent is the shell itself
    const sh = spawn('sh', ['-c', `"${process.execPath}" bin/clamp.mjs; exit`], {
      cwd: ROOT,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CLAMP_PORT: String(port), CLAMP_TOKEN: 'orphan-sh', CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: '', npm_lifecycle_event: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    sh.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    sh.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    let launcher: number[] = [];
    try {
      await started(() => out);
      expect(out).toContain('Model: none configured (the page says how to set one)');
      launcher = children(sh.pid!);
      expect(launcher).toHaveLength(1);
      sh.kill('SIGKILL');
      await expect.poll(() => portFree(port), { timeout: 5000, interval: 100 }).toBe(true);
      await expect.poll(() => alive(launcher[0]), { timeout: 30_000 }).toBe(false);
      expect(out).toMatch(/the process that started Clamp \(pid \d+\) is gone: stopping Clamp and every background task/);
    } finally {
      sh.kill('SIGKILL');
      for (const pid of launcher) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });
});
