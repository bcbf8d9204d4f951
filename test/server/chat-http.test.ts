import fs from 'node:fs';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { ROOT } from '../../lib/server/build';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeRequest } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { BUDGET } from '../../lib/contract/budget';
import { tempWorkspace } from '../helpers';
import { raw } from '../adversarial/net';
import { readChunks, startClamp, type RunningClamp, stopBed } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let env: Record<string, string>;
/** about 3 MB: more than the chat body may hold, well within what write_file writes */
const BIG = Array.from({ length: 3000 }, (_, i) => `${String(i).padStart(6, '0')} ${'x'.repeat(1000)}\n`).join('');

beforeAll(async () => {
  ws = tempWorkspace();
  ws.write('README.md', '# demo\n');
  fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last.role !== 'user') return { text: 'Finished.' };
    const text = messageText(last);
    if (text.includes('[big-write]')) {
      return { text: 'Writing the data file.', toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: BIG }, id: 'call_big' }], argChunkChars: 256 * 1024 };
    }
    if (text.includes('[refusals]')) {
      return {
        toolCalls: [
          { name: 'write_file', args: { path: 'nope.txt', content: 'x' }, id: 'call_forbidden' },
          { name: 'read_file', rawArgs: '{"path": "README.md" "limit": 3}', id: 'call_malformed' },
          { name: 'no_such_tool', args: {}, id: 'call_unknown' },
          { name: 'read_file', args: { path: 'README.md', limit: 'all' }, id: 'call_invalid' },
        ],
      };
    }
    return { text: 'I will write the file.', toolCalls: [{ name: 'run_command', args: { command: 'echo hello > out.txt' }, id: 'call_w1' }] };
  });
  env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url };
  clamp = await startClamp(env);
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

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

async function newSession(mode?: string): Promise<string> {
  const created = await clamp.api('/api/sessions', { json: mode ? { mode } : {} });
  expect(created.status).toBe(201);
  return ((await created.json()) as { session: { id: string } }).session.id;
}

/** The tool results the model read in a request, by tool call id. */
function toolTexts(req: FakeRequest): Record<string, string> {
  return Object.fromEntries(req.body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id!, messageText(m)]));
}

describe('the launcher', () => {
  it('explains a port that is taken instead of crashing', { timeout: 120_000 }, async () => {
    // spawned, not spawnSync: a blocked event loop would leave undici a keep-alive socket the server has
    // closed meanwhile, and the next test's request would fail on it
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs')], {
      cwd: ROOT,
      env: { ...process.env, ...env, CLAMP_PORT: String(clamp.port), NEXT_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(killer);
    expect(status).toBe(2);
    expect(stderr).toContain(`clamp: cannot listen: port ${clamp.port} on 127.0.0.1 is already in use (another Clamp?). Stop it, or start with CLAMP_PORT=<another port>.`);
  });
});

describe('a chat with an approval, across a crash and restart', () => {
  it('asks, survives a restart while pending, runs once approved, and refuses a replay', { timeout: 180_000 }, async () => {
    const created = await clamp.api('/api/sessions', { json: {} });
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string } };

    const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: 'm-user-1', text: 'write hello to out.txt' } } });
    expect(chat.status).toBe(200);
    const chunks = await readChunks(chat);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(true);
    const info = chunks.find((c) => c.type === 'data-approval-info') as { data: { summary: string; subcommands: string[]; decision: { action: string; reason: string; opaque?: boolean; ruleKey?: string } } };
    expect(info.data.summary).toBe('run_command echo hello > out.txt');
    // the card's line comes from the tool's own summary(), sent with the call's input
    expect(chunks.filter((c) => c.type === 'data-tool-summary').map((c) => (c as unknown as { data: unknown }).data)).toEqual([
      { toolCallId: 'call_w1', summary: 'echo hello > out.txt', open: true },
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
    const forged = await clamp.api('/api/chat', { json: { sessionId: session.id, continue: { messageId: assistant.id } } });
    expect(forged.status).toBe(409);
    expect(fs.existsSync(path.join(ws.workspace, 'out.txt'))).toBe(false);

    const answer = await clamp.api(`/api/sessions/${session.id}/approvals/call_w1`, { json: { answer: 'once' } });
    expect(answer.status).toBe(200);
    const again = await clamp.api(`/api/sessions/${session.id}/approvals/call_w1`, { json: { answer: 'once' } });
    expect(again.status).toBe(409);
    // the 409 carries the approval with its earlier answer (the approval bar takes it from there)
    expect(((await again.json()) as { approval: { toolCallId: string; answer: string } }).approval).toMatchObject({ toolCallId: 'call_w1', answer: 'once' });

    const cont = await clamp.api('/api/chat', { json: { sessionId: session.id, continue: { messageId: assistant.id } } });
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
    const replay = await clamp.api('/api/chat', { json: { sessionId: session.id, continue: { messageId: assistant.id } } });
    expect(replay.status).toBe(409);
    expect(fs.existsSync(path.join(ws.workspace, 'out.txt'))).toBe(false);
  });
});

// these run after the crash test, on the server it restarted
describe('the continuation after an approval carries ids, not the message', () => {
  it('approving a 3 MB write: the old body with the whole message is refused (413), the slim continuation runs the write', { timeout: 120_000 }, async () => {
    const sessionId = await newSession();
    const chat = await clamp.api('/api/chat', { json: { sessionId, message: { id: 'big-user-1', text: '[big-write] write the data file' } } });
    expect(chat.status).toBe(200);
    expect((await readChunks(chat)).some((c) => c.type === 'tool-approval-request' && c.toolCallId === 'call_big')).toBe(true);
    const detail = (await (await clamp.api(`/api/sessions/${sessionId}`)).json()) as { messages: Array<{ id: string; role: string; parts: unknown[] }> };
    const assistant = detail.messages.at(-1)!;
    expect((await clamp.api(`/api/sessions/${sessionId}/approvals/call_big`, { json: { answer: 'once' } })).status).toBe(200);

    const fatBody = JSON.stringify({ sessionId, message: { id: assistant.id, role: 'assistant', parts: assistant.parts } });
    expect(Buffer.byteLength(fatBody)).toBeGreaterThan(BUDGET.CHAT_BODY_MAX_BYTES);
    // refused bodies go on connections of their own: the server may close one before the body is read
    const post = (body: string) =>
      raw(clamp.port, {
        method: 'POST',
        path: '/api/chat',
        headers: { cookie: `clamp_token=${clamp.token}`, origin: clamp.base, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        body,
      });
    const fat = await post(fatBody);
    expect(fat.status).toBe(413);
    expect(fat.body.trim()).toMatch(/^(\{"error":")?The request body is larger than \d+ bytes\. Send less\.("\})?$/);
    // a body past the chat route's own cap (below the door's): the route counts it
    const long = await post(JSON.stringify({ sessionId, message: { id: 'big-user-2', text: 'y'.repeat(BUDGET.CHAT_BODY_MAX_BYTES) } }));
    expect(long.status).toBe(413);
    expect((JSON.parse(long.body) as { error: string }).error).toBe(`The request body is larger than ${BUDGET.CHAT_BODY_MAX_BYTES} bytes. Send less.`);
    // the old shape, even small, is not a chat body any more
    const old = await clamp.api('/api/chat', { json: { sessionId, message: { id: assistant.id, role: 'assistant', parts: [] } } });
    expect(old.status).toBe(400);
    expect(((await old.json()) as { error: string }).error).toBe('Invalid request: field "message.text": Invalid input: expected string, received undefined; field "message": Unrecognized keys: "role", "parts".');
    expect(fs.existsSync(path.join(ws.workspace, 'big.txt'))).toBe(false);

    const slim = { sessionId, continue: { messageId: assistant.id } };
    expect(Buffer.byteLength(JSON.stringify(slim))).toBeLessThan(200);
    const cont = await clamp.api('/api/chat', { json: slim });
    expect(cont.status).toBe(200);
    const chunks = await readChunks(cont);
    expect(chunks.find((c) => c.type === 'tool-output-available' && c.toolCallId === 'call_big')).toMatchObject({ output: { status: 'ok' } });
    expect(ws.read('big.txt')).toBe(BIG);
    expect(chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta).join('')).toBe('Finished.');
  });
});

describe('every call the model makes gets Clamp\'s own text, none a provider error', () => {
  it('streams the chat and the task events uncompressed when the page asks for gzip (a compressed stream reached the page late)', { timeout: 60_000 }, async () => {
    const browser = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    const sessionId = await newSession('plan');
    const chat = await clamp.api('/api/chat', { json: { sessionId, message: { id: 'enc-user-1', text: 'hello' } }, headers: browser });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('content-encoding')).toBeNull();
    expect((await readChunks(chat)).at(-1)?.type).toBe('finish');
    const abort = new AbortController();
    const events = await clamp.api('/api/tasks/events', { headers: browser, signal: abort.signal });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.headers.get('content-encoding')).toBeNull();
    abort.abort();
  });
  it('in plan mode: a forbidden write, malformed JSON, an unknown tool and invalid arguments, through the real server', { timeout: 60_000 }, async () => {
    const sessionId = await newSession('plan');
    const before = fake.requests.length;
    const chat = await clamp.api('/api/chat', { json: { sessionId, message: { id: 'ref-user-1', text: '[refusals] try things' } } });
    expect(chat.status).toBe(200);
    const chunks = await readChunks(chat);
    expect(chunks.filter((c) => c.type === 'error' || c.type === 'data-notice' || c.type === 'tool-output-error' || c.type === 'tool-input-error')).toEqual([]);
    const outputs = Object.fromEntries(chunks.filter((c) => c.type === 'tool-output-available').map((c) => [c.toolCallId, (c.output as { status: string }).status]));
    expect(outputs).toEqual({ call_forbidden: 'denied', call_malformed: 'error', call_unknown: 'error', call_invalid: 'error' });
    const [first, second] = fake.requests.slice(before);
    // the model is told about the mode's tools only
    const listed = first.body.tools!.map((t) => t.function.name);
    expect(listed).toContain('read_file');
    expect(listed).not.toContain('write_file');
    expect(listed).not.toContain('run_command');
    const told = toolTexts(second);
    expect(told.call_forbidden).toBe('write_file is not available: file changes are not allowed in plan mode. Do not retry it; use the read-only tools, or ask the user to switch modes.');
    expect(told.call_malformed).toBe("Invalid arguments for read_file: they are not valid JSON. Send a JSON object matching the tool's schema.");
    expect(told.call_unknown).toMatch(/^Unknown tool `no_such_tool`\. Available: read_file, /);
    expect(told.call_invalid).toMatch(/^Invalid arguments for read_file:\n- `limit`: expected number, got the string "all"/);
    expect(fs.existsSync(path.join(ws.workspace, 'nope.txt'))).toBe(false);
  });
});
