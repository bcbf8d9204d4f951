import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession, getSession } from '../../lib/store/sessions';
import { journalPath, removedEntry, removedNote } from '../../lib/store/retention-journal';
import { setRetentionSettings, sweepOutputs } from '../../lib/store/retention';
import { storageSizes } from '../../lib/store/storage-size';
import { runRetention, startRetention, storageView } from '../../lib/server/retention';
import { startCommand } from '../../lib/exec/runner';
import { isLiveLog } from '../../lib/exec/live-logs';
import { tempWorkspace } from '../helpers';

const DAY = 24 * 60 * 60_000;
// the fake clock: retention reads no other time than this
const NOW = Date.UTC(2031, 0, 15, 12, 0, 0);

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-retention-');
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

/** Write a file under the data dir with its modification time `ageMs` before NOW. */
function put(rel: string, bytes: number, ageMs: number): string {
  const p = path.join(ws.dataDir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, Buffer.alloc(bytes, 0x61));
  const t = new Date(NOW - ageMs);
  fs.utimesSync(p, t, t);
  return p;
}

describe('retention of logs and spills', () => {
  it('removes logs and spills older than the period, keeps the database and today\'s files, and says why when asked', async () => {
    const db = openDb(ws.dataDir);
    const session = createSession(db, { workspace: ws.workspace, title: 'kept' });
    const old = [
      put('logs/2030-12-01T00-00-00-000Z-cmd-a.log', 1000, 20 * DAY),
      put('logs/2030-12-01T00-00-00-000Z-cmd-a.stdout.log', 700, 20 * DAY),
      put('logs/hooks/old-hook.log', 300, 15 * DAY),
      put('logs/mcp/server.log', 200, 30 * DAY),
      put('spill/2030-12-01-read_file-aaaa.txt', 5000, 14 * DAY + 60_000),
    ];
    const today = [put('logs/2031-01-15-cmd-b.log', 400, 60 * 60_000), put('spill/2031-01-15-grep-bbbb.txt', 900, 5 * 60_000), put('spill/13-days.txt', 100, 13 * DAY)];
    const report = await runRetention(ws.dataDir, { now: NOW });
    for (const p of old) expect(fs.existsSync(p), p).toBe(false);
    for (const p of today) expect(fs.existsSync(p), p).toBe(true);
    expect(report.removedFiles).toBe(5);
    expect(report.freedBytes).toBe(7200);
    // the database is whole and still holds the session
    expect(fs.existsSync(path.join(ws.dataDir, 'clamp.db'))).toBe(true);
    expect((db.pragma('integrity_check') as { integrity_check: string }[])[0]!.integrity_check).toBe('ok');
    expect(getSession(db, session.id)?.title).toBe('kept');
    // a removed spill says what happened to it
    expect(removedNote(ws.dataDir, old[4]!)).toBe('This output was removed by retention on 2031-01-15 (older than 14 days); rerun the command to see it again.');
    expect(removedNote(ws.dataDir, today[1]!)).toBeUndefined();
    // the latest clean-up is on the storage view
    expect((await storageView({ dataDir: ws.dataDir })).lastCleanup).toMatchObject({ at: NOW, removedFiles: 5, freedBytes: 7200 });
  });

  it('follows the period the settings give', async () => {
    setRetentionSettings(openDb(ws.dataDir), { maxAgeMs: 3 * DAY });
    const four = put('spill/four-days.txt', 10, 4 * DAY);
    const two = put('spill/two-days.txt', 10, 2 * DAY);
    await runRetention(ws.dataDir, { now: NOW });
    expect(fs.existsSync(four)).toBe(false);
    expect(fs.existsSync(two)).toBe(true);
    expect(removedNote(ws.dataDir, four)).toContain('(older than 3 days)');
  });

  it('removes the oldest first past the size budget, never a file written within the last hour', () => {
    const a = put('logs/a.log', 4000, 5 * DAY);
    const b = put('spill/b.txt', 4000, 4 * DAY);
    const c = put('logs/c.log', 4000, 3 * DAY);
    const fresh = put('spill/fresh.txt', 6000, 10 * 60_000);
    const r = sweepOutputs(ws.dataDir, { settings: { maxAgeMs: 14 * DAY, outputsMaxBytes: 9000 }, now: NOW, isLive: () => false });
    // 18000 bytes over 9000: a, b and c go, oldest first; fresh alone is still over the budget but too new to go
    expect([a, b].map((p) => fs.existsSync(p))).toEqual([false, false]);
    expect(fs.existsSync(c)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    expect(r).toMatchObject({ removedFiles: 3, freedBytes: 12000, keptBytes: 6000 });
    expect(removedEntry(ws.dataDir, a)?.why).toEqual({ reason: 'budget', maxBytes: 9000 });
    expect(removedNote(ws.dataDir, b)).toContain('logs and spills were over their');
  });

  it('counts a hard-linked log once and frees it only with its last name', async () => {
    const a = put('logs/run.stdout.log', 5000, 20 * DAY);
    const link = path.join(ws.dataDir, 'logs', 'run.log');
    fs.linkSync(a, link);
    expect((await storageSizes(ws.dataDir)).kinds.find((k) => k.kind === 'logs')).toEqual({ kind: 'logs', bytes: 5000, files: 1 });
    const r = sweepOutputs(ws.dataDir, { settings: { maxAgeMs: 14 * DAY, outputsMaxBytes: 1e12 }, now: NOW, isLive: () => false });
    expect(r).toMatchObject({ removedFiles: 2, freedBytes: 5000, keptBytes: 0 });
  });

  it('never removes the logs of a command that still runs, and removes them once it ended', async () => {
    const logDir = path.join(ws.dataDir, 'logs');
    const gate = path.join(ws.root, 'gate');
    const run = startCommand({ command: `echo started; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo done`, cwd: ws.workspace, logDir, captureMaxBytes: 4096, killGraceMs: 500 });
    const logs = [run.logPaths.stdout, run.logPaths.stderr, run.combinedLogPath];
    await waitFor(() => fs.existsSync(run.logPaths.stdout) && fs.readFileSync(run.logPaths.stdout, 'utf8').includes('started'));
    expect(logs.every((p) => isLiveLog(p))).toBe(true);
    // aged as if the command had printed its last line 20 days ago
    const then = new Date(NOW - 20 * DAY);
    for (const p of logs) if (fs.existsSync(p)) fs.utimesSync(p, then, then);
    const during = await runRetention(ws.dataDir, { now: NOW });
    expect(fs.existsSync(run.logPaths.stdout)).toBe(true);
    expect(during.skippedLive).toBeGreaterThan(0);
    expect(during.removedFiles).toBe(0);
    fs.writeFileSync(gate, '');
    await run.done;
    expect(logs.some((p) => isLiveLog(p))).toBe(false);
    for (const p of logs) if (fs.existsSync(p)) fs.utimesSync(p, then, then);
    const after = await runRetention(ws.dataDir, { now: NOW });
    expect(fs.existsSync(run.logPaths.stdout)).toBe(false);
    expect(after.removedFiles).toBeGreaterThan(0);
  });

  it('cleans up at start and again at every interval, on its clock', async () => {
    let now = NOW;
    const first = put('spill/first.txt', 10, 15 * DAY);
    const second = put('spill/second.txt', 10, 10 * DAY);
    const stop = startRetention(ws.dataDir, () => now, 40);
    try {
      await waitFor(() => !fs.existsSync(first));
      expect(fs.existsSync(second)).toBe(true);
      // five days on, the next tick takes the second
      now += 5 * DAY;
      await waitFor(() => !fs.existsSync(second));
    } finally {
      stop();
    }
  });

  it('keeps its journal bounded', async () => {
    const { recordRemoved } = await import('../../lib/store/retention-journal');
    const entries = Array.from({ length: 300 }, (_, i) => ({ path: `/x/spill/${i}.txt`, at: NOW, why: { reason: 'age' as const, maxAgeMs: DAY } }));
    recordRemoved(ws.dataDir, entries, 8000);
    expect(fs.statSync(journalPath(ws.dataDir)).size).toBeLessThanOrEqual(4000);
    expect(removedEntry(ws.dataDir, '/x/spill/299.txt')).toBeDefined();
    expect(removedEntry(ws.dataDir, '/x/spill/0.txt')).toBeUndefined();
  });
});

describe('the data dir by kind', () => {
  it('sums what each kind holds', async () => {
    openDb(ws.dataDir);
    put('logs/a.log', 1234, 0);
    put('logs/hooks/h.log', 66, 0);
    put('spill/s.txt', 4321, 0);
    put('checkpoints/ws-0123/objects/ab/cdef', 777, 0);
    put('worktrees/repo-1/src/x.ts', 50, 0);
    put('scratch/cache/y', 10, 0);
    put('secrets.json', 5, 0);
    const v = await storageSizes(ws.dataDir);
    const by = Object.fromEntries(v.kinds.map((k) => [k.kind, k.bytes]));
    const dbBytes = ['clamp.db', 'clamp.db-wal', 'clamp.db-shm'].reduce((n, f) => n + (fs.existsSync(path.join(ws.dataDir, f)) ? fs.statSync(path.join(ws.dataDir, f)).size : 0), 0);
    expect(by).toEqual({ logs: 1300, spills: 4321, checkpoints: 777, database: dbBytes, worktrees: 50, other: 15 });
    expect(dbBytes).toBeGreaterThan(0);
    expect(v.totalBytes).toBe(1300 + 4321 + 777 + dbBytes + 50 + 15);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
