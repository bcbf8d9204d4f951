/**
 * SubagentStop, SessionEnd and PreCompact with real hook scripts (sh and node) in the person's hooks.json, through
 * the chat route and the stand-in model server; each hook writes what it was given to a file the test reads on the host.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { compactSession } from '../../lib/server/context';
import { removeSession } from '../../lib/server/sessions';
import { runShutdownHooks } from '../../lib/contract/shutdown';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import type { ServerConfig } from '../../lib/server/http';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let reply: (req: FakeRequest) => FakeReply = () => ({ text: 'ok' });
const savedEnv = { ...process.env };

beforeAll(async () => {
  fake = await startFakeOpenAI((req) => reply(req));
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  ws = tempWorkspace('clamp-hook-events-');
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  process.env.CLAMP_MODEL = 'openai-compatible:fake-coder';
  process.env.CLAMP_BASE_URL = fake.url;
  fake.requests.length = 0;
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

function script(name: string, body: string): string {
  const file = path.join(ws.root, name);
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}
const personHooks = (hooks: unknown) => fs.writeFileSync(path.join(ws.dataDir, 'hooks.json'), JSON.stringify({ hooks }));
/** A node hook that appends each input it gets, one JSON line, to `log`; then does what `then` says. */
const nodeHook = (name: string, log: string, then = '') =>
  script(name, `#!/usr/bin/env node\nlet s='';process.stdin.on('data',(d)=>s+=d).on('end',()=>{const i=JSON.parse(s);require('fs').appendFileSync(${JSON.stringify(log)},JSON.stringify(i)+'\\n');${then}});\n`);
const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);
const lastUser = (r: FakeRequest) => messageText([...r.body.messages].reverse().find((m) => m.role === 'user')!);

async function send(text: string, sessionId?: string): Promise<string> {
  const id = sessionId ?? createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default').id;
  const res = await handleChat(cfg, { sessionId: id, message: { id: `u-${Math.random().toString(36).slice(2)}`, text } }, new AbortController().signal);
  expect(res.status).toBe(200);
  await readChunks(res);
  return id;
}

describe('SubagentStop', () => {
  it('a node hook runs when a child ends by itself; its block makes the child go on with the reason, once, then it ends', async () => {
    const log = path.join(ws.root, 'subagent-stop.log');
    const hook = nodeHook('subagent-stop.js', log, `if(!i.stop_hook_active)console.log(JSON.stringify({decision:'block',reason:'also count the files'}));`);
    personHooks({ SubagentStop: [{ hooks: [{ type: 'command', command: hook }] }] });
    reply = (req) => {
      const user = lastUser(req);
      if (user.includes('A SubagentStop hook')) return { text: 'second report: 3 files' };
      if (user.includes('[child]')) return { text: 'first report' };
      return req.body.messages.some((m) => m.role === 'tool') ? { text: 'done' } : { toolCalls: [{ name: 'agent', id: 'a1', args: { type: 'general', description: 'look around', prompt: '[child] look around' } }] };
    };
    const parent = await send('use a subagent');
    const seen = lines(log);
    // it went on once (HOOK_STOP_CONTINUES_MAX is 1), so the hook ran once
    expect(seen.map((x) => [x.hook_event_name, x.session_id, x.stop_hook_active, x.agent_type])).toEqual([['SubagentStop', parent, false, 'general']]);
    expect(fake.requests.filter((r) => r.body.messages.some((m) => messageText(m).includes('[child]'))).length).toBe(2);
    expect(seen[0].agent_session_id).not.toBe(parent);
    const childAgain = fake.requests.find((r) => lastUser(r).includes('A SubagentStop hook'))!;
    expect(lastUser(childAgain)).toContain('subagent-stop: also count the files');
    const back = fake.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool').map(messageText).join('\n');
    expect(back).toContain('second report: 3 files');
  }, 60_000);
});

describe('PreCompact', () => {
  it('runs before a compaction with its trigger and the focus as custom_instructions; what it prints is on the divider, not sent to the model', async () => {
    const saw = path.join(ws.root, 'precompact.json');
    const sh = script('precompact.sh', `#!/bin/sh\ncat > '${saw}'\necho "copied the transcript"\n`);
    const node = nodeHook('precompact-2.js', path.join(ws.root, 'precompact-2.log'), `process.stderr.write('exit 2 cannot stop a compaction');process.exit(2);`);
    personHooks({ PreCompact: [{ hooks: [{ type: 'command', command: sh }, { type: 'command', command: node }] }] });
    reply = (req) => (req.body.messages.some((m) => m.role === 'tool') || lastUser(req).includes('summar') ? { text: 'Summary: looked at README.' } : { toolCalls: [{ name: 'list_dir', id: `l-${Math.random().toString(36).slice(2, 7)}`, args: { path: '.' } }] });
    ws.write('README.md', '# Demo\n');
    const id = await send('look around');
    await send('look again', id);
    const asked = fake.requests.length;
    const c = await compactSession(cfg, id, 'keep the API notes');
    expect(JSON.parse(fs.readFileSync(saw, 'utf8'))).toMatchObject({ hook_event_name: 'PreCompact', session_id: id, trigger: 'manual', custom_instructions: 'keep the API notes' });
    expect(c.hooks).toEqual([
      { event: 'PreCompact', hook: 'precompact', outcome: 'ran', reason: 'copied the transcript' },
      { event: 'PreCompact', hook: 'precompact-2', outcome: 'ran', reason: 'exit 2 cannot stop a compaction' },
    ]);
    expect(c.outcome).toBe('summary');
    // the summary request (and anything after) never carries what the hooks printed
    const sent = fake.requests.slice(asked).map((r) => JSON.stringify(r.body.messages)).join('\n');
    expect(sent).not.toContain('copied the transcript');
  }, 60_000);
});

describe('SessionEnd', () => {
  it('an sh hook runs when a session is deleted, and, when the server stops, for each session it ran', async () => {
    const log = path.join(ws.root, 'session-end.log');
    const hook = script('session-end.sh', `#!/bin/sh\ncat >> '${log}'\necho >> '${log}'\n`);
    personHooks({ SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }] });
    reply = () => ({ text: 'ok' });
    const gone = await send('hello');
    const kept = await send('hello too');
    await removeSession(cfg, gone);
    await expect.poll(() => lines(log).length, { timeout: 15_000 }).toBe(1);
    expect(lines(log)[0]).toMatchObject({ hook_event_name: 'SessionEnd', session_id: gone, reason: 'other', clamp_reason: 'deleted' });
    await runShutdownHooks();
    expect(lines(log).slice(1)).toEqual([expect.objectContaining({ hook_event_name: 'SessionEnd', session_id: kept, clamp_reason: 'shutdown' })]);
  }, 60_000);
});
