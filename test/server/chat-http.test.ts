import fs from 'node:fs';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../../lib/server/build';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, type RunningClamp } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let env: Record<string, string>;

beforeAll(async () => {
  ws = tempWorkspace();
  ws.write('README.md', '# demo\n');
  fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last.role === 'user') return { text: 'I will write the file.', toolCalls: [{ name: 'run_command', args: { command: 'echo hello > out.txt' }, id: 'call_w1' }] };
    return { text: 'Finished.' };
  });
  env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url };
  clamp = await startClamp(env);
}, 240_000);

afterAll(async () => {
  await clamp?.stop();
  await fake?.close();
  ws?.cleanup();
});

describe("the server's door", () => {
  it('answers 401 without the token, on pages, APIs and the event stream, and runs nothing', async () => {
    for (const p of ['/', '/api/sessions', '/api/tasks/events', '/api/status']) {
      const r = await fetch(clamp.base + p, { redirect: 'manual' });
      expect(r.status, p).toBe(401);
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
    const wrong = await fetch(clamp.base + '/api/sessions', { headers: { cookie: 'clamp_token=wrong' } });
    expect(wrong.status).toBe(401);
    const post = await fetch(clamp.base + '/api/sessions', { method: 'POST', headers: { origin: clamp.base, 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(401);
  });
  it('answers 403 to a foreign Host (DNS rebinding) and to a foreign or missing Origin on writes', async () => {
    // fetch cannot set Host; a raw request can, as a rebinding page's browser would send it
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const r = http.get({ host: '127.0.0.1', port: clamp.port, path: '/api/sessions', headers: { host: `evil.example:${clamp.port}`, cookie: `clamp_token=${clamp.token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.on('error', reject);
    });
    expect(hostStatus).toBe(403);
    const foreign = await clamp.api('/api/sessions', { json: {}, headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    const nullOrigin = await clamp.api('/api/sessions', { json: {}, headers: { origin: 'null' } });
    expect(nullOrigin.status).toBe(403);
    const before = (await (await clamp.api('/api/sessions')).json()) as { sessions: unknown[] };
    expect(before.sessions).toHaveLength(0);
  });
  it('exchanges ?token= for an HttpOnly SameSite=Strict cookie', async () => {
    const r = await fetch(`${clamp.base}/?token=${clamp.token}`, { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('set-cookie')).toBe(`clamp_token=${clamp.token}; HttpOnly; SameSite=Strict; Path=/`);
  });
  it('refuses an oversized or malformed chat body', async () => {
    const big = await clamp.api('/api/chat', { method: 'POST', body: 'x'.repeat(3 * 1024 * 1024), headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    const bad = await clamp.api('/api/chat', { method: 'POST', body: '{"sessionId":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/not valid JSON/);
  });
});

describe('the launcher', () => {
  it('explains a port that is taken instead of crashing', { timeout: 120_000 }, () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/clamp.mjs')], {
      cwd: ROOT,
      env: { ...process.env, ...env, CLAMP_PORT: String(clamp.port), NEXT_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
      timeout: 110_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`clamp: cannot listen: port ${clamp.port} on 127.0.0.1 is already in use (another Clamp?). Stop it, or start with CLAMP_PORT=<another port>.`);
  });
});

describe('a chat with an approval, across a crash and restart', () => {
  it('asks, survives a restart while pending, runs once approved, and refuses a replay', { timeout: 180_000 }, async () => {
    const created = await clamp.api('/api/sessions', { json: {} });
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string } };

    const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: 'm-user-1', role: 'user', parts: [{ type: 'text', text: 'write hello to out.txt' }] } } });
    expect(chat.status).toBe(200);
    const chunks = await readChunks(chat);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(true);
    const info = chunks.find((c) => c.type === 'data-approval-info') as { data: { summary: string; subcommands: string[]; decision: { action: string; reason: string; opaque?: boolean; ruleKey?: string } } };
    expect(info.data.summary).toBe('run_command echo hello > out.txt');
    // the card's line comes from the tool's own summary(), sent with the call's input
    expect(chunks.filter((c) => c.type === 'data-tool-summary').map((c) => (c as unknown as { data: unknown }).data)).toEqual([
      { toolCallId: 'call_w1', summary: 'echo hello > out.txt' },
    ]);
    // command safety really ran inside the server bundle (its wasm parser loads there too)
    expect(info.data.decision.opaque).toBeFalsy();
    expect(info.data.decision.reason).not.toMatch(/could not load/);
    expect(info.data.subcommands).toEqual(['echo hello > out.txt']);
    expect(fs.existsSync(path.join(ws.workspace, 'out.txt'))).toBe(false);

    // the server dies while the approval is pending
    await clamp.crash();
    clamp = await startClamp(env, clamp.token);
    const detail = (await (await clamp.api(`/api/sessions/${session.id}`)).json()) as {
      messages: Array<{ id: string; role: string; parts: Array<{ type: string; state?: string }> }>;
      pendingApprovals: Array<{ toolCallId: string }>;
    };
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(detail.pendingApprovals.map((a) => a.toolCallId)).toEqual(['call_w1']);
    const assistant = detail.messages[1];
    expect(assistant.parts.find((p) => p.type === 'tool-run_command')?.state).toBe('approval-requested');

    // a continuation nobody answered is refused, and nothing runs
    const forged = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: assistant.id, role: 'assistant', parts: [] } } });
    expect(forged.status).toBe(409);
    expect(fs.existsSync(path.join(ws.workspace, 'out.txt'))).toBe(false);

    const answer = await clamp.api(`/api/sessions/${session.id}/approvals/call_w1`, { json: { answer: 'once' } });
    expect(answer.status).toBe(200);
    const again = await clamp.api(`/api/sessions/${session.id}/approvals/call_w1`, { json: { answer: 'once' } });
    expect(again.status).toBe(409);
    // the 409 carries the approval with its earlier answer (the approval bar takes it from there)
    expect(((await again.json()) as { approval: { toolCallId: string; answer: string } }).approval).toMatchObject({ toolCallId: 'call_w1', answer: 'once' });

    const cont = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: assistant.id, role: 'assistant', parts: [] } } });
    expect(cont.status).toBe(200);
    const contChunks = await readChunks(cont);
    expect(contChunks.some((c) => c.type === 'tool-output-available')).toBe(true);
    // a call resumed after a restart still gets its summary again, now with its result
    expect(contChunks.find((c) => c.type === 'data-tool-summary')).toMatchObject({ id: 'summary-call_w1', data: { toolCallId: 'call_w1', summary: 'echo hello > out.txt' } });
    expect(ws.read('out.txt')).toBe('hello\n');
    const toolMsg = fake.requests.at(-1)!.body.messages.find((m) => m.role === 'tool');
    expect(String(toolMsg?.content)).toMatch(/^exit code 0/);

    // replaying the same continuation runs nothing twice
    fs.rmSync(path.join(ws.workspace, 'out.txt'));
    const replay = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: assistant.id, role: 'assistant', parts: [] } } });
    expect(replay.status).toBe(409);
    expect(fs.existsSync(path.join(ws.workspace, 'out.txt'))).toBe(false);
  });
});
