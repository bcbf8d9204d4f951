import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_20K_BOUNDS_MS, CHECKPOINT_BENCH_FILES, makeTree, touchTen } from '../../bench/checkpoint';
import { shadowFor } from '../../lib/checkpoints/shadow';
import { takeSnapshot } from '../../lib/checkpoints/snapshot';
import { changedPaths } from '../../lib/checkpoints/diff';
import { tempWorkspace } from '../helpers';

const ws = tempWorkspace('clamp-ckpt-big-');
afterAll(() => ws.cleanup());

describe('a 20,000-file workspace', () => {
  it('checkpoints within the bench’s bounds, first and incrementally', { timeout: 180_000 }, async () => {
    makeTree(ws.workspace);
    const s = shadowFor(ws.dataDir, ws.workspace);
    let t = performance.now();
    const first = await takeSnapshot(s, 'big', 'first');
    const firstMs = performance.now() - t;
    // every file but the ignored node_modules one, plus .gitignore
    expect(first.fileCount).toBe(CHECKPOINT_BENCH_FILES + 1);
    expect(firstMs).toBeLessThan(CHECKPOINT_20K_BOUNDS_MS.first);

    touchTen(ws.workspace, 1);
    t = performance.now();
    const next = await takeSnapshot(s, 'big', 'incremental');
    const nextMs = performance.now() - t;
    expect(nextMs).toBeLessThan(CHECKPOINT_20K_BOUNDS_MS.incremental);
    expect((await changedPaths(s, first.commit, next.commit)).map((c) => c.change)).toEqual(Array(10).fill('modified'));
    expect(fs.existsSync(s.gitDir)).toBe(true);
  });
});
