/**
 * The bench's watcher counts the CPU of a benchmark's whole process tree as its own, including
 * descendants its cutime never receives: one reparented to init, and one still running at the end.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OwnTree, TREE_MARKER } from '../../bench/own-tree';

const BUSY_MS = 700;
const RUNNING_MS = 500;
/**
 * Node busy-looping until it has used `ms` of CPU (not of wall time: on a loaded machine it gets less
 * than a core), then touching `done`; with `forever` it keeps spinning after that.
 */
const busy = (ms: number, done: string, forever = false) =>
  `node -e 'for (let u = process.cpuUsage(); u.user + u.system < ${ms * 1000}; u = process.cpuUsage()); require("fs").writeFileSync(${JSON.stringify(done)}, ""); ${forever ? 'for (;;);' : ''}'`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(file: string): Promise<void> {
  for (let i = 0; i < 600 && !fs.existsSync(file); i++) await sleep(50);
  expect(fs.existsSync(file), `${file} never appeared`).toBe(true);
}

describe('the own process tree', () => {
  it('counts a busy descendant reparented to init, and one still running at the end', { timeout: 60_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-own-tree-'));
    const tree = new OwnTree().start(50);
    // a shell that starts a busy grandchild in the background and exits before it (the grandchild goes to init)
    const sh = spawn('sh', ['-c', `${busy(BUSY_MS, path.join(dir, 'orphan'))} & sleep 0.3; exit 0`], { stdio: 'ignore' });
    await new Promise((r) => sh.on('exit', r));
    await until(path.join(dir, 'orphan'));
    // a second child is still busy when the tree stops
    const running = spawn('sh', ['-c', `exec ${busy(RUNNING_MS, path.join(dir, 'running'), true)}`], { stdio: 'ignore' });
    await until(path.join(dir, 'running'));
    const ticks = tree.stop();
    running.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    // both busy-loops' CPU (minus start-up and the look's granularity): well over one loop's worth
    expect(ticks).toBeGreaterThan(((BUSY_MS + RUNNING_MS) / 10) * 0.8);
    expect(ticks).toBeLessThan(((BUSY_MS + RUNNING_MS) / 10) * 2 + 50);
  });

  it('does not count what this process will reap itself (a waited-for child)', { timeout: 30_000 }, async () => {
    const tree = new OwnTree().start(50);
    const child = spawn('node', ['-e', `const t=Date.now(); while (Date.now()-t<${BUSY_MS});`], { stdio: 'ignore' });
    await new Promise((r) => child.on('exit', r));
    expect(tree.stop()).toBe(0);
  });
});

describe('the run marker', () => {
  it('finds a descendant that left the tree before any look, by the marker in its environment', { timeout: 60_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-own-tree-'));
    const marker = `test-${process.pid}-${Date.now()}`;
    const tree = new OwnTree(process.pid, marker).start(250);
    // a double fork at once: the busy grandchild is init's before the first look can see its parent
    const sh = spawn('sh', ['-c', `${busy(BUSY_MS, path.join(dir, 'marked'))} & exit 0`], { stdio: 'ignore', env: { ...process.env, [TREE_MARKER]: marker } });
    await new Promise((r) => sh.on('exit', r));
    await until(path.join(dir, 'marked'));
    await sleep(500);
    expect(tree.stop()).toBeGreaterThan((BUSY_MS / 10) * 0.6);
    // without the marker it would be another's
    const blind = new OwnTree(process.pid, undefined).start(250);
    const sh2 = spawn('sh', ['-c', `${busy(BUSY_MS, path.join(dir, 'unmarked'))} & exit 0`], { stdio: 'ignore' });
    await new Promise((r) => sh2.on('exit', r));
    await until(path.join(dir, 'unmarked'));
    await sleep(500);
    expect(blind.stop()).toBeLessThan((BUSY_MS / 10) * 0.3);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
