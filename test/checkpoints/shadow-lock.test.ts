import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { shadowFor, shadowGit } from '../../lib/checkpoints/shadow';
import { takeSnapshot } from '../../lib/checkpoints/snapshot';
import { tempWorkspace } from '../helpers';

/**
 * Two processes on one shadow repository (the server and `clamp run` on one data dir): their snapshots queue on
 * the repository's lock instead of breaking each other's git; a lock git left is removed only when it is old and
 * nobody uses the repository; a lock file of a dead process is taken over, one of a live process waited for.
 */

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-shadow-lock-');
  ws.write('base.txt', 'base\n');
});
afterEach(() => ws.cleanup());

/** A process of its own taking `count` snapshots of the workspace, each after writing a file of its own. */
function snapshotter(tag: string, count: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const code = `
    import fs from 'node:fs';
    import path from 'node:path';
    import { shadowFor } from ${JSON.stringify(path.join(ROOT, 'lib/checkpoints/shadow.ts'))};
    import { takeSnapshot } from ${JSON.stringify(path.join(ROOT, 'lib/checkpoints/snapshot.ts'))};
    const s = shadowFor(${JSON.stringify(ws.dataDir)}, ${JSON.stringify(ws.workspace)});
    for (let i = 0; i < ${count}; i++) {
      fs.writeFileSync(path.join(${JSON.stringify(ws.workspace)}, '${tag}-' + i + '.txt'), '${tag} ' + i + '\\n');
      const snap = await takeSnapshot(s, 'session-${tag}', '${tag} ' + i);
      console.log(snap.commit);
    }
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const ago = (file: string, ms: number) => {
  const t = new Date(Date.now() - ms);
  fs.utimesSync(file, t, t);
};

describe("the shadow repository's lock across processes", () => {
  it('two processes snapshotting one workspace at once both succeed, each snapshot whole', { timeout: 180_000 }, async () => {
    const [a, b] = await Promise.all([snapshotter('a', 6), snapshotter('b', 6)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const s = shadowFor(ws.dataDir, ws.workspace);
    // each process's last snapshot holds every file it wrote
    for (const [tag, run] of [['a', a], ['b', b]] as const) {
      const last = run.stdout.trim().split('\n').at(-1)!;
      const files = (await shadowGit(s, ['ls-tree', '-r', '--name-only', last], 'listing')).stdout.toString().split('\n');
      for (let i = 0; i < 6; i++) expect(files).toContain(`${tag}-${i}.txt`);
    }
    expect(fs.existsSync(path.join(s.gitDir, 'clamp-shadow.lock'))).toBe(false);
    expect(fs.existsSync(`${s.indexFile}.lock`)).toBe(false);
  });

  it("leaves a fresh index.lock alone (a running git's), removes an old one nobody holds", { timeout: 60_000 }, async () => {
    const s = shadowFor(ws.dataDir, ws.workspace);
    await takeSnapshot(s, 'one', 'first');
    const lock = `${s.indexFile}.lock`;
    fs.writeFileSync(lock, '');
    await expect(takeSnapshot(s, 'one', 'second')).rejects.toThrow(/Another git process seems to be running in this repository/);
    expect(fs.existsSync(lock)).toBe(true);
    ago(lock, s.budget.CHECKPOINT_GIT_LOCK_STALE_MS + 5000);
    await takeSnapshot(s, 'one', 'third');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("takes over the lock of a dead process (and the fresh git lock its killed git left), and waits for a live one's", { timeout: 60_000 }, async () => {
    const s = shadowFor(ws.dataDir, ws.workspace);
    await takeSnapshot(s, 'one', 'first');
    const held = path.join(s.gitDir, 'clamp-shadow.lock');
    const dead = spawnSync('true').pid!;
    fs.writeFileSync(held, JSON.stringify({ pid: dead, host: os.hostname(), token: 'dead' }));
    // the dead holder's git was killed with it (a crash mid-snapshot): its fresh index.lock goes too
    fs.writeFileSync(`${s.indexFile}.lock`, '');
    await takeSnapshot(s, 'one', 'after a dead holder');
    expect(fs.existsSync(held)).toBe(false);
    expect(fs.existsSync(`${s.indexFile}.lock`)).toBe(false);

    const sleeper = spawn('sleep', ['30']);
    try {
      fs.writeFileSync(held, JSON.stringify({ pid: sleeper.pid, host: os.hostname(), token: 'live' }));
      let done = false;
      const snap = takeSnapshot(s, 'one', 'after a live holder').then(() => (done = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(done).toBe(false);
      expect(JSON.parse(fs.readFileSync(held, 'utf8'))).toMatchObject({ token: 'live' });
      fs.rmSync(held);
      await snap;
      expect(done).toBe(true);
    } finally {
      sleeper.kill();
    }
  });
});
