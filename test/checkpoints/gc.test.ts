import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClampMessage } from '../../lib/contract/protocol';
import { shadowOf, takeCheckpoint } from '../../lib/checkpoints/session';
import { restoreTree } from '../../lib/checkpoints/snapshot';
import { closeDb, openDb } from '../../lib/store/db';
import { saveMessages } from '../../lib/store/messages';
import { createSession, deleteSession } from '../../lib/store/sessions';
import { runRetention } from '../../lib/server/retention';
import { cleanUpAfterSession, sessionLeftovers } from '../../lib/server/session-cleanup';
import { tempWorkspace } from '../helpers';

const DAY = 24 * 60 * 60_000;

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-gc-');
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

/** Whether the shadow repository still holds an object. */
function hasObject(gitDir: string, sha: string): boolean {
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', sha], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function refs(gitDir: string): string[] {
  return execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)']).toString().split('\n').filter(Boolean);
}

/** A file in the data dir's spill folder, as the exit clamp writes one. */
function spill(name: string, text: string): string {
  const p = path.join(ws.dataDir, 'spill', name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

function naming(id: string, text: string): ClampMessage {
  return { id, role: 'assistant', parts: [{ type: 'text', text }] } as ClampMessage;
}

describe('checkpoint repositories and deleted sessions', () => {
  it('a deleted session frees its own spills and checkpoints; a remaining session can still rewind to its oldest checkpoint after gc', async () => {
    const db = openDb(ws.dataDir);
    const place = { dataDir: ws.dataDir, workspace: ws.workspace };
    const a = createSession(db, { workspace: ws.workspace, title: 'kept' });
    const b = createSession(db, { workspace: ws.workspace, title: 'deleted' });
    ws.write('app.txt', 'version one\n');
    const a1 = await takeCheckpoint(db, place, { sessionId: a.id, messageId: null, kind: 'turn' });
    ws.write('app.txt', 'version two\n');
    const a2 = await takeCheckpoint(db, place, { sessionId: a.id, messageId: null, kind: 'turn' });
    ws.write('app.txt', `only session b saw this ${Math.random()}\n`);
    const b1 = await takeCheckpoint(db, place, { sessionId: b.id, messageId: null, kind: 'turn' });
    const gitDir = shadowOf(place).gitDir;
    expect(refs(gitDir)).toEqual(expect.arrayContaining([`refs/clamp/sessions/${a.id}`, `refs/clamp/sessions/${b.id}`]));

    // b's conversation names its own spill and one that a's names too (an imported copy, say)
    const own = spill('b-own.txt', 'b alone');
    const shared = spill('shared.txt', 'both');
    const log = path.join(ws.dataDir, 'logs', 'cmd-b.log');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.writeFileSync(log, 'b log');
    saveMessages(db, b.id, [naming('m1', `Full text: ${own} and ${shared}; log ${log}.`)]);
    saveMessages(db, a.id, [naming('m2', `Full text: ${shared}.`)]);

    const left = sessionLeftovers(db, ws.dataDir, b.id);
    expect(left.files.sort()).toEqual([log, own].sort());
    expect(deleteSession(db, ws.workspace, b.id)).toBe(true);
    const freed = await cleanUpAfterSession(ws.dataDir, left);
    expect(freed).toMatchObject({ removedFiles: 2, refsDropped: 1 });
    expect([fs.existsSync(own), fs.existsSync(log), fs.existsSync(shared)]).toEqual([false, false, true]);
    expect(refs(gitDir)).not.toContain(`refs/clamp/sessions/${b.id}`);

    // within the period nothing is pruned (another process may be writing objects)
    await runRetention(ws.dataDir, { force: true });
    expect(hasObject(gitDir, b1.commit)).toBe(true);
    // past it, the deleted session's checkpoint goes; the remaining session's stay, the oldest included
    const report = await runRetention(ws.dataDir, { now: Date.now() + 15 * DAY, force: true });
    expect(report.checkpoints.errors).toEqual([]);
    expect(report.checkpoints.repositories).toBe(1);
    expect(hasObject(gitDir, b1.commit)).toBe(false);
    expect([hasObject(gitDir, a1.commit), hasObject(gitDir, a2.commit)]).toEqual([true, true]);
    // and the rewind to a's first checkpoint works
    await restoreTree(shadowOf(place), a1.commit);
    expect(ws.read('app.txt')).toBe('version one\n');
  });

  it('drops the refs of sessions no longer in the database at the next clean-up', async () => {
    const db = openDb(ws.dataDir);
    const place = { dataDir: ws.dataDir, workspace: ws.workspace };
    const gone = createSession(db, { workspace: ws.workspace });
    ws.write('x.txt', `${Math.random()}\n`);
    const cp = await takeCheckpoint(db, place, { sessionId: gone.id, messageId: null, kind: 'turn' });
    // deleted by a route that did not clean up (an older Clamp, another process)
    deleteSession(db, ws.workspace, gone.id);
    const r = await runRetention(ws.dataDir, { now: Date.now() + 15 * DAY });
    expect(r.checkpoints.refsDropped).toBe(1);
    expect(hasObject(shadowOf(place).gitDir, cp.commit)).toBe(false);
  });
});
