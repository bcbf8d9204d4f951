import fs from 'node:fs';
import path from 'node:path';
import type { ChangesAnswer, CommitChangesAnswer, CommitChangesBody, CommitTarget, FileChangeKind, RevertAnswer } from '../contract/rest';
import type { WorktreeView } from '../contract/worktree';
import { baselineOf, shadowOf, takeCheckpoint } from '../checkpoints/session';
import { currentTree, restorePath, workspaceChanges } from '../checkpoints/snapshot';
import { diffChanges, type TreeChange } from '../checkpoints/diff';
import { createContext } from '../dispatch/context';
import { dispatch } from '../dispatch/dispatch';
import { createToolRegistry } from '../dispatch/all-tools';
import { openDb, type Db } from '../store/db';
import { loadMessages } from '../store/messages';
import { getSession, requireSession } from '../store/sessions';
import { getSandboxSettings } from '../store/settings';
import { sandboxChoice } from '../tools/commands/sandbox-policy';
import { getTaskManager } from '../tasks/manager';
import { storeHost } from './agent-host';
import { whileHeld } from './turn-hold';
import { HttpError, type ServerConfig } from './http';
import { sessionPlace } from './worktrees';
import { getWorktree } from '../store/worktrees';
import { shadowGit } from '../checkpoints/shadow';
import { repoGit } from './worktree-git';

/** The changes view: every file that differs from the session's first checkpoint, per-file revert, and commit-these. */

/** The files that differ from the baseline to now. */
async function changesNow(
  cfg: ServerConfig,
  db: Db,
  sessionId: string,
  o: { blobs?: boolean } = {},
): Promise<{ baseline: ReturnType<typeof baselineOf>; changes: TreeChange[]; blobs?: Map<string, Buffer> }> {
  const baseline = baselineOf(db, sessionId);
  if (!baseline) return { baseline, changes: [] };
  // the workspace's tree, its difference from the baseline and (for the diffs) the blobs, in one sandboxed run
  const { changes, blobs } = await workspaceChanges(shadowOf(cfg), { from: baseline.commit, blobs: o.blobs });
  return { baseline, changes, blobs };
}

/** Whether a .git entry makes dir a repository's top: a folder with a HEAD, or a file naming one ("gitdir: …", a worktree or submodule). */
function isRepositoryTop(dir: string): boolean {
  const dotGit = path.join(dir, '.git');
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dotGit);
  } catch {
    return false;
  }
  if (st.isDirectory()) return fs.existsSync(path.join(dotGit, 'HEAD'));
  if (!st.isFile() || st.size > 4096) return false;
  try {
    return fs.readFileSync(dotGit, 'utf8').startsWith('gitdir:');
  } catch {
    return false;
  }
}

/**
 * The git repository a commit of the workspace's changes would go to, found by reading the folders from the
 * workspace up (as data: no git runs on the host for it), or why there is none, in the person's words. In the
 * sandbox (gitOnHost false) git_commit can write only a git directory inside the workspace: a repository above
 * it, or a worktree's or submodule's (a .git file naming one elsewhere), is read-only there.
 */
export function commitTarget(workspace: string, o: { gitOnHost: boolean }): CommitTarget {
  const ws = path.resolve(workspace);
  for (let dir = ws; ; dir = path.dirname(dir)) {
    if (isRepositoryTop(dir)) {
      const own = dir === ws && fs.lstatSync(path.join(dir, '.git')).isDirectory();
      if (own || o.gitOnHost) return { kind: 'git', root: dir };
      return {
        kind: 'none',
        reason: `${workspace} is in the git repository ${dir}, whose git directory lies outside the workspace, and Clamp's sandbox (where git_commit runs git) keeps it read-only. Commit these files from a terminal (git -C ${dir} commit), or turn the sandbox off in the settings.`,
      };
    }
    if (path.dirname(dir) === dir) break;
  }
  return {
    kind: 'none',
    reason: `${workspace} is not in a git repository, so there is nothing to commit these changes to. Run git init there to start one; the changes stay listed here either way.`,
  };
}

/** Where a commit of this session's changes would go: git runs on the host only when the sandbox is turned off. */
function sessionCommitTarget(cfg: ServerConfig, db: Db, sessionId: string): CommitTarget {
  const wt = getWorktree(db, sessionId);
  if (wt?.state === 'active') {
    return { kind: 'none', reason: `This session works in its own worktree on the branch ${wt.branch}: "Merge into ${wt.base}" and "Keep the branch" above commit its changes on that branch.` };
  }
  const mode = getSession(db, sessionId)?.mode ?? 'default';
  return commitTarget(cfg.workspace, { gitOnHost: sandboxChoice(mode, undefined, process.env, getSandboxSettings(db)).level === 'off' });
}

/** `git ls-tree -r -z` output: each file's mode and blob by path. */
function treeListing(text: string): Map<string, { mode: string; sha: string }> {
  const out = new Map<string, { mode: string; sha: string }>();
  for (const entry of text.split('\0')) {
    const m = /^(\d{6}) blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (m) out.set(m[3]!, { mode: m[1]!, sha: m[2]! });
  }
  return out;
}

/**
 * A worktree session's changes: from the commit its branch shares with the base branch (the merge-base: the base's
 * tip when the worktree was made, or later once the base was merged into the branch) to the worktree's files now,
 * committed or not. Later commits on the base never show as the session's. Null when git cannot say (the view
 * falls back to the session's first checkpoint).
 */
async function worktreeChanges(cfg: ServerConfig, w: WorktreeView): Promise<TreeChange[] | null> {
  // the worktree's folder (in the data dir, which the sandbox hides otherwise) is where git runs
  const place = { cwd: cfg.workspace, repo: w.repo, dataDir: cfg.dataDir, writable: [w.path!] };
  const mb = await repoGit(place, ['merge-base', w.base, 'HEAD']);
  if (!mb.ok) return null;
  const then = await repoGit(place, ['ls-tree', '-r', '-z', mb.stdout.trim()]);
  if (!then.ok) return null;
  const s = shadowOf(cfg);
  const now = await currentTree(s);
  const before = treeListing(then.stdout);
  const after = treeListing((await shadowGit(s, ['ls-tree', '-r', '-z', now.tree], 'listing the worktree')).stdout.toString('utf8'));
  const out: TreeChange[] = [];
  for (const p of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const from = before.get(p) ?? null;
    const to = after.get(p) ?? null;
    if (from && to && from.sha === to.sha && from.mode === to.mode) continue;
    // a file the snapshot leaves out (ignored, or over its size cap) but still there is not a deletion
    if (from && !to && fs.existsSync(path.join(cfg.workspace, p))) continue;
    const change: FileChangeKind = !from ? 'added' : !to ? 'deleted' : from.mode.slice(0, 3) !== to.mode.slice(0, 3) ? 'type' : from.sha === to.sha ? 'mode' : 'modified';
    out.push({ path: p, change, from, to });
  }
  return out;
}

/** GET /api/sessions/[id]/changes: against the session's first checkpoint; in a worktree, against its merge-base with the base branch. */
export async function sessionChanges(server: ServerConfig, sessionId: string): Promise<ChangesAnswer> {
  const db = openDb(server.dataDir);
  requireSession(db, sessionId, server.workspace);
  // a session on its own worktree: its checkpoints, files and git are the worktree's
  const cfg = sessionPlace(server, db, sessionId);
  const commit = sessionCommitTarget(cfg, db, sessionId);
  const wt = getWorktree(db, sessionId);
  const { baseline, changes, blobs } = await changesNow(cfg, db, sessionId, { blobs: wt?.state !== 'active' });
  if (!baseline) return { baselineId: null, files: [], truncated: false, commit };
  const fromBase = wt?.state === 'active' ? await worktreeChanges(cfg, wt) : null;
  const d = await diffChanges(shadowOf(cfg), fromBase ?? changes, fromBase ? undefined : blobs);
  return { baselineId: baseline.id, files: d.files, truncated: d.truncated, commit };
}

/** A workspace-relative path as git names it, or HttpError 400. */
function relPath(p: string): string {
  const n = path.posix.normalize(p.replace(/\\/g, '/')).replace(/^\.\//, '').replace(/\/$/, '');
  if (n === '' || n === '.' || path.posix.isAbsolute(n) || n === '..' || n.startsWith('../')) {
    throw new HttpError(400, `"${p}" is not a path inside the workspace. Send the path as the changes list gives it.`);
  }
  return n;
}

/** Remove a file (or symlink) and the folders it leaves empty, up to the workspace. */
function removeCreated(workspace: string, rel: string): void {
  const abs = path.join(workspace, rel);
  fs.rmSync(abs, { force: true });
  for (let dir = path.dirname(abs); dir.startsWith(workspace + path.sep); dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      break;
    }
  }
}

/**
 * POST /api/sessions/[id]/changes/revert: one file back to its state at the session's start (a file the
 * session created is removed). A checkpoint of the workspace comes first, so the revert can be rewound.
 */
export async function revertFile(server: ServerConfig, sessionId: string, p: string): Promise<RevertAnswer> {
  const db = openDb(server.dataDir);
  requireSession(db, sessionId, server.workspace);
  // a session on its own worktree: its checkpoints, files and git are the worktree's
  const cfg = sessionPlace(server, db, sessionId);
  return whileHeld(db, sessionId, 'revert', () => revertHeld(db, cfg, sessionId, p));
}

async function revertHeld(db: Db, cfg: ServerConfig, sessionId: string, p: string): Promise<RevertAnswer> {
  const rel = relPath(p);
  const { baseline, changes } = await changesNow(cfg, db, sessionId);
  const change = changes.find((c) => c.path === rel);
  if (!baseline || !change) throw new HttpError(400, `${rel} does not differ from the session's start: there is nothing to revert. GET /api/sessions/${sessionId}/changes lists what does.`);
  const lastUser = loadMessages(db, sessionId).findLast((m) => m.role === 'user')?.id ?? null;
  await takeCheckpoint(db, cfg, { sessionId, messageId: lastUser, kind: 'revert' });
  if (change.from) await restorePath(shadowOf(cfg), baseline.commit, rel);
  else removeCreated(cfg.workspace, rel);
  return { reverted: rel };
}

/**
 * POST /api/sessions/[id]/changes/commit: git_commit of exactly these paths, through dispatch. The
 * person's click is the approval; the mode and policy still apply (plan mode refuses), and a refusal
 * or git's failure comes back as ok: false with its text. Outside a git repository: HttpError 409 with why.
 */
export async function commitChanges(server: ServerConfig, sessionId: string, b: CommitChangesBody): Promise<CommitChangesAnswer> {
  const db = openDb(server.dataDir);
  requireSession(db, sessionId, server.workspace);
  // a session on its own worktree: its checkpoints, files and git are the worktree's
  const cfg = sessionPlace(server, db, sessionId);
  return whileHeld(db, sessionId, 'commit', () => commitHeld(db, cfg, sessionId, b));
}

async function commitHeld(db: Db, cfg: ServerConfig, sessionId: string, b: CommitChangesBody): Promise<CommitChangesAnswer> {
  const target = sessionCommitTarget(cfg, db, sessionId);
  if (target.kind === 'none') throw new HttpError(409, target.reason);
  const host = storeHost(db, { sessionId, workspace: cfg.workspace, dataDir: cfg.dataDir, services: { tasks: getTaskManager(cfg.dataDir) } });
  const ctx = createContext({ workspace: cfg.workspace, dataDir: cfg.dataDir, mode: getSession(db, sessionId)?.mode ?? 'default', sessionId, services: host.services });
  const r = await dispatch(createToolRegistry(), 'git_commit', { message: b.message, paths: b.paths.map(relPath) }, ctx, {
    approver: { rule: (t, input, d) => host.ruleVerdict(t, input, d), approved: true },
  });
  // the person reads this: the next step written for the model (run_command, "ask the user …") is left out
  const text = r.status !== 'ok' && r.hint ? r.output.split(r.hint).join('').trim() : r.output;
  return { ok: r.status === 'ok', text };
}
