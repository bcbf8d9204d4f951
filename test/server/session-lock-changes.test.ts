/**
 * Every change to a session outside a turn — rewind, compact now, the changes panel's revert and commit, "Send now",
 * a (queued) message, finishing its worktree, deleting it — is refused over HTTP with a 409 naming the holder while
 * ANOTHER process holds the session's lock (a row written here as that process would write it), and nothing is
 * changed; once the lock is gone the same requests go through.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../lib/store/db';
import { loadMessages } from '../../lib/store/messages';
import { startFakeOpenAI, turnPosition, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, stopBed, type RunningClamp } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

/** One turn: write notes.txt, then say so. */
function reply(req: FakeRequest, index: number): FakeReply {
  if (turnPosition(req).results === 0) return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'written by the turn\n' }, id: `w_${index}` }] };
  return { text: 'Wrote the notes.' };
}

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], { cwd: ws.workspace, encoding: 'utf8' });

beforeAll(async () => {
  ws = tempWorkspace('clamp-lock-changes-');
  ws.write('a.txt', 'one\n');
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  fake = await startFakeOpenAI(reply);
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'accept-edits', CLAMP_DIAGNOSTICS: '0' });
}, 300_000);
afterAll(() => stopBed(clamp, fake, ws));

/** The lock row another live process (this test's own: alive, and not the server) writes when it takes the session. */
function holdElsewhere(sessionId: string): void {
  const now = Date.now();
  openDb(ws.dataDir)
    .prepare(
      `INSERT INTO session_locks (session_id, owner, pid, host, holder, taken_at, heartbeat_at) VALUES (?, ?, ?, ?, 'clamp run', ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, holder = excluded.holder, heartbeat_at = excluded.heartbeat_at`,
    )
    .run(sessionId, `${process.pid}-other`, process.pid, os.hostname(), now - 3000, now);
}

function letGo(sessionId: string): void {
  openDb(ws.dataDir).prepare('DELETE FROM session_locks WHERE session_id = ?').run(sessionId);
}

async function newSession(body: object = {}): Promise<string> {
  const r = await clamp.api('/api/sessions', { json: body });
  expect(r.status, await r.clone().text()).toBe(201);
  return ((await r.json()) as { session: { id: string } }).session.id;
}

async function turn(sessionId: string, text: string): Promise<void> {
  const r = await clamp.api('/api/chat', { json: { sessionId, message: { id: `m-${Math.random().toString(36).slice(2)}`, text } } });
  expect(r.status).toBe(200);
  await readChunks(r);
}

/** Each change of a session as the page requests it. */
function requests(id: string, firstUser: string): Array<[string, () => Promise<Response>]> {
  return [
    ['rewind', () => clamp.api(`/api/sessions/${id}/rewind`, { json: { messageId: firstUser, code: true, conversation: true } })],
    ['compact', () => clamp.api(`/api/sessions/${id}/compact`, { json: {} })],
    ['revert', () => clamp.api(`/api/sessions/${id}/changes/revert`, { json: { path: 'notes.txt' } })],
    ['commit', () => clamp.api(`/api/sessions/${id}/changes/commit`, { json: { paths: ['notes.txt'], message: 'notes' } })],
    ['send now', () => clamp.api(`/api/sessions/${id}/steer`, { method: 'POST' })],
    ['a message', () => clamp.api('/api/chat', { json: { sessionId: id, message: { id: 'm-refused', text: 'a queued message' } } })],
    ['delete', () => clamp.api(`/api/sessions/${id}`, { method: 'DELETE' })],
  ];
}

describe('changes to a session another process holds', () => {
  it('are refused with 409 naming the holder, and change nothing', { timeout: 120_000 }, async () => {
    const id = await newSession();
    await turn(id, 'write the notes');
    expect(ws.read('notes.txt')).toBe('written by the turn\n');
    const before = loadMessages(openDb(ws.dataDir), id);
    const firstUser = before.find((m) => m.role === 'user')!.id;
    const asked = fake.requests.length;

    holdElsewhere(id);
    for (const [what, request] of requests(id, firstUser)) {
      const r = await request();
      const body = (await r.json()) as { error: string };
      expect(r.status, `${what}: ${JSON.stringify(body)}`).toBe(409);
      expect(body.error, what).toContain(`Session ${id} is running a turn in another Clamp process: clamp run (pid ${process.pid})`);
      expect(body.error, what).toMatch(/Nothing was (changed|sent|run)\. Wait for that turn to end, or press Ctrl-C in its terminal/);
    }
    expect(fake.requests.length, 'no model request').toBe(asked);
    expect(loadMessages(openDb(ws.dataDir), id)).toEqual(before);
    expect(ws.read('notes.txt')).toBe('written by the turn\n');
    expect(git('log', '--oneline')).toHaveLength(git('log', '--oneline', '-1').length);
    expect((await clamp.api(`/api/sessions/${id}`)).status).toBe(200);

    // the lock gone, the same requests go through (a revert, then the delete)
    letGo(id);
    const revert = await clamp.api(`/api/sessions/${id}/changes/revert`, { json: { path: 'notes.txt' } });
    expect(revert.status, await revert.clone().text()).toBe(200);
    expect(fs.existsSync(path.join(ws.workspace, 'notes.txt'))).toBe(false);
    const steer = await clamp.api(`/api/sessions/${id}/steer`, { method: 'POST' });
    expect(await steer.json()).toEqual({ steering: false });
    expect((await clamp.api(`/api/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await clamp.api(`/api/sessions/${id}`)).status).toBe(404);
  });

  it("refuses to finish a worktree another process works in, leaving it as it was", { timeout: 60_000 }, async () => {
    const id = await newSession({ worktree: { name: 'held tree' } });
    const w = ((await (await clamp.api(`/api/sessions/${id}/worktree`)).json()) as { worktree: { path: string; branch: string } }).worktree;
    fs.writeFileSync(path.join(w.path, 'x.txt'), 'work in progress\n');
    holdElsewhere(id);
    const r = await clamp.api(`/api/sessions/${id}/worktree`, { json: { action: 'discard', confirm: true } });
    const body = (await r.json()) as { error: string };
    expect(r.status).toBe(409);
    expect(body.error).toContain(`Session ${id} is running a turn in another Clamp process: clamp run (pid ${process.pid})`);
    expect(fs.readFileSync(path.join(w.path, 'x.txt'), 'utf8')).toBe('work in progress\n');
    expect(git('branch', '--list', w.branch)).toContain(w.branch);
    letGo(id);
    const done = await clamp.api(`/api/sessions/${id}/worktree`, { json: { action: 'discard', confirm: true } });
    expect(((await done.json()) as { ok: boolean }).ok).toBe(true);
    expect(fs.existsSync(w.path)).toBe(false);
  });
});
