import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUDGET } from '../../lib/contract/budget';
import { closeDb, openDb, type Db } from '../../lib/store/db';
import { createSession, deleteSession } from '../../lib/store/sessions';
import { lockHeldText, otherHolder, releaseSessionLock, renewSessionLock, sessionLock, takeSessionLock } from '../../lib/store/session-lock';
import { bootId } from '../../lib/store/tool-calls';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let db: Db;
let sessionId: string;
beforeEach(() => {
  ws = tempWorkspace();
  db = openDb(ws.dataDir);
  sessionId = createSession(db, { workspace: ws.workspace }, 'default').id;
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

/** A lock row as another process would have written it. */
function lockOf(o: { pid: number; owner?: string; host?: string; heartbeatAt?: number; holder?: string }): void {
  const now = Date.now();
  db.prepare('INSERT INTO session_locks (session_id, owner, pid, host, holder, taken_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    sessionId, o.owner ?? `${o.pid}:other`, o.pid, o.host ?? os.hostname(), o.holder ?? 'clamp run', now - 3000, o.heartbeatAt ?? now,
  );
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('session locks', () => {
  it('one process takes a session, renews and releases it; taking it again is its own', () => {
    expect(takeSessionLock(db, sessionId, 'the Clamp server')).toEqual({ ok: true });
    expect(sessionLock(db, sessionId)).toMatchObject({ owner: bootId(), pid: process.pid, host: os.hostname(), holder: 'the Clamp server' });
    expect(otherHolder(db, sessionId)).toBeNull();
    expect(renewSessionLock(db, sessionId, Date.now() + 1000)).toBe(true);
    expect(takeSessionLock(db, sessionId, 'the Clamp server')).toEqual({ ok: true });
    releaseSessionLock(db, sessionId);
    expect(sessionLock(db, sessionId)).toBeNull();
    expect(renewSessionLock(db, sessionId)).toBe(false);
  });

  it('refuses while another live process holds it, and says which process and what to do', () => {
    // the parent of this test process lives as long as the test does
    lockOf({ pid: process.ppid });
    const r = takeSessionLock(db, sessionId, 'the Clamp server');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.holder).toMatchObject({ pid: process.ppid, holder: 'clamp run' });
    expect(otherHolder(db, sessionId)?.pid).toBe(process.ppid);
    expect(lockHeldText(r.holder)).toBe(
      `Session ${sessionId} is running a turn in another Clamp process: clamp run (pid ${process.ppid}), for 3 s. Nothing was run. ` +
        `Wait for that turn to end, or press Ctrl-C in its terminal (or kill ${process.ppid}), then try again; a lock whose process died is taken over by itself.`,
    );
    // releasing is only the owner's
    releaseSessionLock(db, sessionId);
    expect(sessionLock(db, sessionId)?.pid).toBe(process.ppid);
  });

  it("takes over the lock of a dead process at once", () => {
    const pid = deadPid();
    lockOf({ pid });
    const r = takeSessionLock(db, sessionId, 'clamp run');
    expect(r).toMatchObject({ ok: true, tookOver: { pid } });
    expect(sessionLock(db, sessionId)?.owner).toBe(bootId());
  });

  it('takes over a lock not renewed for SESSION_LOCK_STALE_MS, though its pid lives (hung, reused, or on another machine)', () => {
    lockOf({ pid: process.ppid, heartbeatAt: Date.now() - BUDGET.SESSION_LOCK_STALE_MS - 1000 });
    expect(takeSessionLock(db, sessionId, 'clamp run')).toMatchObject({ ok: true, tookOver: { pid: process.ppid } });
  });

  it("on another machine a fresh lock holds whatever the pid (it cannot be checked here)", () => {
    lockOf({ pid: deadPid(), host: 'elsewhere.example' });
    expect(takeSessionLock(db, sessionId, 'clamp run').ok).toBe(false);
  });

  it('goes with its session', () => {
    lockOf({ pid: process.ppid });
    deleteSession(db, ws.workspace, sessionId);
    expect(sessionLock(db, sessionId)).toBeNull();
  });
});
