import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { sessionRoot, setWorktreeSettings } from '../../lib/store/worktrees';
import { branchSlug, ensureWorktree, finishWorktree, requestWorktree } from '../../lib/server/worktrees';
import type { ServerConfig } from '../../lib/server/http';
import { sessionChanges } from '../../lib/server/changes';
import { takeCheckpoint } from '../../lib/checkpoints/session';
import { getTaskManager } from '../../lib/tasks/manager';
import { tempWorkspace } from '../helpers';

/** Sessions on their own worktrees of a real git repository: made, files copied in, merged, kept, discarded. */

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

function session(): string {
  return createSession(openDb(cfg.dataDir), { workspace: cfg.workspace }).id;
}

beforeEach(() => {
  ws = tempWorkspace('clamp-wt-');
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  git(ws.workspace, 'init', '-q', '-b', 'main');
  ws.write('a.txt', 'one\n');
  ws.write('.gitignore', '.env*\nsecret/\nbuild/\n');
  git(ws.workspace, 'add', '-A');
  git(ws.workspace, 'commit', '-q', '-m', 'first');
  ws.write('.env', 'KEY=1\n');
  ws.write('.env.local', 'KEY=2\n');
  ws.write('build/out.bin', 'not copied\n');
});
afterEach(() => ws.cleanup());

describe('worktrees', () => {
  it('names the branch from the first message, makes it in the data dir and copies .env* and .worktreeinclude files, never a link', async () => {
    ws.write('.worktreeinclude', '# copied too\nsecret/\n');
    ws.write('secret/key.txt', 'k\n');
    fs.symlinkSync('/etc/hostname', path.join(ws.workspace, '.env.link'));
    const id = session();
    const pending = await requestWorktree(cfg, id, {});
    expect(pending).toMatchObject({ state: 'pending', base: 'main', branch: null });
    expect(sessionRoot(openDb(cfg.dataDir), id, cfg.workspace)).toBe(cfg.workspace);
    const w = (await ensureWorktree(cfg, id, 'Fix the login bug, please!'))!;
    expect(w.branch).toBe('fix-the-login-bug-please');
    expect(w.path!.startsWith(path.join(ws.dataDir, 'worktrees') + path.sep)).toBe(true);
    expect(sessionRoot(openDb(cfg.dataDir), id, cfg.workspace)).toBe(w.path);
    expect(fs.readFileSync(path.join(w.path!, '.env'), 'utf8')).toBe('KEY=1\n');
    expect(fs.readFileSync(path.join(w.path!, '.env.local'), 'utf8')).toBe('KEY=2\n');
    expect(fs.readFileSync(path.join(w.path!, 'secret/key.txt'), 'utf8')).toBe('k\n');
    expect(fs.existsSync(path.join(w.path!, '.env.link'))).toBe(false);
    expect(fs.existsSync(path.join(w.path!, 'build/out.bin'))).toBe(false);
    expect(git(ws.workspace, 'worktree', 'list')).toContain(w.path!);
    // a second session with the same task gets its own branch
    const id2 = session();
    await requestWorktree(cfg, id2, {});
    expect((await ensureWorktree(cfg, id2, 'Fix the login bug, please!'))!.branch).toBe('fix-the-login-bug-please-2');
  });

  it('puts worktrees in the folder the settings name, and refuses a workspace outside git', async () => {
    const folder = path.join(ws.root, 'trees');
    setWorktreeSettings(openDb(cfg.dataDir), { folder });
    const w = await requestWorktree(cfg, session(), { name: 'My Feature' });
    expect(w).toMatchObject({ state: 'active', branch: 'my-feature' });
    expect(w.path!.startsWith(fs.realpathSync(folder) + path.sep) || w.path!.startsWith(folder + path.sep)).toBe(true);
    const plain = tempWorkspace('clamp-wt-plain-');
    try {
      const c2 = { workspace: plain.workspace, dataDir: plain.dataDir, mode: 'default' as const };
      const id = createSession(openDb(c2.dataDir), { workspace: c2.workspace }).id;
      await expect(requestWorktree(c2, id, {})).rejects.toThrow(/is not in a git repository.*Run git init there/s);
    } finally {
      plain.cleanup();
    }
  });

  it('merges the session work into the base branch and removes the folder', async () => {
    const id = session();
    const w = await requestWorktree(cfg, id, { name: 'merge me' });
    // the changes view works in the worktree: a checkpoint of it first, then the changes against it
    await takeCheckpoint(openDb(cfg.dataDir), { dataDir: cfg.dataDir, workspace: w.path! }, { sessionId: id, messageId: null, kind: 'turn' });
    fs.writeFileSync(path.join(w.path!, 'a.txt'), 'one\ntwo\n');
    fs.writeFileSync(path.join(w.path!, 'new.txt'), 'new\n');
    expect(ws.read('a.txt')).toBe('one\n');
    const view = await sessionChanges(cfg, id);
    expect(view.files.map((f) => f.path).sort()).toEqual(['a.txt', 'new.txt']);
    expect(view.commit).toEqual({ kind: 'none', reason: 'This session works in its own worktree on the branch merge-me: "Merge into main" and "Keep the branch" above commit its changes on that branch.' });
    const r = await finishWorktree(cfg, id, { action: 'merge' }, false);
    expect(r.ok, r.message).toBe(true);
    expect(r.worktree.state).toBe('merged');
    expect(ws.read('a.txt')).toBe('one\ntwo\n');
    expect(ws.read('new.txt')).toBe('new\n');
    expect(fs.existsSync(w.path!)).toBe(false);
    expect(git(ws.workspace, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(sessionRoot(openDb(cfg.dataDir), id, cfg.workspace)).toBe(cfg.workspace);
    // the worktree's checkpoints went with its folder: the view starts afresh in the workspace
    expect(await sessionChanges(cfg, id)).toMatchObject({ baselineId: null, files: [] });
  });

  it("shows a worktree's changes against its merge-base: its own commits count, the base's later ones do not", async () => {
    const id = session();
    const w = await requestWorktree(cfg, id, { name: 'against base' });
    await takeCheckpoint(openDb(cfg.dataDir), { dataDir: cfg.dataDir, workspace: w.path! }, { sessionId: id, messageId: null, kind: 'turn' });
    // the session changes a.txt and commits it on its branch, and leaves mine.txt uncommitted
    fs.writeFileSync(path.join(w.path!, 'a.txt'), 'one\nfrom the session\n');
    git(w.path!, 'commit', '-q', '-am', 'session work');
    fs.writeFileSync(path.join(w.path!, 'mine.txt'), 'mine\n');
    // main moves on, and its commit is merged into the session's branch (as resolving a conflict does)
    ws.write('later.txt', 'later on main\n');
    git(ws.workspace, 'add', 'later.txt');
    git(ws.workspace, 'commit', '-q', '-m', 'later on main');
    git(w.path!, 'merge', '-q', '--no-edit', 'main');
    expect(fs.existsSync(path.join(w.path!, 'later.txt'))).toBe(true);
    const view = await sessionChanges(cfg, id);
    expect(view.files.map((f) => [f.path, f.change])).toEqual([
      ['a.txt', 'modified'],
      ['mine.txt', 'added'],
    ]);
    expect(view.files[0]!.diff).toContain('+from the session');
  });

  it('reports a conflict with its files, aborts the merge and loses nothing', async () => {
    const id = session();
    const w = await requestWorktree(cfg, id, { name: 'conflicting' });
    fs.writeFileSync(path.join(w.path!, 'a.txt'), 'from the session\n');
    ws.write('a.txt', 'from main\n');
    git(ws.workspace, 'commit', '-q', '-am', 'main moves');
    const r = await finishWorktree(cfg, id, { action: 'merge' }, false);
    expect(r.ok).toBe(false);
    expect(r.conflicts).toEqual(['a.txt']);
    expect(r.message).toMatch(/conflicts in a\.txt\. The merge was aborted/);
    expect(ws.read('a.txt')).toBe('from main\n');
    expect(git(ws.workspace, 'status', '--porcelain')).toBe('');
    expect(fs.readFileSync(path.join(w.path!, 'a.txt'), 'utf8')).toBe('from the session\n');
    expect(git(ws.workspace, 'show', 'conflicting:a.txt')).toBe('from the session\n');
    expect(r.worktree.state).toBe('active');
  });

  it('keeps the branch with the work committed, the folder removed', async () => {
    const id = session();
    const w = await requestWorktree(cfg, id, { name: 'kept' });
    fs.writeFileSync(path.join(w.path!, 'k.txt'), 'kept\n');
    const r = await finishWorktree(cfg, id, { action: 'keep' }, false);
    expect(r).toMatchObject({ ok: true, worktree: { state: 'kept', branch: 'kept' } });
    expect(fs.existsSync(w.path!)).toBe(false);
    expect(git(ws.workspace, 'show', 'kept:k.txt')).toBe('kept\n');
    expect(git(ws.workspace, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('refuses to discard uncommitted changes unless confirmed, then removes folder and branch', async () => {
    const id = session();
    const w = await requestWorktree(cfg, id, { name: 'throwaway' });
    fs.writeFileSync(path.join(w.path!, 'x.txt'), 'x\n');
    const refused = await finishWorktree(cfg, id, { action: 'discard' }, false);
    expect(refused.ok).toBe(false);
    expect(refused.uncommitted).toContain('x.txt');
    expect(refused.message).toMatch(/1 uncommitted file \(x\.txt\)\. Discard removes them for good: confirm/);
    expect(fs.existsSync(path.join(w.path!, 'x.txt'))).toBe(true);
    const r = await finishWorktree(cfg, id, { action: 'discard', confirm: true }, false);
    expect(r).toMatchObject({ ok: true, worktree: { state: 'discarded' } });
    expect(fs.existsSync(w.path!)).toBe(false);
    expect(git(ws.workspace, 'branch', '--list', 'throwaway')).toBe('');
    expect(git(ws.workspace, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    await expect(finishWorktree(cfg, id, { action: 'discard' }, false)).rejects.toThrow(/already finished \(discarded/);
  });

  it('refuses to finish while a background task of the session runs in the worktree', async () => {
    const id = session();
    const w = await requestWorktree(cfg, id, { name: 'tasked' });
    const tasks = getTaskManager(cfg.dataDir);
    const t = tasks.start({ command: 'sleep 30', cwd: w.path!, sessionId: id });
    try {
      await expect(finishWorktree(cfg, id, { action: 'discard', confirm: true }, false)).rejects.toThrow("This session's background task runs in the worktree (sleep 30). Stop it in the task panel, then finish the worktree.");
      expect(fs.existsSync(w.path!)).toBe(true);
    } finally {
      await tasks.kill(t.id, 'user');
    }
    expect((await finishWorktree(cfg, id, { action: 'discard', confirm: true }, false)).ok).toBe(true);
  });

  it("finishing one worktree leaves the other sessions' worktrees working", async () => {
    const one = session();
    const two = session();
    const w1 = await requestWorktree(cfg, one, { name: 'first' });
    const w2 = await requestWorktree(cfg, two, { name: 'second' });
    fs.writeFileSync(path.join(w2.path!, 'two.txt'), 'two\n');
    expect((await finishWorktree(cfg, one, { action: 'discard', confirm: true }, false)).ok).toBe(true);
    expect(fs.existsSync(w1.path!)).toBe(false);
    expect(git(ws.workspace, 'worktree', 'list')).toContain(w2.path!);
    expect(git(w2.path!, 'status', '--porcelain')).toContain('two.txt');
    const r = await finishWorktree(cfg, two, { action: 'discard' }, false);
    expect(r.uncommitted).toEqual(['two.txt']);
  });

  it('refuses to finish while a turn runs', async () => {
    const id = session();
    await requestWorktree(cfg, id, { name: 'busy' });
    await expect(finishWorktree(cfg, id, { action: 'discard' }, true)).rejects.toThrow(/working on a turn/);
  });

  it('slugs', () => {
    expect(branchSlug('  Ünïcode: add a --flag!  ')).toBe('unicode-add-a-flag');
    expect(branchSlug('???')).toBe('session');
    expect(branchSlug('x'.repeat(100)).length).toBe(48);
  });
});
