import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetTable } from '../../lib/contract/budget';
import { shadowFor } from '../../lib/checkpoints/shadow';
import { currentTree, restoreTree, takeSnapshot } from '../../lib/checkpoints/snapshot';
import { changedPaths, diffChanges } from '../../lib/checkpoints/diff';
import { mayChangeFiles } from '../../lib/checkpoints/session';
import { fileState, gitState, tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-ckpt-');
});
afterEach(() => ws.cleanup());

function git(...args: string[]) {
  return execFileSync('git', args, { cwd: ws.workspace, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString();
}

describe('the shadow repository', () => {
  it('restores files byte for byte (CRLF, BOM, binary, executable bit, symlink) and never touches the person’s .git', async () => {
    git('init', '-q');
    // a .gitattributes that would convert line endings in the person's own repository
    ws.write('.gitattributes', '* text=auto eol=crlf\n*.txt filter=nothing ident\n');
    ws.write('crlf.txt', 'one\r\ntwo\r\n$Id$\r\n');
    ws.write('bom.txt', '\uFEFFhello\n');
    ws.write('lf-only.txt', 'a\nb\n');
    ws.write('bin.dat', Buffer.from([0, 1, 2, 255, 13, 10, 0, 13]));
    ws.write('run.sh', '#!/bin/sh\necho hi\n');
    fs.chmodSync(path.join(ws.workspace, 'run.sh'), 0o755);
    fs.symlinkSync('crlf.txt', path.join(ws.workspace, 'link'));
    ws.write('sub/keep.txt', 'keep\n');
    ws.write('.gitignore', 'ignored.log\n');
    ws.write('ignored.log', 'not snapshotted\n');
    git('add', '.gitattributes', 'lf-only.txt');
    git('commit', '-q', '-m', 'init');
    const before = fileState(ws.workspace);
    const personGit = gitState(ws.workspace);

    const s = shadowFor(ws.dataDir, ws.workspace);
    const snap = await takeSnapshot(s, 'session-a', 'test');
    expect(snap.commit).toMatch(/^[0-9a-f]{40}$/);
    // .gitignore, .gitattributes, crlf, bom, lf-only, bin, run.sh, link, sub/keep (ignored.log left out)
    expect(snap.fileCount).toBe(9);

    // edits and a command's work: files changed, created, deleted, modes and a link changed
    ws.write('crlf.txt', 'changed\n');
    ws.write('bom.txt', 'no bom\n');
    fs.writeFileSync(path.join(ws.workspace, 'bin.dat'), Buffer.from([9, 9, 9]));
    fs.chmodSync(path.join(ws.workspace, 'run.sh'), 0o644);
    fs.rmSync(path.join(ws.workspace, 'link'));
    fs.writeFileSync(path.join(ws.workspace, 'link'), 'now a file\n');
    fs.rmSync(path.join(ws.workspace, 'sub'), { recursive: true });
    ws.write('made/by/command.txt', 'new\n');
    ws.write('ignored.log', 'changed but ignored\n');

    const now = await currentTree(s);
    const changes = await changedPaths(s, now.tree, snap.commit);
    expect(Object.fromEntries(changes.map((c) => [c.path, c.change]))).toEqual({
      'bin.dat': 'modified',
      'bom.txt': 'modified',
      'crlf.txt': 'modified',
      link: 'type',
      'made/by/command.txt': 'deleted',
      'run.sh': 'mode',
      'sub/keep.txt': 'added',
    });
    const diffs = await diffChanges(s, changes);
    const bin = diffs.files.find((f) => f.path === 'bin.dat')!;
    expect(bin.binary).toBe(true);
    expect(diffs.files.find((f) => f.path === 'crlf.txt')!.diff).toContain('+one\r');

    await takeSnapshot(s, 'session-a', 'before the rewind');
    await restoreTree(s, snap.commit);
    const after = fileState(ws.workspace);
    expect({ ...after, 'ignored.log': '(ignored)' }).toEqual({ ...before, 'ignored.log': '(ignored)' });
    expect(fs.existsSync(path.join(ws.workspace, 'made'))).toBe(false);
    expect(fs.readFileSync(path.join(ws.workspace, 'ignored.log'), 'utf8')).toBe('changed but ignored\n');
    expect(gitState(ws.workspace)).toEqual(personGit);
    expect(git('status', '--porcelain')).not.toContain('lf-only.txt');
  });

  it('skips files over CHECKPOINT_FILE_MAX_BYTES and honours .clampignore and CLAMP_IGNORE', async () => {
    ws.write('small.txt', 'x');
    ws.write('big.bin', Buffer.alloc(5000, 1));
    ws.write('secret/key.pem', 'k');
    ws.write('gen/out.js', 'g');
    ws.write('.clampignore', 'secret/\n');
    const old = process.env.CLAMP_IGNORE;
    process.env.CLAMP_IGNORE = 'gen/**, nothing';
    try {
      const s = shadowFor(ws.dataDir, ws.workspace, budgetTable({ CHECKPOINT_FILE_MAX_BYTES: 1000 }));
      const snap = await takeSnapshot(s, 'session-b', 'test');
      expect(snap.skipped).toEqual([{ path: 'big.bin', bytes: 5000 }]);
      expect(snap.fileCount).toBe(2);
      // a file that grows past the cap leaves the next snapshot, and a restore leaves it alone
      ws.write('small.txt', Buffer.alloc(2000, 2));
      const second = await takeSnapshot(s, 'session-b', 'test');
      expect(second.skipped.map((f) => f.path).sort()).toEqual(['big.bin', 'small.txt']);
      expect((await changedPaths(s, snap.commit, second.commit)).map((c) => `${c.change} ${c.path}`)).toEqual(['deleted small.txt']);
    } finally {
      if (old === undefined) delete process.env.CLAMP_IGNORE;
      else process.env.CLAMP_IGNORE = old;
    }
  });
});

describe('the trigger', () => {
  it('checkpoints before writes and commands that may write, not before reads or read-only commands', async () => {
    expect(await mayChangeFiles('write', { path: 'a' }, ws.workspace)).toBe(true);
    expect(await mayChangeFiles('read', { path: 'a' }, ws.workspace)).toBe(false);
    expect(await mayChangeFiles('system', { command: 'ls -la && git status' }, ws.workspace)).toBe(false);
    expect(await mayChangeFiles('system', { command: 'rm -f a.txt' }, ws.workspace)).toBe(true);
    expect(await mayChangeFiles('system', { command: 'echo hi > out.txt' }, ws.workspace)).toBe(true);
    expect(await mayChangeFiles('system', { message: 'a commit' }, ws.workspace)).toBe(true);
  });
});
