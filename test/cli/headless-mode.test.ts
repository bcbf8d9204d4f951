/**
 * `clamp run --json`'s first event names the mode the run works in: the --mode flag, else the mode of
 * the session it continues, else the mode a new session gets (settings, then CLAMP_MODE). Never null.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHeadless } from '../../lib/server/headless/run';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { tempWorkspace } from '../helpers';

const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as NodeJS.ProcessEnv;

let ws: ReturnType<typeof tempWorkspace>;
let model: string;

beforeAll(() => {
  ws = tempWorkspace('clamp-headless-mode-');
  const file = path.join(ws.root, 'script.json');
  fs.writeFileSync(file, JSON.stringify([{ text: 'Hello.' }, { text: 'Hello again.' }, { text: 'And again.' }, { text: 'Once more.' }]));
  model = `scripted:${file}`;
});
afterAll(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

/** The clamp-session event of one in-process `clamp run --json …`. */
async function sessionEvent(args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const out = new PassThrough();
  let stdout = '';
  out.on('data', (c: Buffer) => (stdout += c.toString()));
  const err = new PassThrough();
  let stderr = '';
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await runHeadless(['--json', ...args, 'say hello'], { stdin: new PassThrough(), stdout: out, stderr: err, env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: model, ...env } });
  expect(code, stderr).toBe(0);
  const first = JSON.parse(stdout.split('\n')[0]) as Record<string, unknown>;
  expect(first.type).toBe('clamp-session');
  return first;
}

describe('clamp run --json: the clamp-session event', () => {
  it('names the mode the run works in, whether or not --mode was given', async () => {
    // no flag: a new session takes CLAMP_MODE
    expect((await sessionEvent([], { CLAMP_MODE: 'accept-edits' })).mode).toBe('accept-edits');
    // the flag wins
    expect((await sessionEvent(['--mode', 'plan'])).mode).toBe('plan');
    // no flag on an existing session: that session's own mode
    const id = createSession(openDb(ws.dataDir), { workspace: ws.workspace, mode: 'debug' }).id;
    const cont = await sessionEvent(['--session', id]);
    expect(cont).toMatchObject({ sessionId: id, created: false, mode: 'debug' });
  });
});
