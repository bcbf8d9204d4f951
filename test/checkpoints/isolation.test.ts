import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWorkspaceText, shadowSandbox } from '../../lib/checkpoints/isolation';
import { shadowFor } from '../../lib/checkpoints/shadow';
import { restoreTree, takeSnapshot } from '../../lib/checkpoints/snapshot';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-ckpt-iso-');
});
afterEach(() => ws.cleanup());

describe('where the shadow repository runs git', () => {
  it('in the sandbox when bubblewrap can start: read-only but for the shadow repository, the workspace writable only to restore', () => {
    const s = shadowFor(ws.dataDir, ws.workspace);
    expect(shadowSandbox(s, false, process.env)).toEqual({ level: 'read-only', workspace: ws.workspace, dataDir: ws.dataDir, network: false, writable: [s.gitDir] });
    expect(shadowSandbox(s, true, process.env)?.level).toBe('workspace-write');
  });

  it('isolated only when the sandbox is off or cannot start', () => {
    const s = shadowFor(ws.dataDir, ws.workspace);
    expect(shadowSandbox(s, false, { ...process.env, CLAMP_SANDBOX: 'off' })).toBeUndefined();
    expect(shadowSandbox(s, true, { ...process.env, CLAMP_BWRAP: path.join(ws.root, 'no-bwrap') })).toBeUndefined();
  });

  it('snapshots and restores work there; a nested repository is recorded by its commit without starting its git', async () => {
    ws.write('a.txt', 'one\n');
    const s = shadowFor(ws.dataDir, ws.workspace);
    const first = await takeSnapshot(s, 'sb', 'first');
    ws.write('a.txt', 'two\n');
    await takeSnapshot(s, 'sb', 'second');
    await restoreTree(s, first.commit);
    expect(ws.read('a.txt')).toBe('one\n');
    // a nested repository's git is never started: its status is taken as clean, its commit recorded
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    execFileSync('bash', ['-c', 'git init -q sub && cd sub && echo s > s.txt && git add s.txt && git commit -qm s'], { cwd: ws.workspace, env });
    const third = await takeSnapshot(s, 'sb', 'third');
    expect(third.fileCount).toBe(2);
  });
});

describe('what a snapshot reads of the workspace as data', () => {
  it('a regular file inside the workspace, at most maxBytes', () => {
    ws.write('.clampignore', 'dist/\nbuild/\n');
    expect(readWorkspaceText(ws.workspace, '.clampignore', 1 << 20)).toBe('dist/\nbuild/\n');
    expect(readWorkspaceText(ws.workspace, '.clampignore', 5)).toBe('dist/');
  });

  it('nothing through a link that leads out, from a FIFO (no wait), a folder or a missing file', () => {
    fs.writeFileSync(path.join(ws.root, 'secret'), 'key\n');
    fs.symlinkSync(path.join(ws.root, 'secret'), path.join(ws.workspace, '.clampignore'));
    expect(readWorkspaceText(ws.workspace, '.clampignore', 1 << 20)).toBe('');
    execFileSync('mkfifo', [path.join(ws.workspace, 'fifo')]);
    expect(readWorkspaceText(ws.workspace, 'fifo', 1 << 20)).toBe('');
    fs.mkdirSync(path.join(ws.workspace, 'dir'));
    expect(readWorkspaceText(ws.workspace, 'dir', 1 << 20)).toBe('');
    expect(readWorkspaceText(ws.workspace, 'missing', 1 << 20)).toBe('');
  });
});
