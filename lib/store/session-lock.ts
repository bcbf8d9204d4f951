import os from 'node:os';
import { BUDGET } from '../contract/budget';
import type { Db } from './db';
import { bootId, pidAlive } from './tool-calls';

/**
 * One process at a time runs a session's turn: the page's server and `clamp run` on the same data dir take a lock
 * row here before a turn and delete it after. A lock whose process is gone (same machine, pid not alive) or that
 * was not renewed for SESSION_LOCK_STALE_MS (a hung process, another machine, a reused pid) is taken over.
 */

/** Who holds a session's lock, as the refusal names it. */
export interface LockHolder {
  sessionId: string;
  /** the holding process's id (bootId: pid and a random part) */
  owner: string;
  pid: number;
  host: string;
  /** what the process is: "the Clamp server", "clamp run" */
  holder: string;
  takenAt: number;
  heartbeatAt: number;
}

interface LockRow {
  session_id: string;
  owner: string;
  pid: number;
  host: string;
  holder: string;
  taken_at: number;
  heartbeat_at: number;
}

const fromRow = (r: LockRow): LockHolder => ({ sessionId: r.session_id, owner: r.owner, pid: r.pid, host: r.host, holder: r.holder, takenAt: r.taken_at, heartbeatAt: r.heartbeat_at });

/** Why a held lock no longer counts, or null while its holder lives: its process died, or it stopped renewing it. */
export function staleReason(h: LockHolder, now = Date.now()): string | null {
  if (h.host === os.hostname() && h.pid !== process.pid && !pidAlive(h.pid)) return `its process (pid ${h.pid}) is gone`;
  const age = now - h.heartbeatAt;
  if (age > BUDGET.SESSION_LOCK_STALE_MS) return `it was not renewed for ${Math.round(age / 1000)} s`;
  return null;
}

/** The lock of a session as stored (stale or not), or null. */
export function sessionLock(db: Db, sessionId: string): LockHolder | null {
  const r = db.prepare('SELECT * FROM session_locks WHERE session_id = ?').get(sessionId) as LockRow | undefined;
  return r ? fromRow(r) : null;
}

/** A live lock another process holds on the session, or null (none, ours, or stale). */
export function otherHolder(db: Db, sessionId: string, now = Date.now()): LockHolder | null {
  const h = sessionLock(db, sessionId);
  return h && h.owner !== bootId() && !staleReason(h, now) ? h : null;
}

export type TakeResult = { ok: true; tookOver?: LockHolder } | { ok: false; holder: LockHolder };

/**
 * Take a session's lock for this process, in one write transaction (two processes racing: one wins). Refused while
 * another live process holds it; a stale lock is taken over (tookOver names it); one this process left is taken
 * again (the caller keeps the turns in flight of its own process). Never throws but for the store failing.
 */
export function takeSessionLock(db: Db, sessionId: string, holder: string, now = Date.now()): TakeResult {
  const take = db.transaction((): TakeResult => {
    const found = sessionLock(db, sessionId);
    if (found && found.owner !== bootId() && !staleReason(found, now)) return { ok: false, holder: found };
    db.prepare(
      `INSERT INTO session_locks (session_id, owner, pid, host, holder, taken_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, holder = excluded.holder, taken_at = excluded.taken_at, heartbeat_at = excluded.heartbeat_at`,
    ).run(sessionId, bootId(), process.pid, os.hostname(), holder, now, now);
    return found && found.owner !== bootId() ? { ok: true, tookOver: found } : { ok: true };
  });
  return take.immediate();
}

/** Renew this process's lock of a session; false when it is no longer ours (taken over). */
export function renewSessionLock(db: Db, sessionId: string, now = Date.now()): boolean {
  return db.prepare('UPDATE session_locks SET heartbeat_at = ? WHERE session_id = ? AND owner = ?').run(now, sessionId, bootId()).changes > 0;
}

/** Let go of this process's lock of a session (another process's is left alone). */
export function releaseSessionLock(db: Db, sessionId: string): void {
  db.prepare('DELETE FROM session_locks WHERE session_id = ? AND owner = ?').run(sessionId, bootId());
}

/** The refusal's words: which process holds the session, since when, and what to do; `outcome` says what was not done. */
export function lockHeldText(h: LockHolder, now = Date.now(), outcome = 'Nothing was run.'): string {
  const since = Math.max(0, Math.round((now - h.takenAt) / 1000));
  const where = h.host === os.hostname() ? `pid ${h.pid}` : `pid ${h.pid} on ${h.host}`;
  const stop = h.holder === 'clamp run' ? `press Ctrl-C in its terminal (or kill ${h.pid})` : `press Stop on its page`;
  return (
    `Session ${h.sessionId} is running a turn in another Clamp process: ${h.holder} (${where}), for ${since} s. ` +
    `${outcome} Wait for that turn to end, or ${stop}, then try again; a lock whose process died is taken over by itself.`
  );
}
