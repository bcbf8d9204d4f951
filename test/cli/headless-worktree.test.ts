import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { parseRunArgs, UsageError } from '../../lib/server/headless/args';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession, listSessions } from '../../lib/store/sessions';
import { getWorktree } from '../../lib/store/worktrees';
import { tempWorkspace } from '../helpers';

/** `clamp run --worktree`: the new session works in its own worktree, its branch named from the prompt or the flag. */

const BIN = path.join(ROOT, 'bin/clamp.mjs');
const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as unknown as NodeJS.ProcessEnv;
let ws: ReturnType<typeof tempWorkspace>;

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws.workspace, encoding: 'utf8' });

/**
 * `clamp run` whose model writes notes.txt (content: `content`), from `cwd` (default the workspace, CLAMP_WORKSPACE
 * set to it; else none). A continued session's model calls count on from its earlier ones (`earlier` of them).
 */
function run(args: string[], o: { cwd?: string; content?: string; earlier?: number } = {}) {
  const file = path.join(ws.root, `script-${Math.random().toString(36).slice(2)}.json`);
  const before = Array.from({ length: o.earlier ?? 0 }, () => ({ text: '(an earlier step)' }));
  fs.writeFileSync(file, JSON.stringify([...before, { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: o.content ?? 'from the run\n' } }] }, { text: 'Written.' }]));
  return spawnSync(process.execPath, [BIN, 'run', '--allow', 'write_file', ...args], {
    cwd: o.cwd ?? ws.workspace,
    env: { ...BARE_ENV, ...(o.cwd ? {} : { CLAMP_WORKSPACE: ws.workspace }), CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: `scripted:${file}` },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

beforeAll(() => {
  ws = tempWorkspace('clamp-headless-wt-');
  ws.write('notes.txt', 'original\n');
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
});
afterAll(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

describe('clamp run --worktree', () => {
  it('parses --worktree and --worktree=<branch>, and refuses it with --session', () => {
    expect(parseRunArgs(['--worktree', 'do it'])).toMatchObject({ worktree: {}, prompt: 'do it' });
    expect(parseRunArgs(['--worktree=my-fix', 'do it'])).toMatchObject({ worktree: { name: 'my-fix' } });
    expect(() => parseRunArgs(['--worktree=', 'x'])).toThrow(UsageError);
    expect(() => parseRunArgs(['--worktree', '--session', 'abc', 'x'])).toThrow(/--worktree starts a new session/);
  });

  it("runs the turn in a new worktree named from the prompt; the main checkout is untouched", { timeout: 150_000 }, async () => {
    const r = run(['--worktree', '--json', 'Update the notes']);
    expect(r.status, r.stderr).toBe(0);
    const header = JSON.parse(r.stdout.split('\n')[0]!) as { sessionId: string; workspace: string; worktree: { branch: string; state: string } };
    expect(header.worktree).toMatchObject({ branch: 'update-the-notes', state: 'active' });
    expect(fs.readFileSync(path.join(header.workspace, 'notes.txt'), 'utf8')).toBe('from the run\n');
    expect(ws.read('notes.txt')).toBe('original\n');
    expect(git('worktree', 'list')).toContain(header.workspace);
    expect(getWorktree(openDb(ws.dataDir), header.sessionId)?.path).toBe(header.workspace);
  });

  it('names the branch from the flag, and leaves no session behind outside git', { timeout: 150_000 }, async () => {
    const r = run(['--worktree=Named Fix', 'Anything']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/worktree, branch named-fix from main/);
    const plain = tempWorkspace('clamp-headless-plain-');
    try {
      fs.writeFileSync(path.join(plain.root, 's.json'), JSON.stringify([{ text: 'x' }]));
      const p = spawnSync(process.execPath, [BIN, 'run', '--worktree', 'x'], { cwd: plain.workspace, env: { ...BARE_ENV, CLAMP_WORKSPACE: plain.workspace, CLAMP_DATA_DIR: plain.dataDir, CLAMP_MODEL: `scripted:${path.join(plain.root, 's.json')}` }, encoding: 'utf8', timeout: 60_000 });
      expect(p.stderr).toMatch(/--worktree: .* is not in a git repository/);
      expect(p.status).toBe(2);
      expect(listSessions(openDb(plain.dataDir), plain.workspace)).toEqual([]);
      closeDb(plain.dataDir);
    } finally {
      plain.cleanup();
    }
  });

  it('--session runs in the session\'s own worktree and workspace, wherever it is started', { timeout: 150_000 }, async () => {
    const first = run(['--worktree=resumed', '--json', 'Start']);
    expect(first.status, first.stderr).toBe(0);
    const { sessionId, workspace: tree } = JSON.parse(first.stdout.split('\n')[0]!) as { sessionId: string; workspace: string };
    // from another folder, no CLAMP_WORKSPACE: the session's own worktree, not the folder it was started in
    const elsewhere = path.join(ws.root, 'elsewhere');
    fs.mkdirSync(elsewhere, { recursive: true });
    const again = run(['--session', sessionId, 'Go on'], { cwd: elsewhere, content: 'second run\n', earlier: 2 });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`session ${sessionId}`);
    expect(again.stderr).toContain(`${tree} (worktree, branch resumed from main)`);
    expect(fs.readFileSync(path.join(tree, 'notes.txt'), 'utf8')).toBe('second run\n');
    expect(fs.existsSync(path.join(elsewhere, 'notes.txt'))).toBe(false);
    expect(ws.read('notes.txt')).toBe('original\n');
    expect(git('status', '--porcelain')).toBe('');
    // started inside the worktree's own folder: the same
    const inside = run(['--session', sessionId, 'Once more'], { cwd: tree, content: 'third run\n', earlier: 4 });
    expect(inside.status, inside.stderr).toBe(0);
    expect(fs.readFileSync(path.join(tree, 'notes.txt'), 'utf8')).toBe('third run\n');
    expect(ws.read('notes.txt')).toBe('original\n');
  });

  it("--session of another workspace's session works in that workspace", { timeout: 150_000 }, async () => {
    const other = path.join(ws.root, 'other-project');
    fs.mkdirSync(other, { recursive: true });
    const id = createSession(openDb(ws.dataDir), { workspace: fs.realpathSync(other) }).id;
    const r = run(['--session', id, 'Write it'], { content: 'in the other project\n' });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(other, 'notes.txt'), 'utf8')).toBe('in the other project\n');
    expect(ws.read('notes.txt')).toBe('original\n');
    const gone = run(['--session', 'no-such-session', 'x']);
    expect(gone.status).toBe(2);
    expect(gone.stderr).toContain(`Session no-such-session not found in the data dir ${ws.dataDir}`);
  });
});
