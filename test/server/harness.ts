import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureBuild, ROOT } from '../../lib/server/build';

export interface RunningClamp {
  proc: ChildProcess;
  port: number;
  token: string;
  base: string;
  output: () => string;
  /** SIGTERM and wait for the exit */
  stop: () => Promise<number | null>;
  /** SIGKILL: a crash, with no shutdown hooks */
  crash: () => Promise<void>;
  /** fetch with the token cookie, a same-origin Origin for writes, and the right Host */
  api: (p: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;
}

let built = false;

/** Build the page once per test process (skipped when the build is fresh). */
export async function buildOnce(): Promise<void> {
  if (built) return;
  if (!(await ensureBuild())) throw new Error('next build failed');
  built = true;
}

/** Start the real launcher on a free port and wait until it prints its URL. */
export async function startClamp(env: Record<string, string>, token = 'test-token-' + Math.random().toString(36).slice(2)): Promise<RunningClamp> {
  await buildOnce();
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs')], {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CLAMP_PORT: '0', CLAMP_TOKEN: token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`Clamp did not start in 60 s:\n${out}`)), 60_000);
    const check = () => {
      const m = /Open http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', check);
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`Clamp exited with ${code}:\n${out}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return {
    proc,
    port,
    token,
    base,
    output: () => out,
    stop: async () => {
      proc.kill('SIGTERM');
      return exited;
    },
    crash: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
    api: (p, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('cookie')) headers.set('cookie', `clamp_token=${token}`);
      const method = (init.method ?? (init.json !== undefined ? 'POST' : 'GET')).toUpperCase();
      if (method !== 'GET' && !headers.has('origin')) headers.set('origin', base);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers.set('content-type', 'application/json');
      }
      return fetch(base + p, { ...init, method, headers, body, redirect: 'manual' });
    },
  };
}

/** Read a UI message stream response to the end; returns the chunks (SSE data lines parsed). */
export async function readChunks(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** The usual teardown of a route test: the server, then its stand-in model, then its folders; each may be missing. */
export async function stopBed(clamp: RunningClamp | undefined, fake: { close(): Promise<void> } | undefined, ws: { cleanup(): void } | undefined): Promise<void> {
  await clamp?.stop();
  await fake?.close();
  ws?.cleanup();
}
