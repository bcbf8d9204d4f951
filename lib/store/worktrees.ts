import path from 'node:path';
import type { WorktreeSettings, WorktreeState, WorktreeView } from '../contract/worktree';
import type { Db } from './db';
import { getSetting, setSetting } from './settings';

/** The files copied into a new worktree unless the settings say otherwise (gitignore-style patterns). */
export const DEFAULT_WORKTREE_COPY: readonly string[] = ['.env*'];
const SETTINGS_KEY = 'worktrees';

interface Row {
  state: WorktreeState;
  branch: string | null;
  base: string;
  path: string | null;
  repo: string;
}

/** The session's worktree, or undefined when it runs in the workspace itself. */
export function getWorktree(db: Db, sessionId: string): WorktreeView | undefined {
  const r = db.prepare('SELECT state, branch, base, path, repo FROM session_worktrees WHERE session_id = ?').get(sessionId) as Row | undefined;
  return r && { state: r.state, branch: r.branch, base: r.base, path: r.path, repo: r.repo };
}

/** Record (or replace) the session's worktree. */
export function putWorktree(db: Db, sessionId: string, w: WorktreeView): void {
  db.prepare(
    `INSERT INTO session_worktrees (session_id, state, branch, base, path, repo, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, branch = excluded.branch, base = excluded.base, path = excluded.path, repo = excluded.repo, updated_at = excluded.updated_at`,
  ).run(sessionId, w.state, w.branch, w.base, w.path, w.repo, Date.now());
}

/**
 * Record a finished worktree (kept, merged, discarded). The session's checkpoints were snapshots of its folder,
 * which is gone with its shadow repository, so they go too: the session goes on in the workspace from there.
 */
export function finishWorktreeRow(db: Db, sessionId: string, w: WorktreeView): void {
  db.transaction(() => {
    putWorktree(db, sessionId, w);
    db.prepare('DELETE FROM checkpoints WHERE session_id = ?').run(sessionId);
  })();
}

/** The folders of a repository's active worktrees. */
export function activeWorktreePaths(db: Db, repo: string): string[] {
  return (db.prepare("SELECT path FROM session_worktrees WHERE repo = ? AND state = 'active' AND path IS NOT NULL").all(repo) as { path: string }[]).map((r) => r.path);
}

/** The branches the store gives to worktrees of a repository (pending ones have none). */
export function worktreeBranches(db: Db, repo: string): string[] {
  return (db.prepare("SELECT branch FROM session_worktrees WHERE repo = ? AND branch IS NOT NULL AND state != 'discarded'").all(repo) as { branch: string }[]).map((r) => r.branch);
}

/**
 * The folder a session's tools, commands, checkpoints and diagnostics work in: its worktree's while that is
 * active, else the workspace. A session whose worktree was finished works in the workspace again.
 */
export function sessionRoot(db: Db, sessionId: string, workspace: string): string {
  const w = getWorktree(db, sessionId);
  if (w?.state !== 'active' || !w.path) return workspace;
  // a workspace below its repository's top works in the same folder of the worktree
  const below = path.relative(w.repo, workspace);
  return below && !below.startsWith('..') ? path.join(w.path, below) : w.path;
}

/** The workspace a session belongs to (its rules, approvals and memories are that workspace's), or undefined. */
export function sessionHome(db: Db, sessionId: string): string | undefined {
  return (db.prepare('SELECT workspace FROM sessions WHERE id = ?').get(sessionId) as { workspace: string } | undefined)?.workspace;
}

/** The worktree settings (the settings page's), defaults filled in. */
export function getWorktreeSettings(db: Db): WorktreeSettings {
  const saved = getSetting<Partial<WorktreeSettings>>(db, SETTINGS_KEY) ?? {};
  return { folder: saved.folder ?? null, copy: saved.copy ?? [...DEFAULT_WORKTREE_COPY] };
}

/** Save the worktree settings (a field left out stays). */
export function setWorktreeSettings(db: Db, patch: Partial<WorktreeSettings>): WorktreeSettings {
  const next = { ...getWorktreeSettings(db), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  setSetting(db, SETTINGS_KEY, next);
  return next;
}
