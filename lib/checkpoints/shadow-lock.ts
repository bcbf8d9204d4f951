import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidAlive } from '../store/tool-calls';
import type { Shadow } from './shadow';

/**
 * One process at a time in a shadow repository. The server and `clamp run` (or two servers) on one data dir may
 * snapshot the same workspace at once, and the shadow's index is one file: each takes `clamp-shadow.lock` in the
 * git directory first (created exclusively; its pid, machine and a heartbeat, its mtime renewed while held), waits
 * while another live process holds it, and takes it over when its holder died or stopped renewing it. Holding it,
 * a lock git left behind (index.lock, HEAD.lock) can only be a git that is gone: it is removed once it is
 * CHECKPOINT_GIT_LOCK_STALE_MS old, never sooner, so a running git is never broken.
 */

interface Holder {
  pid: number;
  host: string;
  token: string;
}

const LOCK_FILE = 'clamp-shadow.lock';
const POLL_MS = 25;

function lockPath(s: Shadow): string {
  return path.join(s.gitDir, LOCK_FILE);
}

function readHolder(file: string): { holder: Holder | null; ageMs: number } | null {
  try {
    const st = fs.statSync(file);
    let holder: Holder | null = null;
    try {
      holder = JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
    } catch {
      // being written right now, or torn: judged by its age alone
    }
    return { holder, ageMs: Date.now() - st.mtimeMs };
  } catch {
    return null;
  }
}

/** Whether the lock's holder is a process of this machine that is gone. */
function holderGone(h: Holder | null): boolean {
  return !!h && h.host === os.hostname() && h.pid !== process.pid && !pidAlive(h.pid);
}

/** Why a held lock no longer counts (its process died, or it was not renewed), or null while its holder lives. */
function staleWhy(s: Shadow, found: { holder: Holder | null; ageMs: number }): string | null {
  const h = found.holder;
  if (holderGone(h)) return `its process (pid ${h!.pid}) is gone`;
  if (found.ageMs > s.budget.CHECKPOINT_LOCK_STALE_MS) return `it was not renewed for ${Math.round(found.ageMs / 1000)} s`;
  return null;
}

/**
 * Try once to create the lock file; true when this process now holds it. A lock it created but could not write (a
 * full disk) is removed again before the error goes up: left empty, it would read as torn, and hold every later
 * checkpoint off until it aged into stale.
 */
function tryTake(file: string, me: Holder): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeSync(fd, JSON.stringify(me));
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Remove the lock a stale holder left: moved aside in one step (so two processes taking it over cannot both
 * remove it), and put back when what was moved is not the one judged stale (another process took it meanwhile).
 */
function dropStale(file: string, seen: Holder | null, me: Holder): void {
  const aside = `${file}.${me.token}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // gone already
  }
  const moved = readHolder(aside);
  if (moved?.holder?.token !== seen?.token) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // a third process took the lock meanwhile: the moved holder finds its lock gone and leaves it alone
    }
  }
  fs.rmSync(aside, { force: true });
}

/**
 * Remove the locks a gone git left in the shadow repository (the caller holds the shadow's lock): once they are old
 * enough, or at once when the lock was taken over from a process that is gone — its gits went with it (a sandboxed
 * git dies with its parent, and the next start reaps what a crash left), so a fresh index.lock is a killed git's,
 * and waiting for it to age would fail the first checkpoint, changes view or rewind after a crash.
 */
function clearGitLocks(s: Shadow, fromGone: boolean): void {
  for (const lock of [`${s.indexFile}.lock`, path.join(s.gitDir, 'HEAD.lock')]) {
    try {
      if (fromGone || Date.now() - fs.statSync(lock).mtimeMs > s.budget.CHECKPOINT_GIT_LOCK_STALE_MS) fs.rmSync(lock, { force: true });
    } catch {
      // no such lock
    }
  }
}

/**
 * Run fn holding the shadow repository's lock across processes (see above). Waits while another live process
 * holds it, at most CHECKPOINT_GIT_TIMEOUT_MS; then throws an Error naming that process.
 */
export async function withShadowLock<T>(s: Shadow, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(s.gitDir, { recursive: true, mode: 0o700 });
  const file = lockPath(s);
  const me: Holder = { pid: process.pid, host: os.hostname(), token: `${process.pid}-${Math.random().toString(36).slice(2)}` };
  const until = Date.now() + s.budget.CHECKPOINT_GIT_TIMEOUT_MS;
  let tookFromGone = false;
  while (!tryTake(file, me)) {
    const found = readHolder(file);
    if (found && staleWhy(s, found)) {
      dropStale(file, found.holder, me);
      tookFromGone = holderGone(found.holder);
    } else if (Date.now() > until) {
      const who = found?.holder ? `pid ${found.holder.pid}${found.holder.host === os.hostname() ? '' : ` on ${found.holder.host}`}` : 'another process';
      throw new Error(`Another Clamp process (${who}) has been using the checkpoints of ${s.workspace} for too long; try again when it is done.`);
    } else await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const beat = setInterval(() => {
    const t = new Date();
    try {
      fs.utimesSync(file, t, t);
    } catch {
      // taken over after all (this process hung past the stale age): the other process goes on
    }
  }, s.budget.CHECKPOINT_LOCK_HEARTBEAT_MS);
  beat.unref?.();
  try {
    clearGitLocks(s, tookFromGone);
    return await fn();
  } finally {
    clearInterval(beat);
    if (readHolder(file)?.holder?.token === me.token) fs.rmSync(file, { force: true });
  }
}
