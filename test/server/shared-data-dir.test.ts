import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { startFakeOpenAI, turnPosition, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, stopBed, type RunningClamp } from './harness';

/**
 * One data dir, three processes writing it at once: the page's server running two sessions and two `clamp run`s,
 * each saving after every step (WAL mode, a busy timeout, a transaction per save). Afterwards the database passes
 * PRAGMA integrity_check and every session reads back whole.
 */

const BIN = path.join(ROOT, 'bin/clamp.mjs');
const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as unknown as NodeJS.ProcessEnv;
const STEPS = 12;

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let env: Record<string, string>;

/** "steps N <tag>": N read_file calls, one per step, then "Done <tag>." */
function reply(req: FakeRequest, index: number): FakeReply {
  const { text, results } = turnPosition(req);
  const m = /steps (\d+) (\S+)/.exec(text);
  if (!m) return { text: 'Hello.' };
  if (results < Number(m[1])) return { delayMs: 10, toolCalls: [{ name: 'read_file', args: { path: `${m[2]}.txt` }, id: `call_${m[2]}_${index}` }] };
  return { text: `Done ${m[2]}.` };
}

function clampRun(prompt: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'run', prompt], { cwd: ws.workspace, env: { ...BARE_ENV, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

async function pageTurn(tag: string): Promise<void> {
  const r = await clamp.api('/api/sessions', { json: {} });
  const id = ((await r.json()) as { session: { id: string } }).session.id;
  const res = await clamp.api('/api/chat', { json: { sessionId: id, message: { id: `m-${tag}`, text: `steps ${STEPS} ${tag}` } } });
  expect(res.status).toBe(200);
  expect((await readChunks(res)).at(-1)).toMatchObject({ type: 'finish' });
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-shared-dir-');
  for (const tag of ['p1', 'p2', 'r1', 'r2']) fs.writeFileSync(path.join(ws.workspace, `${tag}.txt`), `the file of ${tag}\n`);
  fake = await startFakeOpenAI(reply);
  env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_DIAGNOSTICS: '0' };
  clamp = await startClamp(env);
}, 600_000);

afterAll(async () => {
  await stopBed(clamp, fake, ws);
});

describe('the page and clamp run on one data dir', () => {
  it('a server with two sessions and two clamp runs writing at once leave a sound database with every session whole', async () => {
    const [, , run1, run2] = await Promise.all([pageTurn('p1'), pageTurn('p2'), clampRun(`steps ${STEPS} r1`), clampRun(`steps ${STEPS} r2`)]);
    expect(run1).toMatchObject({ code: 0 });
    expect(run2).toMatchObject({ code: 0 });
    const db = new Database(path.join(ws.dataDir, 'clamp.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const sessions = db.prepare('SELECT id FROM sessions').all() as { id: string }[];
      expect(sessions).toHaveLength(4);
      const found: string[] = [];
      for (const { id } of sessions) {
        const rows = db.prepare('SELECT json FROM messages WHERE session_id = ? ORDER BY position').all(id) as { json: string }[];
        const messages = rows.map((r) => JSON.parse(r.json) as { role: string; parts: { type: string; output?: { output?: string } }[] });
        expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
        const text = JSON.stringify(messages);
        const tag = /Done (\w+)\./.exec(text)?.[1];
        expect(tag).toBeDefined();
        found.push(tag!);
        // every step's read is stored, each of its own file
        expect(messages[1].parts.filter((p) => p.type === 'tool-read_file')).toHaveLength(STEPS);
        expect(text.split(`the file of ${tag}`).length - 1).toBeGreaterThanOrEqual(STEPS);
      }
      expect(found.sort()).toEqual(['p1', 'p2', 'r1', 'r2']);
    } finally {
      db.close();
    }
  }, 180_000);
});
