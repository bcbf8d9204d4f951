import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { liveGroupMembers } from '../../lib/exec/group';
import { ownerDir, reapLeftoverGroups, setGroupJournal, startWatchdog, stopAllGroups } from '../../lib/exec/leftovers';
import { processStartTicks } from '../../lib/exec/proc-stat';
import { startCommand } from '../../lib/exec/runner';

/** Commands left behind by a dead server: recorded while they run, reaped at the next start, killed by the watchdog. */
let root: string;
const started: number[] = [];
const BOOT = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-leftovers-')));
});
afterEach(() => setGroupJournal(undefined));
afterAll(() => {
  for (const pgid of started) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
});

/** A sleeping process group of our own, as a crashed server would leave it. */
function orphanGroup(): number {
  const child = spawn('/bin/sh', ['-c', 'sleep 600 & sleep 600'], { detached: true, stdio: 'ignore' });
  child.unref();
  started.push(child.pid!);
  return child.pid!;
}

/** The pid of a process that has exited (a dead server). */
function deadPid(): number {
  const r = spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

function record(dir: string, pgid: number, fields: { ticks?: string; boot?: string } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${pgid}.group`), `${pgid} ${fields.ticks ?? processStartTicks(pgid)} ${fields.boot ?? BOOT}\n`);
}

const alive = (pgid: number) => (liveGroupMembers(pgid) ?? []).length > 0;

async function waitGone(pgid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pgid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('the record of running command groups', () => {
  it('holds a running command and forgets it once it is reaped', async () => {
    const groups = path.join(root, 'rec');
    setGroupJournal(groups);
    const h = startCommand({ command: 'sleep 30', cwd: root, logDir: path.join(root, 'logs'), captureMaxBytes: 1024, killGraceMs: 500 });
    const file = path.join(ownerDir(groups), `${h.pid}.group`);
    expect(fs.readFileSync(file, 'latin1')).toBe(`${h.pid} ${processStartTicks(h.pid!)} ${BOOT}\n`);
    await h.kill('user');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('stopAllGroups kills every running command of this process and waits for it', async () => {
    const a = startCommand({ command: 'sleep 30', cwd: root, logDir: path.join(root, 'logs'), captureMaxBytes: 1024, killGraceMs: 500 });
    const b = startCommand({ command: "trap '' TERM; sleep 30", cwd: root, logDir: path.join(root, 'logs'), captureMaxBytes: 1024, killGraceMs: 500 });
    await new Promise((r) => setTimeout(r, 200));
    await stopAllGroups(5000);
    expect(a.finished && b.finished).toBe(true);
    expect((await a.done).killedBy).toBe('shutdown');
    expect((await b.done).killedBy).toBe('shutdown');
    expect(alive(a.pid!) || alive(b.pid!)).toBe(false);
  });

  it('stopAllGroups also stops and waits for a command that starts while it runs (none outlives the server)', async () => {
    const logDir = path.join(root, 'logs');
    // a stubborn command: the stop takes its kill grace, and a turn starts another command meanwhile
    const a = startCommand({ command: "trap '' TERM; sleep 30", cwd: root, logDir, captureMaxBytes: 1024, killGraceMs: 800 });
    await new Promise((r) => setTimeout(r, 200));
    const stopping = stopAllGroups(5000);
    await new Promise((r) => setTimeout(r, 100));
    const late = startCommand({ command: `sleep 0.5; echo outlived > ${path.join(root, 'late-canary')}; sleep 30`, cwd: root, logDir, captureMaxBytes: 1024, killGraceMs: 800 });
    started.push(late.pid!);
    await stopping;
    expect(a.finished).toBe(true);
    expect(late.finished).toBe(true);
    expect((await late.done).killedBy).toBe('shutdown');
    expect(alive(late.pid!)).toBe(false);
    // checked on the host, after the command's own delay had passed
    await new Promise((r) => setTimeout(r, 800));
    expect(fs.existsSync(path.join(root, 'late-canary'))).toBe(false);
    // the stop is over: a command started now runs as usual
    const after = startCommand({ command: 'echo ran', cwd: root, logDir, captureMaxBytes: 1024, killGraceMs: 500 });
    expect((await after.done).exitCode).toBe(0);
  });
});

describe('reaping at start', () => {
  it('kills the groups a dead server recorded, leader gone or not, and removes its records', async () => {
    const groups = path.join(root, 'reap');
    const dead = path.join(groups, `${deadPid()}-12345`);
    const g1 = orphanGroup();
    const g2 = orphanGroup();
    await new Promise((r) => setTimeout(r, 200));
    record(dead, g1);
    record(dead, g2);
    // g2's leader (the shell) exits; its background sleep keeps the group alive
    process.kill(g2, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(g2)).toBe(true);
    expect(await reapLeftoverGroups(groups, 1000)).toBe(2);
    expect(await waitGone(g1)).toBe(true);
    expect(await waitGone(g2)).toBe(true);
    expect(fs.existsSync(dead)).toBe(false);
  });

  it('leaves alone a live server\'s groups, a reused pid, and records from another boot', async () => {
    const groups = path.join(root, 'keep');
    const mine = orphanGroup();
    const reused = orphanGroup();
    const otherBoot = orphanGroup();
    await new Promise((r) => setTimeout(r, 200));
    record(ownerDir(groups), mine); // this process is alive: a second Clamp on the same data dir
    const dead = path.join(groups, `${deadPid()}-1`);
    record(dead, reused, { ticks: '1' }); // the pgid now names a younger process
    record(dead, otherBoot, { boot: 'another-boot' });
    expect(await reapLeftoverGroups(groups, 1000)).toBe(0);
    expect([mine, reused, otherBoot].map(alive)).toEqual([true, true, true]);
    expect(fs.existsSync(ownerDir(groups))).toBe(true);
    expect(fs.existsSync(dead)).toBe(false);
  });
});

describe('the watchdog', () => {
  // the server's death, as the watchdog sees it, is its end of the pipe closing: here we close it by hand
  // (crash.test.ts kills a real server with SIGKILL)
  it('kills the recorded groups when the pipe from the server closes, then removes the folder and exits', async () => {
    const groups = path.join(root, 'watch');
    const g = orphanGroup();
    await new Promise((r) => setTimeout(r, 200));
    record(ownerDir(groups), g);
    const dog = startWatchdog(groups, 1000);
    const exit = new Promise<number | null>((r) => dog.on('exit', (code) => r(code)));
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(g)).toBe(true);
    const t0 = Date.now();
    dog.stdin!.destroy();
    expect(await exit).toBe(0);
    expect(await waitGone(g)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(fs.existsSync(ownerDir(groups))).toBe(false);
  });

  it('exits without killing anything after a clean stop (no records left)', async () => {
    const groups = path.join(root, 'watch-clean');
    setGroupJournal(groups);
    const bystander = orphanGroup();
    const dog = startWatchdog(groups, 1000);
    const exit = new Promise<number | null>((r) => dog.on('exit', (code) => r(code)));
    dog.stdin!.destroy();
    expect(await exit).toBe(0);
    expect(alive(bystander)).toBe(true);
    expect(fs.existsSync(ownerDir(groups))).toBe(false);
  });
});
