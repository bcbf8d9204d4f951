import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { WorktreeFinishAnswer, WorktreeFinishBody, WorktreeRequest, WorktreeSettings, WorktreeSettingsBody, WorktreeView } from '../contract/worktree';
import { shadowFor } from '../checkpoints/shadow';
import { openDb, type Db } from '../store/db';
import { requireSession } from '../store/sessions';
import { activeWorktreePaths, finishWorktreeRow, getWorktree, getWorktreeSettings, putWorktree, sessionRoot, setWorktreeSettings, worktreeBranches } from '../store/worktrees';
import { copyIncluded, type CopyReport } from './worktree-copy';
import { gitWords, repoGit, type RepoGitPlace } from './worktree-git';
import { HttpError, type ServerConfig } from './http';
import { getTaskManager } from '../tasks/manager';
import { whileHeld } from './turn-hold';
import { closeMcpHubs } from '../mcp/hub';

/** A branch name's slug at most this long (before a "-2" that makes it unique). */
const BRANCH_SLUG_MAX_CHARS = 48;

/** Sessions on their own git worktree of the workspace: started, named from the task, and finished (merge, keep, discard). */

/** A branch name made of a task's words: lowercase letters, digits and dashes; "session" when none are left. */
export function branchSlug(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, BRANCH_SLUG_MAX_CHARS)
    .replace(/-+$/g, '');
  return slug || 'session';
}

/** The folder a workspace's worktrees go in: the settings' folder, else `<dataDir>/worktrees/<name>-<hash of the repository>`. */
export function worktreesFolder(db: Db, dataDir: string, repo: string): string {
  const set = getWorktreeSettings(db).folder;
  const key = crypto.createHash('sha256').update(repo).digest('hex').slice(0, 16);
  const name = `${path.basename(repo).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}-${key}`;
  return set ? path.resolve(set, name) : path.join(dataDir, 'worktrees', name);
}

function place(cfg: ServerConfig, cwd: string, repo: string, writable: readonly string[] = []): RepoGitPlace {
  return { cwd, repo, dataDir: cfg.dataDir, writable };
}

/** The main checkout's top folder and its branch; HttpError 409 when the workspace is not on a branch of a git repository. */
async function repoOf(cfg: ServerConfig): Promise<{ repo: string; branch: string }> {
  const top = await repoGit(place(cfg, cfg.workspace, cfg.workspace), ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new HttpError(409, `${cfg.workspace} is not in a git repository, so a session cannot have a worktree of it (${gitWords(top)}). Run git init there and make a first commit, or start the session without a worktree.`);
  const repo = fs.realpathSync(top.stdout.trim());
  const head = await repoGit(place(cfg, repo, repo), ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (!head.ok) throw new HttpError(409, `The checkout in ${repo} is not on a branch (a detached HEAD), so there is no branch to start a worktree from and merge it back into. Check out a branch there first.`);
  const commit = await repoGit(place(cfg, repo, repo), ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (!commit.ok) throw new HttpError(409, `The branch ${head.stdout.trim()} in ${repo} has no commit yet, and a worktree starts from one. Make a first commit there.`);
  return { repo, branch: head.stdout.trim() };
}

/**
 * Start a session on its own worktree: the repository is checked now (HttpError 409 says what is missing); with
 * a name the worktree is made at once, else it waits as pending for the first message to name its branch.
 */
export async function requestWorktree(cfg: ServerConfig, sessionId: string, req: WorktreeRequest): Promise<WorktreeView> {
  const db = openDb(cfg.dataDir);
  const { repo, branch } = await repoOf(cfg);
  const w: WorktreeView = { state: 'pending', branch: null, base: branch, path: null, repo };
  putWorktree(db, sessionId, w);
  return req.name ? (await makeWorktree(cfg, db, sessionId, w, req.name)).worktree : w;
}

/** Make a pending session's worktree, its branch named from `task` (the first message). Returns the worktree, or undefined when the session has none pending. */
export async function ensureWorktree(cfg: ServerConfig, sessionId: string, task: string): Promise<WorktreeView | undefined> {
  const db = openDb(cfg.dataDir);
  const w = getWorktree(db, sessionId);
  if (w?.state !== 'pending') return undefined;
  return (await makeWorktree(cfg, db, sessionId, w, task)).worktree;
}

/** A branch name from the slug that neither the repository nor its folder nor another session has. */
async function uniqueBranch(cfg: ServerConfig, db: Db, repo: string, folder: string, slug: string): Promise<string> {
  const listed = await repoGit(place(cfg, repo, repo), ['for-each-ref', '--format=%(refname:short)', 'refs/heads/']);
  const taken = new Set([...listed.stdout.split('\n').map((l) => l.trim()), ...worktreeBranches(db, repo)]);
  for (let n = 1; ; n++) {
    const name = n === 1 ? slug : `${slug}-${n}`;
    if (!taken.has(name) && !fs.existsSync(path.join(folder, name))) return name;
  }
}

async function makeWorktree(cfg: ServerConfig, db: Db, sessionId: string, w: WorktreeView, task: string): Promise<{ worktree: WorktreeView; copy: CopyReport }> {
  const folder = worktreesFolder(db, cfg.dataDir, w.repo);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const branch = await uniqueBranch(cfg, db, w.repo, folder, branchSlug(task));
  const dir = path.join(folder, branch);
  const add = await repoGit(place(cfg, w.repo, w.repo, [folder]), ['worktree', 'add', '-b', branch, dir, w.base]);
  if (!add.ok) throw new HttpError(409, `git could not make the worktree ${dir} on a new branch ${branch} from ${w.base}: ${gitWords(add)}`);
  const worktree: WorktreeView = { ...w, state: 'active', branch, path: fs.realpathSync(dir) };
  putWorktree(db, sessionId, worktree);
  const copy = copyIncluded(w.repo, worktree.path!, getWorktreeSettings(db).copy);
  return { worktree, copy };
}

/** The server's configuration as a session works in it: the workspace is the session's own worktree while it has one. */
export function sessionPlace(cfg: ServerConfig, db: Db, sessionId: string): ServerConfig {
  const root = sessionRoot(db, sessionId, cfg.workspace);
  return root === cfg.workspace ? cfg : { ...cfg, workspace: root };
}

/**
 * Where a turn of the session works: a pending worktree is made first, its branch named from the message (its
 * skill's name for a bare /<skill>); then the session's own worktree while it has one, else the workspace.
 * Throws HttpError 409 when git cannot make the worktree (nothing is stored or run then).
 */
export async function turnPlace(cfg: ServerConfig, db: Db, body: { sessionId: string; message?: { text: string; skill?: { name: string } } }): Promise<ServerConfig> {
  if (body.message) await ensureWorktree(cfg, body.sessionId, body.message.text.trim() || body.message.skill?.name || 'session');
  return sessionPlace(cfg, db, body.sessionId);
}

/** The folder a session works in (its own worktree while it has one, else the workspace); StoreError not-found for another workspace's session. */
export function sessionFolder(cfg: ServerConfig, sessionId: string): string {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  return sessionRoot(db, sessionId, cfg.workspace);
}

/** GET /api/settings/worktrees */
export function worktreeSettings(cfg: ServerConfig): WorktreeSettings {
  return getWorktreeSettings(openDb(cfg.dataDir));
}

/** PUT /api/settings/worktrees: the folder must be an absolute path (null or '' goes back to the data dir's); HttpError 400 otherwise. */
export function saveWorktreeSettings(cfg: ServerConfig, body: WorktreeSettingsBody): WorktreeSettings {
  const folder = body.folder === '' ? null : body.folder;
  if (folder && !path.isAbsolute(folder)) throw new HttpError(400, `"${folder}" is not an absolute path. Give the folder new worktrees go in as an absolute path, or leave it empty for the data dir's.`);
  return setWorktreeSettings(openDb(cfg.dataDir), { folder, copy: body.copy });
}

/** GET /api/sessions/[id]/worktree: the session's worktree, or null. */
export function sessionWorktree(cfg: ServerConfig, sessionId: string): WorktreeView | null {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  return getWorktree(db, sessionId) ?? null;
}

/** The worktree's changed files as `git status --porcelain` lists them (untracked included). */
async function uncommitted(cfg: ServerConfig, w: WorktreeView): Promise<string[]> {
  const st = await repoGit(place(cfg, w.path!, w.repo, [w.path!]), ['status', '--porcelain', '--untracked-files=all']);
  if (!st.ok) throw new HttpError(409, `git could not read the worktree ${w.path}: ${gitWords(st)}`);
  return st.stdout.split('\n').filter(Boolean).map((l) => l.slice(3));
}

/** The person's git identity (their configuration, read as data), else Clamp's. */
async function identityOf(cfg: ServerConfig, repo: string): Promise<{ name: string; email: string }> {
  const get = async (key: string) => (await repoGit({ ...place(cfg, repo, repo), personConfig: true }, ['config', '--get', key])).stdout.trim();
  return { name: (await get('user.name')) || 'Clamp', email: (await get('user.email')) || 'clamp@localhost' };
}

/** Commit everything the worktree has uncommitted on its branch (nothing is lost when it goes). */
async function commitAll(cfg: ServerConfig, w: WorktreeView, title: string): Promise<void> {
  if ((await uncommitted(cfg, w)).length === 0) return;
  const p = { ...place(cfg, w.path!, w.repo, [w.path!]), identity: await identityOf(cfg, w.repo) };
  const add = await repoGit(p, ['add', '-A']);
  const commit = add.ok ? await repoGit(p, ['commit', '-q', '--no-verify', '-m', `${title}\n\nCommitted by Clamp from the session's worktree.`]) : add;
  if (!commit.ok) throw new HttpError(409, `git could not commit the worktree's changes on ${w.branch}: ${gitWords(commit)}. Nothing was removed.`);
}

/** Remove the worktree's folder (git's record of it too), and the checkpoints' shadow repository of it. */
async function removeFolder(cfg: ServerConfig, db: Db, w: WorktreeView): Promise<void> {
  const folder = path.dirname(w.path!);
  const rm = await repoGit(place(cfg, w.repo, w.repo, [folder]), ['worktree', 'remove', '--force', '--force', w.path!]);
  if (!rm.ok && fs.existsSync(w.path!)) throw new HttpError(409, `git could not remove the worktree ${w.path}: ${gitWords(rm)}`);
  if (!rm.ok) {
    // the folder was gone already: git's record of it goes with a prune, which must see every other worktree's
    // folder (the sandbox shows only what it is given), or it would forget the other sessions' worktrees too
    const others = activeWorktreePaths(db, w.repo).map((p) => path.dirname(p));
    await repoGit(place(cfg, w.repo, w.repo, [...new Set([folder, ...others])]), ['worktree', 'prune']);
  }
  fs.rmSync(shadowFor(cfg.dataDir, w.path!).gitDir, { recursive: true, force: true });
}

/** The active worktree of a session the person may finish now; HttpError otherwise. */
function finishable(db: Db, sessionId: string, busy: boolean): WorktreeView {
  const w = getWorktree(db, sessionId);
  if (!w) throw new HttpError(409, 'This session works in the workspace itself, not in a worktree of its own: there is nothing to merge, keep or discard.');
  if (w.state === 'pending') throw new HttpError(409, 'This worktree is made with the first message (its branch is named from it); nothing to finish yet.');
  if (w.state !== 'active' || !w.path) throw new HttpError(409, `This session's worktree was already finished (${w.state}${w.branch ? `: branch ${w.branch}` : ''}).`);
  if (busy) throw new HttpError(409, 'This session is working on a turn. Wait for it or press Stop, then finish its worktree.');
  return w;
}

async function merge(cfg: ServerConfig, db: Db, sessionId: string, w: WorktreeView, title: string): Promise<WorktreeFinishAnswer> {
  await commitAll(cfg, w, title);
  const main = place(cfg, w.repo, w.repo);
  const head = await repoGit(main, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (head.stdout.trim() !== w.base) {
    return { ok: false, worktree: w, message: `The main checkout ${w.repo} is on ${head.stdout.trim() || 'a detached HEAD'}, not ${w.base}. Check out ${w.base} there, then merge again. The branch ${w.branch} keeps the session's work (committed).` };
  }
  const identity = await identityOf(cfg, w.repo);
  const m = await repoGit({ ...main, identity }, ['merge', '--no-ff', '--no-edit', '-m', `Merge branch '${w.branch}' (Clamp session: ${title})`, w.branch!]);
  if (!m.ok) {
    const u = await repoGit(main, ['diff', '--name-only', '--diff-filter=U']);
    const conflicts = u.stdout.split('\n').filter(Boolean);
    if (conflicts.length > 0) {
      await repoGit(main, ['merge', '--abort']);
      return { ok: false, worktree: w, conflicts, message: `Merging ${w.branch} into ${w.base} conflicts in ${conflicts.join(', ')}. The merge was aborted: ${w.base} is as it was and the worktree and its branch are kept. Resolve it in the worktree (merge ${w.base} into ${w.branch} there), or merge from a terminal.` };
    }
    return { ok: false, worktree: w, message: `git did not merge ${w.branch} into ${w.base}: ${gitWords(m)}. Nothing was changed; the worktree and its branch are kept.` };
  }
  await removeFolder(cfg, db, w);
  const del = await repoGit(main, ['branch', '-d', w.branch!]);
  const done: WorktreeView = { ...w, state: 'merged', path: null };
  finishWorktreeRow(db, sessionId, done);
  return { ok: true, worktree: done, message: `Merged ${w.branch} into ${w.base} in ${w.repo}; the worktree's folder is removed${del.ok ? ' and the merged branch deleted' : ''}.` };
}

async function keep(cfg: ServerConfig, db: Db, sessionId: string, w: WorktreeView, title: string): Promise<WorktreeFinishAnswer> {
  await commitAll(cfg, w, title);
  await removeFolder(cfg, db, w);
  const done: WorktreeView = { ...w, state: 'kept', path: null };
  finishWorktreeRow(db, sessionId, done);
  return { ok: true, worktree: done, message: `Kept the branch ${w.branch} (the session's changes committed on it); its worktree folder is removed.` };
}

async function discard(cfg: ServerConfig, db: Db, sessionId: string, w: WorktreeView, confirm: boolean): Promise<WorktreeFinishAnswer> {
  const dirty = await uncommitted(cfg, w);
  if (dirty.length > 0 && !confirm) {
    return { ok: false, worktree: w, uncommitted: dirty, message: `The worktree has ${dirty.length} uncommitted ${dirty.length === 1 ? 'file' : 'files'} (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ' …' : ''}). Discard removes them for good: confirm to go on, or Keep the branch instead.` };
  }
  await removeFolder(cfg, db, w);
  const del = await repoGit(place(cfg, w.repo, w.repo), ['branch', '-D', w.branch!]);
  if (!del.ok) throw new HttpError(409, `The worktree's folder is removed, but git could not delete the branch ${w.branch}: ${gitWords(del)}`);
  const done: WorktreeView = { ...w, state: 'discarded', path: null };
  finishWorktreeRow(db, sessionId, done);
  return { ok: true, worktree: done, message: `Discarded the worktree: its folder and the branch ${w.branch} are gone.` };
}

/**
 * POST /api/sessions/[id]/worktree: finish the session's worktree. Merge commits what the worktree has
 * uncommitted, merges its branch into the base in the main checkout (a conflict aborts the merge and names the
 * files), then removes the folder; Keep commits and removes the folder, keeping the branch; Discard removes the
 * folder and the branch (refused while uncommitted changes are there, unless confirmed). Afterwards the session
 * works in the workspace. HttpError 409 when there is nothing to finish or the session is busy (a turn of it runs
 * here or in another process).
 */
export async function finishWorktree(cfg: ServerConfig, sessionId: string, body: WorktreeFinishBody, busy: boolean): Promise<WorktreeFinishAnswer> {
  const db = openDb(cfg.dataDir);
  const session = requireSession(db, sessionId, cfg.workspace);
  const w = finishable(db, sessionId, busy);
  return whileHeld(db, sessionId, 'finish its worktree', () => finishHeld(cfg, db, sessionId, w, session.title, body));
}

async function finishHeld(cfg: ServerConfig, db: Db, sessionId: string, w: WorktreeView, title: string, body: WorktreeFinishBody): Promise<WorktreeFinishAnswer> {
  // a background task of the session works in the folder that is about to go
  const tasks = getTaskManager(cfg.dataDir).list(sessionId).filter((t) => t.status === 'running');
  if (tasks.length > 0) throw new HttpError(409, `This session's background ${tasks.length === 1 ? 'task runs' : 'tasks run'} in the worktree (${tasks.map((t) => t.command).join('; ')}). Stop ${tasks.length === 1 ? 'it' : 'them'} in the task panel, then finish the worktree.`);
  // so do its MCP servers (started in the worktree's folder): stopped before it goes
  await closeMcpHubs(cfg.dataDir, w.path!);
  if (body.action === 'merge') return merge(cfg, db, sessionId, w, title);
  if (body.action === 'keep') return keep(cfg, db, sessionId, w, title);
  return discard(cfg, db, sessionId, w, body.confirm === true);
}
