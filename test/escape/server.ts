import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureBuild, ROOT } from '../../lib/server/build';
import type { Host } from './harness';

/** The real Clamp server started as a host's user (root, or uid 65534 through setpriv), with that host's environment. */
export interface HostClamp {
  base: string;
  output: () => string;
  api: (p: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
  stop: () => Promise<void>;
}

/**
 * Start the launcher as the host's user on a free port; resolves once it prints its URL. The page is built
 * first as this process's user: uid 65534 cannot write the build folder, so when the sources changed again
 * in between (a tree others edit) and that launcher finds its build stale, it is built again and retried.
 */
export async function startClampAs(host: Host, extra: Record<string, string>): Promise<HostClamp> {
  for (let attempt = 1; ; attempt++) {
    if (!(await ensureBuild())) throw new Error('The page did not build; run `npm run build` to see why.');
    try {
      return await launch(host, extra);
    } catch (err) {
      if (attempt >= 3 || !/Build directory is not writeable|EACCES/.test(String(err))) throw err;
    }
  }
}

async function launch(host: Host, extra: Record<string, string>): Promise<HostClamp> {
  const token = `escape-${Math.random().toString(36).slice(2)}`;
  const env = host.env({ CLAMP_PORT: '0', CLAMP_TOKEN: token, ...extra });
  const launcher = path.join(ROOT, 'bin/clamp.mjs');
  const [file, args] = host.uid === 0 ? [process.execPath, [launcher]] : ['setpriv', [`--reuid=${host.uid}`, `--regid=${host.uid}`, '--clear-groups', '--', process.execPath, launcher]];
  const proc: ChildProcess = spawn(file, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`Clamp did not start in 60 s:\n${out}`)), 60_000);
    proc.stdout!.on('data', () => {
      const m = /Open http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`Clamp exited with ${code}:\n${out}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    output: () => out,
    api: (p, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('cookie', `clamp_token=${token}`);
      const method = (init.method ?? (init.json !== undefined ? 'POST' : 'GET')).toUpperCase();
      if (method !== 'GET') headers.set('origin', base);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers.set('content-type', 'application/json');
      }
      return fetch(base + p, { ...init, method, headers, body, redirect: 'manual' });
    },
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
