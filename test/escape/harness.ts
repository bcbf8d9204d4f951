import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';

/**
 * The escape suite's harness. Every case is tried twice: as root (how these machines run) and as an
 * unprivileged user (uid 65534 through setpriv). Each try gets a fresh "host": a fake HOME holding planted
 * keys whose text is a canary, a folder outside the workspace that nothing confined may touch, a loopback
 * listener that counts connections, planted secrets in the environment, a workspace and a data dir. A case
 * checks the host afterwards (`host.outsideTouched()`, `host.leaked(text)`, `host.hits()`), never only
 * Clamp's verdict.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
export const CANARY = 'CANARY-7f3a9c1e-do-not-leak';

export type Who = 'root' | 'unprivileged';
export const USERS: readonly Who[] = ['root', 'unprivileged'];
const NOBODY = 65534;
/** Where hosts are made: a folder the sandbox shows as it is (read-only), unlike its private /tmp. */
const HOST_BASE = fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();

/** Planted secret environment variables (each value holds the canary). */
export const PLANTED_ENV: Readonly<Record<string, string>> = {
  PGPASSWORD: `pg-${CANARY}`,
  GITHUB_PAT: `ghp-${CANARY}`,
  OPENAI_KEY: `sk-${CANARY}`,
  AZURE_OPENAI_KEY: `az-${CANARY}`,
  DATABASE_URL: `postgres://app:${CANARY}@db.internal:5432/app`,
  npm_config__authToken: `npm-${CANARY}`,
  NPM_TOKEN: `npmt-${CANARY}`,
  CLAMP_TOKEN: `tok-${CANARY}`,
  ANTHROPIC_API_KEY: `ant-${CANARY}`,
};

/** Secret files planted in the fake HOME (relative paths), each holding the canary. */
export const PLANTED_FILES: readonly string[] = [
  '.ssh/id_rsa', '.aws/credentials', '.pgpass', '.cargo/credentials.toml', '.config/git/credentials',
  '.git-credentials', '.vault-token', '.kube/config', '.bash_history', '.zsh_history', '.config/gcloud/credentials.db',
  '.azure/accessTokens.json', '.pypirc', '.gem/credentials', '.terraform.d/credentials.tfrc.json', '.netrc', '.npmrc',
  '.docker/config.json', '.gnupg/private-keys-v1.d/key.key', '.config/gh/hosts.yml',
];

export interface Host {
  who: Who;
  uid: number;
  /** the folder holding everything below */
  root: string;
  home: string;
  workspace: string;
  dataDir: string;
  /** nothing confined may create, change or remove anything in here */
  outside: string;
  /** the loopback listener's port */
  port: number;
  /** connections the listener saw so far */
  hits(): number;
  /** the names of files added, changed or removed in `outside` (and in HOME, planted files) since the start */
  outsideTouched(): string[];
  /** whether text carries the canary (a planted key, file or token) */
  leaked(text: string): boolean;
  /** the environment Clamp is started with (HOME, planted secrets, workspace, data dir) */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** run a program as this host's user; resolves with its output (never rejects for a non-zero exit) */
  run(file: string, args: string[], opts?: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** one tool call through the tool CLI (dispatch, policy, sandbox) as this user; the parsed ToolResult */
  tool(name: string, args: unknown, opts?: { mode?: string; approve?: boolean; env?: Record<string, string> }): Promise<ToolCliResult>;
  cleanup(): void;
}

export interface ToolCliResult {
  status: string;
  output: string;
  meta?: Record<string, unknown>;
  [k: string]: unknown;
}

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      out.set(path.relative(dir, p), e.isDirectory() ? 'dir' : `${st.size}:${st.mtimeMs}:${st.mode}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

function chownTree(dir: string, uid: number) {
  fs.chownSync(dir, uid, uid);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(p, uid);
    else fs.lchownSync(p, uid, uid);
  }
}

/** Make a fresh host for one user. */
export async function makeHost(who: Who): Promise<Host> {
  const uid = who === 'root' ? 0 : NOBODY;
  // not under /tmp: the sandbox gives a command a private /tmp, so a planted key or the outside folder there
  // would be out of a sandboxed command's reach for a reason other than the one a case tests
  const root = fs.realpathSync(fs.mkdtempSync(path.join(HOST_BASE, `clamp-escape-${who}-`)));
  fs.chmodSync(root, 0o755);
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  const outside = path.join(root, 'outside');
  for (const d of [home, workspace, dataDir, outside]) fs.mkdirSync(d, { recursive: true });
  for (const rel of PLANTED_FILES) {
    const p = path.join(home, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, `secret ${rel} ${CANARY}\n`, { mode: 0o600 });
  }
  fs.writeFileSync(path.join(home, '.bashrc'), '# bashrc\n');
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'outside\n');
  if (uid !== 0) chownTree(root, uid);
  const before = new Map([...snapshot(outside)].map(([k, v]) => [`outside/${k}`, v]));
  for (const [k, v] of snapshot(home)) before.set(`home/${k}`, v);

  let hits = 0;
  const server = net.createServer((s) => {
    hits++;
    s.on('error', () => {});
    s.end('hit\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    NODE_ENV: 'test',
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    USER: who === 'root' ? 'root' : 'nobody',
    CLAMP_WORKSPACE: workspace,
    CLAMP_DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: '1',
    TMPDIR: os.tmpdir(),
    ...PLANTED_ENV,
    ...extra,
  });

  const run: Host['run'] = (file, args, opts = {}) =>
    new Promise((resolve) => {
      const [f, a] = uid === 0 ? [file, args] : ['setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', file, ...args]];
      const child = spawn(f, a, { cwd: opts.cwd ?? workspace, env: opts.env ?? env(), stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
      // a program that exits before it reads its input closes the pipe first: EPIPE then is not the case's concern
      child.stdin.on('error', () => {});
      child.stdin.end(opts.input ?? '');
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  const host: Host = {
    who,
    uid,
    root,
    home,
    workspace,
    dataDir,
    outside,
    port,
    hits: () => hits,
    outsideTouched() {
      const now = new Map([...snapshot(outside)].map(([k, v]) => [`outside/${k}`, v]));
      for (const [k, v] of snapshot(home)) now.set(`home/${k}`, v);
      const changed: string[] = [];
      for (const [k, v] of now) if (before.get(k) !== v && !k.startsWith('home/.cache') && !k.startsWith('home/.clamp')) changed.push(k);
      for (const k of before.keys()) if (!now.has(k)) changed.push(k);
      return changed;
    },
    leaked: (text) => text.includes(CANARY),
    env,
    run,
    async tool(name, args, opts = {}) {
      const cliArgs = [path.join(ROOT, 'bin/clamp-tool.mjs'), name, JSON.stringify(args)];
      if (opts.approve) cliArgs.push('--approve');
      const r = await run(process.execPath, cliArgs, { env: env({ CLAMP_MODE: opts.mode ?? 'auto', ...opts.env }) });
      try {
        return JSON.parse(r.stdout) as ToolCliResult;
      } catch {
        throw new Error(`the tool CLI printed no result (exit ${r.code}):\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`);
      }
    },
    cleanup() {
      server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return host;
}

/** One call's result from the batch runner. */
export interface BatchResult {
  name: string;
  args: unknown;
  status: string;
  output: string;
}

/**
 * Many tool calls in one process as the host's user, each the way the tool CLI makes it (configuration, registry,
 * the settings files' rules and hooks, dispatch; `approve` as the CLI's --approve): test/escape/tool-batch.mjs.
 */
export async function toolBatch(host: Host, calls: { name: string; args: unknown; approve?: boolean }[], mode = 'auto', timeoutMs = 170_000): Promise<BatchResult[]> {
  const file = path.join(host.root, `calls-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(calls));
  fs.chmodSync(file, 0o644);
  const r = await host.run(process.execPath, [path.join(ROOT, 'test/escape/tool-batch.mjs'), file], { env: host.env({ CLAMP_MODE: mode }), timeoutMs });
  try {
    return JSON.parse(r.stdout) as BatchResult[];
  } catch {
    throw new Error(`the tool batch printed no results (exit ${r.code}):\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 3000)}`);
  }
}

export interface EscapeCase {
  /** what the attacker tries, in a line */
  tries: string;
  /** what is checked on the host afterwards */
  checks: string;
  /** the users to try it as (default both) */
  as?: readonly Who[];
  timeoutMs?: number;
}

/**
 * One escape, tried as every user with a fresh host each time. The test's name says what it tries and
 * what it checks on the host; `body` throws (expect) when the host shows the escape worked.
 */
export function escape(c: EscapeCase, body: (host: Host) => Promise<void>): void {
  for (const who of c.as ?? USERS) {
    it(`[${who}] ${c.tries} — host check: ${c.checks}`, async () => {
      const host = await makeHost(who);
      try {
        await body(host);
      } finally {
        host.cleanup();
      }
    }, c.timeoutMs ?? 90_000);
  }
}

/** A group of escape cases (a describe), for one area of the boundary. */
export function escapes(area: string, fn: () => void): void {
  describe(`escape: ${area}`, fn);
}

export { afterAll, beforeAll };
