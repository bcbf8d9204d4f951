/**
 * The bench's watcher counts the CPU of a benchmark's whole process tree as its own, including
 * descendants its cutime never receives: one reparented to init, and one still running at the end.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { OwnTree, TREE_MARKER } from '../../bench/own-tree';

const BUSY_MS = 700;
/** a shell that starts a busy grandchild in the background and exits before it (the grandchild goes to init) */
const ORPHAN = `node -e 'const t=Date.now(); while (Date.now()-t<${BUSY_MS});' & sleep 0.3; exit 0`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the own process tree', () => {
  it('counts a busy descendant reparented to init, and one still running at the end', { timeout: 30_000 }, async () => {
    const tree = new OwnTree().start(50);
    const sh = spawn('sh', ['-c', ORPHAN], { stdio: 'ignore' });
    await new Promise((r) => sh.on('exit', r));
    // the orphan busy-loops for BUSY_MS; a second child is still busy when the tree stops
    await sleep(BUSY_MS + 400);
    const running = spawn('node', ['-e', 'for(;;);'], { stdio: 'ignore' });
    await sleep(800);
    const ticks = tree.stop();
    running.kill('SIGKILL');
    // both busy-loops (minus start-up and the look's granularity): well over one loop's worth
    expect(ticks).toBeGreaterThan(((BUSY_MS + 800) / 10) * 0.6);
    expect(ticks).toBeLessThan(((BUSY_MS + 800) / 10) * 2 + 50);
  });

  it('does not count what this process will reap itself (a waited-for child)', { timeout: 30_000 }, async () => {
    const tree = new OwnTree().start(50);
    const child = spawn('node', ['-e', `const t=Date.now(); while (Date.now()-t<${BUSY_MS});`], { stdio: 'ignore' });
    await new Promise((r) => child.on('exit', r));
    expect(tree.stop()).toBe(0);
  });
});

describe('the run marker', () => {
  it('finds a descendant that left the tree before any look, by the marker in its environment', { timeout: 30_000 }, async () => {
    const marker = `test-${process.pid}-${Date.now()}`;
    const tree = new OwnTree(process.pid, marker).start(250);
    // a double fork at once: the busy grandchild is init's before the first look can see its parent
    const sh = spawn('sh', ['-c', `node -e 'const t=Date.now(); while (Date.now()-t<${BUSY_MS});' & exit 0`], { stdio: 'ignore', env: { ...process.env, [TREE_MARKER]: marker } });
    await new Promise((r) => sh.on('exit', r));
    await sleep(BUSY_MS + 500);
    expect(tree.stop()).toBeGreaterThan((BUSY_MS / 10) * 0.6);
    // without the marker it would be another's
    const blind = new OwnTree(process.pid, undefined).start(250);
    const sh2 = spawn('sh', ['-c', `node -e 'const t=Date.now(); while (Date.now()-t<${BUSY_MS});' & exit 0`], { stdio: 'ignore' });
    await new Promise((r) => sh2.on('exit', r));
    await sleep(BUSY_MS + 500);
    expect(blind.stop()).toBeLessThan((BUSY_MS / 10) * 0.3);
  });
});
