import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seccompProgram } from '../../lib/exec/seccomp';
import { sandboxEnv, splitList } from '../../lib/exec/sandbox-env';
import { hidePlan, type HideInput } from '../../lib/exec/sandbox-hide';
import { sandboxLimits, SandboxLimitsError, ulimitPrefix } from '../../lib/exec/limits';
import { cgroupControllers, commandCgroup, detectHierarchies } from '../../lib/exec/cgroups';
import { BUDGET } from '../../lib/contract/budget';
import { confinedCommand, sandboxStatus } from '../../lib/exec/sandbox';

/**
 * The sandbox's parts one by one: the system-call filter's program, the environment's allowlist, what is
 * hidden and shown (links followed to their real paths), the limits and their cgroup. The whole sandbox is
 * tried in test/exec/sandbox.test.ts and, as an attacker would, in test/escape/sandbox.test.ts.
 */

describe('the system-call filter', () => {
  it('is a program of whole 8-byte instructions for x86_64 and aarch64, and none elsewhere', () => {
    for (const arch of ['x64', 'arm64']) {
      const p = seccompProgram(arch)!;
      expect(p.length % 8).toBe(0);
      expect(p.length / 8).toBeGreaterThan(50);
      expect(p.length / 8).toBeLessThan(4096);
      // it starts by loading the architecture (BPF_LD|BPF_W|BPF_ABS, offset 4) and ends by returning
      expect(p.readUInt16LE(0)).toBe(0x20);
      expect(p.readUInt32LE(4)).toBe(4);
      expect(p.readUInt16LE(p.length - 8)).toBe(0x06);
    }
    expect(seccompProgram('ia32')).toBeUndefined();
  });

  it('under bwrap: a unix socket and a datagram pair are refused, stream pairs, IP sockets, pipes and child processes work, namespaces and mounts are refused', () => {
    const prog = seccompProgram();
    if (!prog) return;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-bpf-')), 'f.bpf');
    fs.writeFileSync(file, prog);
    const fd = fs.openSync(file, 'r');
    const script = [
      'import socket, subprocess, os',
      'def t(name, f):',
      '    try: f(); print(name, "ok")',
      '    except OSError as e: print(name, "refused", e.errno)',
      't("unix", lambda: socket.socket(socket.AF_UNIX))',
      't("vsock", lambda: socket.socket(40, socket.SOCK_STREAM))',
      't("inet", lambda: socket.socket(socket.AF_INET))',
      't("inet6", lambda: socket.socket(socket.AF_INET6))',
      't("pair", lambda: socket.socketpair())',
      't("dgram-pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))',
      't("pipe", lambda: os.pipe())',
      't("child", lambda: subprocess.run(["true"], check=True))',
      'import ctypes',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'print("unshare", libc.unshare(0x10000000), ctypes.get_errno())',
      'print("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None), ctypes.get_errno())',
    ].join('\n');
    try {
      const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--seccomp', '3', '--', 'python3', '-c', script], {
        stdio: ['ignore', 'pipe', 'pipe', fd],
        encoding: 'utf8',
      });
      const out = r.stdout;
      expect(out, r.stderr).toContain('unix refused 97');
      expect(out).toContain('vsock refused 97');
      expect(out).toContain('inet ok');
      expect(out).toContain('inet6 ok');
      expect(out).toContain('pair ok');
      expect(out).toContain('dgram-pair refused 97');
      expect(out).toContain('pipe ok');
      expect(out).toContain('child ok');
      // CLONE_NEWUSER and mount(2): -1 with EPERM
      expect(out).toContain('unshare -1 1');
      expect(out).toContain('mount -1 1');
    } finally {
      fs.closeSync(fd);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});

describe('the environment', () => {
  const env = {
    PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_TIME: 'C', JAVA_HOME: '/opt/jdk', CC: 'gcc', GOPATH: '/home/u/go',
    https_proxy: 'http://proxy:3128', HTTP_PROXY: 'http://me:secret@proxy:3128', PIP_INDEX_URL: 'https://u:tok@pypi.example/simple',
    DATABASE_URL: 'postgres://a:b@db/x', PGPASSWORD: 'pw', GITHUB_PAT: 'ghp', OPENAI_KEY: 'sk', AZURE_OPENAI_KEY: 'az', npm_config__authToken: 'npm',
    'npm_config_//registry.npmjs.org/:_authToken': 'npm2', AWS_SECRET_ACCESS_KEY: 'aws', CLAMP_TOKEN: 'tok', MY_FLAG: 'on',
  } as unknown as NodeJS.ProcessEnv;

  it('passes what builds need and nothing else; a URL with a password in it is left out', () => {
    expect(sandboxEnv(env)).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_TIME: 'C', JAVA_HOME: '/opt/jdk', CC: 'gcc', GOPATH: '/home/u/go', https_proxy: 'http://proxy:3128' });
  });

  it('passes what the person names as it is, but never Clamp\'s token', () => {
    const out = sandboxEnv(env, ['MY_FLAG', 'HTTP_PROXY', 'CLAMP_TOKEN']);
    expect(out.MY_FLAG).toBe('on');
    expect(out.HTTP_PROXY).toBe('http://me:secret@proxy:3128');
    expect(out.CLAMP_TOKEN).toBeUndefined();
    expect(splitList(' A, ,B ,')).toEqual(['A', 'B']);
  });
});

describe('what is hidden and shown', () => {
  let root = '';
  let home = '';
  let ws = '';
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'clamp-hide-')));
    home = path.join(root, 'home');
    ws = path.join(root, 'ws');
    for (const d of [home, ws, path.join(home, 'dotfiles/ssh'), path.join(root, 'opt/cargo/bin'), path.join(root, 'elsewhere')]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(home, 'dotfiles/ssh/id_rsa'), 'key');
    fs.symlinkSync('dotfiles/ssh', path.join(home, '.ssh'));
    fs.mkdirSync(path.join(home, '.kube'));
    fs.writeFileSync(path.join(root, 'elsewhere/kubeconfig'), 'k');
    fs.symlinkSync(path.join(root, 'elsewhere/kubeconfig'), path.join(home, '.kube/config'));
    fs.symlinkSync(path.join(root, 'opt/cargo'), path.join(home, '.cargo'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const input = (o: Partial<HideInput> = {}): HideInput => ({
    workspace: ws, dataDir: path.join(root, 'data'), home, hideHome: true, env: { HOME: home, PATH: '/usr/bin' } as unknown as NodeJS.ProcessEnv,
    hide: [], show: [], alsoShown: [], ...o,
  });

  it('HOME hidden: a toolchain folder that is a link is shown as a link; a secret a link leads out of HOME to is hidden', () => {
    const plan = hidePlan(input({ env: { HOME: home, PATH: `${home}/.cargo/bin:/usr/bin` } as unknown as NodeJS.ProcessEnv }));
    expect(plan.homes).toEqual([home, ...(os.homedir() !== home && fs.existsSync(os.homedir()) ? [fs.realpathSync(os.homedir())] : [])].filter((h, i, a) => a.indexOf(h) === i));
    expect(plan.shown).toContainEqual({ at: path.join(home, '.cargo/bin'), real: path.join(root, 'opt/cargo/bin'), link: false });
    // ~/.kube/config → <root>/elsewhere/kubeconfig: outside HOME, so hidden where it is
    expect(plan.files).toContain(path.join(root, 'elsewhere/kubeconfig'));
    // ~/.ssh → ~/dotfiles/ssh: both inside the hidden HOME, nothing to add
    expect(plan.dirs).not.toContain(path.join(home, 'dotfiles/ssh'));
  });

  it('a workspace that is HOME: nothing of HOME is hidden whole, and ~/.ssh is hidden where it really is', () => {
    const plan = hidePlan(input({ workspace: home }));
    expect(plan.homes.includes(home)).toBe(false);
    expect(plan.dirs).toContain(path.join(home, 'dotfiles/ssh'));
    expect(plan.files).toContain(path.join(root, 'elsewhere/kubeconfig'));
  });

  it('the person\'s paths: hidden (absolute or ~/), shown under HOME', () => {
    fs.mkdirSync(path.join(home, 'sdk/bin'), { recursive: true });
    fs.writeFileSync(path.join(root, 'elsewhere/notes'), 'n');
    const plan = hidePlan(input({ hide: [path.join(root, 'elsewhere/notes')], show: ['~/sdk'] }));
    expect(plan.files).toContain(path.join(root, 'elsewhere/notes'));
    expect(plan.shown).toContainEqual({ at: path.join(home, 'sdk'), real: path.join(home, 'sdk'), link: false });
  });
});

describe('the limits', () => {
  it('come from the budget, a share of the machine\'s memory, and CLAMP_SANDBOX_LIMITS changes them', () => {
    const none = {} as NodeJS.ProcessEnv;
    expect(sandboxLimits(none, 8 * 1024 ** 3)).toEqual({ processes: BUDGET.SANDBOX_PROCESSES_MAX_COUNT, memoryBytes: (8 * 1024 ** 3 * BUDGET.SANDBOX_MEMORY_MAX_PERCENT) / 100, fileBytes: BUDGET.SANDBOX_FILE_MAX_BYTES });
    expect(sandboxLimits({ CLAMP_SANDBOX_LIMITS: 'processes=100, memory=25%, file=1g' } as unknown as NodeJS.ProcessEnv, 8 * 1024 ** 3)).toEqual({ processes: 100, memoryBytes: 2 * 1024 ** 3, fileBytes: 1024 ** 3 });
    expect(sandboxLimits({ CLAMP_SANDBOX_LIMITS: 'memory=512m' } as unknown as NodeJS.ProcessEnv).memoryBytes).toBe(512 * 1024 ** 2);
    for (const bad of ['processes=0', 'memory=lots', 'cpu=2', 'file=200%']) {
      expect(() => sandboxLimits({ CLAMP_SANDBOX_LIMITS: bad } as unknown as NodeJS.ProcessEnv)).toThrow(SandboxLimitsError);
    }
  });

  it('are set by the command\'s shell, in its own units', () => {
    const l = { processes: 300, memoryBytes: 1024 ** 3, fileBytes: 64 * 1024 ** 2 };
    expect(ulimitPrefix(l, '/bin/bash')).toBe('ulimit -H -S -f 65536 2>/dev/null; ulimit -H -S -d 1048576 2>/dev/null; ulimit -H -S -u 300 2>/dev/null; ');
    expect(ulimitPrefix(l, '/bin/sh')).toBe('ulimit -H -S -f 131072 2>/dev/null; ulimit -H -S -d 1048576 2>/dev/null; ');
  });

  it('where a cgroup is writable (root here): one per command, with the limits; a process held before it starts is moved in, and it is removed after', async () => {
    const cg = commandCgroup({ processes: 7, memoryBytes: 256 * 1024 ** 2, fileBytes: 1024 });
    if (!cg) {
      expect(cgroupControllers()).toEqual([]);
      return;
    }
    // held as bwrap is: it waits on stdin until it is in the cgroup
    const child = spawn('sh', ['-c', 'read go; cat /proc/self/cgroup; for i in 1 2 3 4 5 6 7 8 9; do sleep 1 & done; wait'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    expect(await cg.attach(child.pid!)).toBe(true);
    child.stdin.end('go\n');
    await new Promise((r) => child.on('close', r));
    const lines = out.split('\n').filter((l) => /:(pids|memory):/.test(l));
    expect(lines.every((l) => /\/clamp-\d+\/cmd-\d+$/.test(l)), out).toBe(true);
    expect(fs.readFileSync('/proc/self/cgroup', 'utf8')).not.toMatch(/cmd-\d+/);
    if (cg.controllers.includes('pids')) expect(cg.hits().processes).toBe(true);
    const dirs = lines.map((l) => {
      const [, c, p] = /^\d+:(\w+):(.*)$/.exec(l)!;
      return path.join('/sys/fs/cgroup', c!, p!);
    });
    cg.remove();
    await expect.poll(() => dirs.filter((d) => fs.existsSync(d))).toEqual([]);
  });
});

describe('a delegated cgroup v2 (a made-up tree: this machine has v1)', () => {
  let root = '';
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-cg2-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** /proc/self/{mountinfo,cgroup} naming a cgroup2 mount at <root>/cg, this process in `own`, that cgroup offering pids and memory */
  function tree(own: string, procs: string): { proc: string; cg: string } {
    const proc = path.join(root, 'proc');
    const cg = path.join(root, 'cg');
    fs.mkdirSync(path.join(proc, 'self'), { recursive: true });
    fs.writeFileSync(path.join(proc, 'self/mountinfo'), `30 25 0:26 / ${cg} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n`);
    fs.writeFileSync(path.join(proc, 'self/cgroup'), `0::${own}\n`);
    fs.mkdirSync(path.join(cg, own), { recursive: true });
    fs.writeFileSync(path.join(cg, own, 'cgroup.controllers'), 'cpu memory pids\n');
    fs.writeFileSync(path.join(cg, own, 'cgroup.subtree_control'), '');
    fs.writeFileSync(path.join(cg, own, 'cgroup.procs'), procs);
    return { proc, cg };
  }

  it('a cgroup of its own (a service): the server moves into clamp-<pid>/server and the controllers are enabled for command cgroups beside it', () => {
    const own = '/user.slice/user-1000.slice/user@1000.service/app.slice/clamp.service';
    // the kernel would empty the old cgroup when the process moves out; a plain file does not, so it starts empty here
    const { proc, cg } = tree(own, '');
    const [h] = detectHierarchies(proc, 4242);
    const base = path.join(cg, own, 'clamp-4242');
    expect(h).toEqual({ base, home: path.join(base, 'server'), controllers: ['pids', 'memory'], v2: true });
    expect(fs.readFileSync(path.join(base, 'server/cgroup.procs'), 'utf8')).toBe('4242');
    expect(fs.readFileSync(path.join(cg, own, 'cgroup.subtree_control'), 'utf8')).toBe('+pids +memory');
    expect(fs.readFileSync(path.join(base, 'cgroup.subtree_control'), 'utf8')).toBe('+pids +memory');
  });

  it('a cgroup shared with other processes (a terminal\'s scope): none, and the process goes back where it was', () => {
    const own = '/user.slice/user-1000.slice/session-3.scope';
    const { proc, cg } = tree(own, '777\n');
    expect(detectHierarchies(proc, 4242)).toEqual([]);
    expect(fs.readFileSync(path.join(cg, own, 'cgroup.procs'), 'utf8')).toBe('4242');
    // the controllers were not enabled where other processes live
    expect(fs.readFileSync(path.join(cg, own, 'cgroup.subtree_control'), 'utf8')).toBe('');
  });

  it('no pids or memory controller offered: none', () => {
    const own = '/x.service';
    const { proc, cg } = tree(own, '');
    fs.writeFileSync(path.join(cg, own, 'cgroup.controllers'), 'cpu io\n');
    expect(detectHierarchies(proc, 4242)).toEqual([]);
  });
});

describe('a program its own client starts (language and MCP servers)', () => {
  it('runs under bwrap with the filter, no capability and the limits, through one shell', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'clamp-confined-')));
    const ws = path.join(root, 'ws');
    fs.mkdirSync(ws);
    try {
      const spec = { level: 'read-only' as const, workspace: ws, dataDir: path.join(root, 'data'), network: false, limits: { processes: 50, memoryBytes: 1024 ** 3, fileBytes: 1024 ** 2 } };
      const env = { PATH: process.env.PATH, HOME: root } as unknown as NodeJS.ProcessEnv;
      const { command, args } = confinedCommand(spec, sandboxStatus().bwrap!, env, 'bash', ['-c', 'grep -E "^(CapEff|Seccomp):" /proc/self/status; ulimit -f; python3 -c "import socket; socket.socket(socket.AF_UNIX)" 2>&1 | tail -1']);
      const r = spawnSync(command, args, { env, encoding: 'utf8' });
      expect(r.stdout, r.stderr).toMatch(/CapEff:\s+0000000000000000/);
      expect(r.stdout).toMatch(/Seccomp:\s+2/);
      // 1 MiB in bash's KiB blocks
      expect(r.stdout).toMatch(/^1024$/m);
      expect(r.stdout).toContain('Address family not supported by protocol');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
