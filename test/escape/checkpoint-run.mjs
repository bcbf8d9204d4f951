#!/usr/bin/env node
// One round of checkpoints the way the server takes them, in this process (run it as the user to test):
//   node test/escape/checkpoint-run.mjs <workspace> <data dir> <file>
// Snapshots the workspace, appends a line to <file>, snapshots again, compares the two, restores the first
// (the whole tree), then the second's <file> alone. Prints one JSON object: what each step saw, or the error.
import fs from 'node:fs';
import path from 'node:path';
import { loadLib } from './load-lib.mjs';

const { shadowFor, restorePath, restoreTree, takeSnapshot, changedPaths } = await loadLib('checkpoint-run');

const [workspace, dataDir, file] = process.argv.slice(2);
const abs = path.join(workspace, file);
const out = {};
try {
  const s = shadowFor(dataDir, workspace);
  const first = await takeSnapshot(s, 'escape', 'first');
  out.original = fs.readFileSync(abs, 'utf8');
  fs.appendFileSync(abs, 'changed\n');
  const second = await takeSnapshot(s, 'escape', 'second');
  out.changed = (await changedPaths(s, first.commit, second.commit)).map((c) => c.path);
  await restoreTree(s, first.commit);
  out.restored = fs.readFileSync(abs, 'utf8');
  await restorePath(s, second.commit, file);
  out.again = fs.readFileSync(abs, 'utf8');
  out.shadow = s.gitDir;
} catch (err) {
  out.error = err instanceof Error ? err.message : String(err);
}
process.stdout.write(`${JSON.stringify(out)}\n`);
