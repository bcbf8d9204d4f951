import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { openDb, closeDb } from '../../lib/store/db';
import { loadMessages } from '../../lib/store/messages';
import { sessionLock } from '../../lib/store/session-lock';
import { startFakeOpenAI, turnPosition as position, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, stopBed, type RunningClamp } from './harness';

const BIN = path.join(ROOT, 'bin/clamp.mjs');
/** The environment without any model configured, so only what a test passes counts. */
const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as unknown as NodeJS.ProcessEnv;

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let env: Record<string, string>;


/** "steps N <tag> [slow]": N read_file calls, one per step, each reply after 150 ms (slow: 1 s), then "Done <tag>." */
function reply(req: FakeRequest, index: number): FakeReply {
  const { text, results } = position(req);
  const m = /steps (\d+) (\S+)/.exec(text);
  if (!m) return { text: 'Hello.' };
  const delayMs = text.includes('slow') ? 1000 : 150;
  if (results < Number(m[1])) return { delayMs, toolCalls: [{ name: 'read_file', args: { path: `${m[2]}.txt` }, id: `call_${index}` }] };
  return { delayMs, text: `Done ${m[2]}.` };
}

/** The requests of the stand-in whose newest user message carries the tag (a word of it). */
const requestsOf = (tag: string) => fake.requests.filter((r) => position(r).text.split(' ').includes(tag));

async function newSession(): Promise<string> {
  const r = await clamp.api('/api/sessions', { json: {} });
  expect(r.status).toBe(201);
  return ((await r.json()) as { session: { id: string } }).session.id;
}

function chat(sessionId: string, text: string): Promise<Response> {
  return clamp.api('/api/chat', { json: { sessionId, message: { id: `m-${Math.random().toString(36).slice(2)}`, text } } });
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `node bin/clamp.mjs run …` on the same workspace and data dir as the server. */
function clampRun(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, 'run', ...args], { cwd: ws.workspace, env: { ...BARE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

/** Every text of a session's stored messages, joined. */
function storedText(sessionId: string): string {
  return JSON.stringify(loadMessages(openDb(ws.dataDir), sessionId));
}

beforeAll(async () => {
  ws = tempWorkspace();
  for (const tag of ['a', 'b', 'c', 'pagehold', 'runhold', 'crash', 'twice']) fs.writeFileSync(path.join(ws.workspace, `${tag}.txt`), `the file of ${tag}\n`);
  fake = await startFakeOpenAI(reply);
  env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_DIAGNOSTICS: '0' };
  clamp = await startClamp(env);
}, 600_000);

afterAll(async () => {
  closeDb(ws.dataDir);
  await stopBed(clamp, fake, ws);
});

describe('several sessions at once, one process per session', () => {
  it("runs three sessions' turns at once in one server: their model requests interleave, each reads its own files", async () => {
    const ids = [await newSession(), await newSession(), await newSession()];
    const tags = ['a', 'b', 'c'];
    const results = await Promise.all(ids.map(async (id, k) => {
      const res = await chat(id, `steps 4 ${tags[k]}`);
      expect(res.status).toBe(200);
      return readChunks(res);
    }));
    for (const chunks of results) expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    // each session sends 5 requests (4 steps of a read, then its word), in the order they reached the stand-in
    const order = fake.requests.filter((r) => /steps 4 [abc]$/.test(position(r).text)).map((r) => position(r).text.slice(-1));
    expect(order).toHaveLength(15);
    const switches = order.filter((tag, i) => i > 0 && tag !== order[i - 1]).length;
    // in turn, not one session's five and then the next's (that would switch twice)
    expect(switches).toBeGreaterThanOrEqual(8);
    for (const [k, id] of ids.entries()) {
      const tag = tags[k];
      const text = storedText(id);
      expect(text).toContain(`the file of ${tag}`);
      expect(text).toContain(`Done ${tag}.`);
      for (const other of tags.filter((t) => t !== tag)) expect(text).not.toContain(`the file of ${other}`);
    }
  }, 60_000);

  it('refuses a second request to a session of the same server with 409', async () => {
    const id = await newSession();
    const first = chat(id, 'steps 2 twice slow');
    await until('the first turn to ask the model', () => requestsOf('twice').length > 0);
    const second = await chat(id, 'steps 1 twice');
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: string }).error).toBe('This session is already working on a turn. Wait for it, or press Stop.');
    expect((await readChunks(await first)).at(-1)).toMatchObject({ type: 'finish' });
    expect(storedText(id)).not.toContain('steps 1 twice');
  }, 60_000);

  it("refuses `clamp run --session` on a session the page's server is running: exit 5, the holder on stderr, nothing run or written", async () => {
    const id = await newSession();
    const page = chat(id, 'steps 6 pagehold slow');
    await until('the page turn to ask the model', () => requestsOf('pagehold').length > 0);
    const asked = fake.requests.length;
    const run = await clampRun(['--session', id, 'steps 1 run-refused']).done;
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`clamp run: Session ${id} is running a turn in another Clamp process: the Clamp server (pid ${clamp.proc.pid}), for `);
    expect(run.stderr).toContain('Nothing was run. Wait for that turn to end, or press Stop on its page, then try again');
    expect(run.stdout).toBe('');
    expect((await readChunks(await page)).at(-1)).toMatchObject({ type: 'finish' });
    expect(fake.requests.slice(asked).some((r) => position(r).text.includes('run-refused'))).toBe(false);
    expect(storedText(id)).not.toContain('run-refused');
    // the page's turn let the session go
    expect(sessionLock(openDb(ws.dataDir), id)).toBeNull();
  }, 60_000);

  it("refuses the page's turn with 409 while `clamp run` runs the session, and takes it once the run ends", async () => {
    const id = await newSession();
    const run = clampRun(['--session', id, 'steps 4 runhold slow']);
    await until('the run to ask the model', () => requestsOf('runhold').length > 0);
    const refused = await chat(id, 'steps 1 page-refused');
    expect(refused.status).toBe(409);
    const error = ((await refused.json()) as { error: string }).error;
    expect(error).toMatch(new RegExp(`^Session ${id} is running a turn in another Clamp process: clamp run \\(pid ${run.child.pid}\\), for \\d+ s\\. Nothing was run\\.`));
    expect(error).toContain(`press Ctrl-C in its terminal (or kill ${run.child.pid})`);
    expect((await run.done).code).toBe(0);
    expect(storedText(id)).not.toContain('page-refused');
    const again = await chat(id, 'hello again');
    expect(again.status).toBe(200);
    expect((await readChunks(again)).at(-1)).toMatchObject({ type: 'finish' });
  }, 60_000);

  it("takes over the lock of a `clamp run` that was killed mid-turn (a dead pid)", async () => {
    const id = await newSession();
    const run = clampRun(['--session', id, 'steps 20 crash slow']);
    await until('the run to ask the model', () => requestsOf('crash').length > 0);
    run.child.kill('SIGKILL');
    await run.done;
    expect(sessionLock(openDb(ws.dataDir), id)).toMatchObject({ pid: run.child.pid, holder: 'clamp run' });
    const res = await chat(id, 'hello after the crash');
    expect(res.status).toBe(200);
    expect((await readChunks(res)).at(-1)).toMatchObject({ type: 'finish' });
    expect(sessionLock(openDb(ws.dataDir), id)).toBeNull();
  }, 60_000);
});
