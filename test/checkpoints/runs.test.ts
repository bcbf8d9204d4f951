import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetTable } from '../../lib/contract/budget';
import { bwrapPath, sandboxStatus } from '../../lib/exec/sandbox';
import { shadowFor } from '../../lib/checkpoints/shadow';
import { restoreTree, takeSnapshot, workspaceChanges } from '../../lib/checkpoints/snapshot';
import { diffChanges } from '../../lib/checkpoints/diff';
import { tempWorkspace } from '../helpers';

/**
 * How many sandboxed processes the checkpoints start: each one is a bwrap, git and its shell inside it, and a
 * Node spawn with its pipes, logs and cgroup around it (tens of ms of the server's CPU). bwrap is the real one,
 * behind a wrapper that counts its starts.
 */

let ws: ReturnType<typeof tempWorkspace>;
let saved: string | undefined;
let counter = '';
beforeEach(() => {
  ws = tempWorkspace('clamp-ckpt-runs-');
  saved = process.env.CLAMP_BWRAP;
  counter = path.join(ws.root, 'starts');
  const wrapper = path.join(ws.root, 'bwrap');
  fs.writeFileSync(wrapper, `#!/bin/sh\necho start >> '${counter}'\nexec '${bwrapPath()}' "$@"\n`, { mode: 0o755 });
  process.env.CLAMP_BWRAP = wrapper;
  // the probe (once per process and program) is not a checkpoint's
  sandboxStatus();
  fs.rmSync(counter, { force: true });
});
afterEach(() => {
  if (saved === undefined) delete process.env.CLAMP_BWRAP;
  else process.env.CLAMP_BWRAP = saved;
  ws.cleanup();
});

/** The sandboxed processes started since the last call. */
function starts(): number {
  let n = 0;
  try {
    n = fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    // none yet
  }
  fs.rmSync(counter, { force: true });
  return n;
}

const sandboxed = !!bwrapPath() && process.env.CLAMP_SANDBOX !== 'off' && sandboxStatus().available;

describe('sandboxed runs per checkpoint', () => {
  it.skipIf(!sandboxed)('one per snapshot (a new shadow repository included), one for the changes view with its diffs, one for a restore with its list', async () => {
    ws.write('a.txt', 'a\n');
    ws.write('-n odd name.txt', Buffer.alloc(300, 1));
    const s = shadowFor(ws.dataDir, ws.workspace, budgetTable({ CHECKPOINT_FILE_MAX_BYTES: 100, CHECKPOINT_DIFF_FILE_MAX_BYTES: 50 }));
    const first = await takeSnapshot(s, 'runs', 'first');
    expect(starts()).toBe(1);
    expect(first.fileCount).toBe(1);
    expect(first.skipped).toEqual([{ path: '-n odd name.txt', bytes: 300 }]);

    ws.write('b.txt', 'b\n');
    ws.write('a.txt', 'a changed\n');
    const second = await takeSnapshot(s, 'runs', 'second');
    expect(starts()).toBe(1);
    expect(second.fileCount).toBe(2);

    ws.write('c.txt', 'c\n');
    ws.write('big.txt', 'x'.repeat(90));
    fs.symlinkSync('a.txt', path.join(ws.workspace, 'link'));
    // the changes view: the list and the blobs its diffs need in one run
    const now = await workspaceChanges(s, { from: first.commit, blobs: true });
    expect(starts()).toBe(1);
    expect(now.changes.map((c) => `${c.change} ${c.path}`)).toEqual(['modified a.txt', 'added b.txt', 'added big.txt', 'added c.txt', 'added link']);
    const d = await diffChanges(s, now.changes, now.blobs);
    expect(starts()).toBe(0);
    const summary = d.files.map((f) => [f.path, f.additions, f.deletions, f.diff.includes('not diffed')]);
    expect(summary).toEqual([['a.txt', 1, 1, false], ['b.txt', 1, 0, false], ['big.txt', 0, 0, true], ['c.txt', 1, 0, false], ['link', 1, 0, false]]);
    // the same diffs when the blobs are read on their own (one run)
    const again = await diffChanges(s, (await workspaceChanges(s, { from: first.commit })).changes);
    expect(starts()).toBe(2);
    expect(again).toEqual(d);

    // a rewind: the snapshot before it, then the restore listing what it changes, one run each
    const undo = await takeSnapshot(s, 'runs', 'undo');
    expect(starts()).toBe(1);
    const restored = await restoreTree(s, first.commit, undo.commit);
    expect(starts()).toBe(1);
    expect(restored.map((c) => `${c.change} ${c.path}`)).toEqual(['modified a.txt', 'deleted b.txt', 'deleted big.txt', 'deleted c.txt', 'deleted link']);
    expect(ws.read('a.txt')).toBe('a\n');
    expect(fs.existsSync(path.join(ws.workspace, 'c.txt'))).toBe(false);
  });

  it.skipIf(!sandboxed)('the changes view’s one run reads the same blobs as a run of their own: past the file cap, a name with a newline', async () => {
    ws.write('a.txt', 'a\n');
    const s = shadowFor(ws.dataDir, ws.workspace, budgetTable({ CHECKPOINT_DIFF_MAX_FILES: 2 }));
    const first = await takeSnapshot(s, 'runs', 'first');
    ws.write('a\nb.txt', 'newline in the name\n');
    ws.write('a.txt', 'changed\n');
    ws.write('z.txt', 'past the cap\n');
    starts();
    const now = await workspaceChanges(s, { from: first.commit, blobs: true });
    const d = await diffChanges(s, now.changes, now.blobs);
    expect(starts()).toBe(1);
    expect(d.files.map((f) => [f.path, f.additions])).toEqual([['a\nb.txt', 1], ['a.txt', 1], ['z.txt', 0]]);
    expect(d.truncated).toBe(true);
    expect(await diffChanges(s, now.changes)).toEqual(d);
  });
});
