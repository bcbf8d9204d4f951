import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDetail, SessionSummary } from '../../lib/contract/protocol';
import { BUDGET } from '../../lib/contract/budget';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, type RunningClamp, stopBed } from '../server/harness';
import { corsHeaders, raw, userMessage, type RawResponse } from './net';

/**
 * The server's door under attack: every request that lacks the token, comes through a foreign Host,
 * changes state from a foreign/null/missing Origin, forges or replays an approval, or sends an
 * oversized or malformed body is refused with the right status — and nothing runs.
 * "Nothing runs" is checked three ways: no marker file (every command the fake model asks for
 * appends to marks/<name>.txt), no new model request, and the stored state (sessions, messages,
 * pending approvals, settings) unchanged.
 */
let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let base: string;
/** every response the suite saw, to check that none carries CORS headers */
const seen: Array<{ what: string; headers: Headers | RawResponse['headers'] }> = [];

beforeAll(async () => {
  ws = tempWorkspace('clamp-door-');
  fs.mkdirSync(path.join(ws.workspace, 'marks'));
  fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last.role === 'tool') return { text: 'Done.' };
    const m = /^mark (\w+)$/.exec(String(last.content));
    if (m) return { text: 'Marking.', toolCalls: [{ name: 'run_command', args: { command: `echo ran >> marks/${m[1]}.txt` }, id: `call-${m[1]}` }] };
    return { text: 'ok' };
  });
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
  base = clamp.base;
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

/** The harness's api() (token cookie, same-origin Origin), recording the response headers. */
async function api(p: string, init?: Parameters<RunningClamp['api']>[1]): Promise<Response> {
  const r = await clamp.api(p, init);
  seen.push({ what: `${init?.method ?? (init?.json !== undefined ? 'POST' : 'GET')} ${p}`, headers: r.headers });
  return r;
}

/** A raw request (full control of Host, Origin, cookie and body framing), recorded likewise. */
async function send(o: Parameters<typeof raw>[1]): Promise<RawResponse> {
  const r = await raw(clamp.port, o);
  seen.push({ what: `${o.method ?? 'GET'} ${o.path} (raw)`, headers: r.headers });
  return r;
}

const cookie = () => `clamp_token=${clamp.token}`;
const jsonHeaders = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', cookie: cookie(), origin: base, ...extra });

async function createSession(): Promise<string> {
  const r = await api('/api/sessions', { json: {} });
  expect(r.status).toBe(201);
  return ((await r.json()) as { session: SessionSummary }).session.id;
}

/** Everything a refused request must not have changed. */
async function snapshot() {
  const sessions = ((await (await api('/api/sessions')).json()) as { sessions: SessionSummary[] }).sessions;
  const details = await Promise.all(sessions.map(async (s) => (await (await api(`/api/sessions/${s.id}`)).json()) as SessionDetail));
  const settings = await (await api('/api/settings')).json();
  return {
    marks: fs.readdirSync(path.join(ws.workspace, 'marks')).sort(),
    modelRequests: fake.requests.length,
    sessions: sessions.map((s) => ({ id: s.id, title: s.title, mode: s.mode })),
    messages: details.map((d) => d.messages.map((m) => m.id)),
    pending: details.map((d) => d.pendingApprovals.map((a) => `${a.toolCallId}:${a.status ?? ''}`)),
    settings,
  };
}

/** A chat turn that stops at an approval: returns the assistant message id. */
async function pendingApproval(sessionId: string, name: string): Promise<string> {
  const r = await api('/api/chat', { json: userMessage(sessionId, `u-${name}`, `mark ${name}`) });
  expect(r.status).toBe(200);
  const chunks = await readChunks(r);
  expect(chunks.some((c) => c.type === 'tool-approval-request' && c.toolCallId === `call-${name}`)).toBe(true);
  const detail = (await (await api(`/api/sessions/${sessionId}`)).json()) as SessionDetail;
  expect(detail.pendingApprovals.map((a) => a.toolCallId)).toContain(`call-${name}`);
  return detail.messages.at(-1)!.id;
}

const continuation = (sessionId: string, assistantId: string) => ({ sessionId, continue: { messageId: assistantId } });
const markLines = (name: string) => {
  const f = path.join(ws.workspace, 'marks', `${name}.txt`);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0;
};

describe('no token, or a wrong one: 401 everywhere, nothing runs', () => {
  it('refuses pages, APIs, the event stream and every write', async () => {
    const s = await createSession();
    const before = await snapshot();
    const reads = ['/', '/settings', '/api/sessions', `/api/sessions/${s}`, '/api/status', '/api/settings', '/api/rules', '/api/tasks', '/api/tasks/events', '/api/files?path=spill/x.txt', '/_next/static/x.js'];
    const wrongs: Array<[string, Record<string, string>]> = [
      ['none', {}],
      ['wrong cookie', { cookie: 'clamp_token=wrong' }],
      ['empty cookie', { cookie: 'clamp_token=' }],
      ['token plus a byte', { cookie: `clamp_token=${clamp.token}x` }],
      ['token minus a byte', { cookie: `clamp_token=${clamp.token.slice(0, -1)}` }],
      ['another cookie name', { cookie: `token=${clamp.token}; clamp_token_x=${clamp.token}` }],
      ['wrong bearer', { authorization: 'Bearer wrong' }],
      ['basic auth with the token', { authorization: `Basic ${Buffer.from(`clamp:${clamp.token}`).toString('base64')}` }],
    ];
    for (const p of reads) {
      for (const [name, headers] of wrongs) {
        const r = await send({ path: p, headers });
        expect(r.status, `${p} with ${name}`).toBe(401);
        expect(r.body).not.toContain(clamp.token);
      }
      const q = await send({ path: `${p}${p.includes('?') ? '&' : '?'}token=wrong` });
      expect(q.status, `${p}?token=wrong`).toBe(401);
    }
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/chat', userMessage(s, 'u-notoken', 'mark notoken')],
      ['POST', '/api/sessions', {}],
      ['PATCH', `/api/sessions/${s}`, { mode: 'auto' }],
      ['DELETE', `/api/sessions/${s}`, undefined],
      ['POST', `/api/sessions/${s}/approvals/call-notoken`, { answer: 'once' }],
      ['POST', `/api/sessions/${s}/stop`, undefined],
      ['PUT', '/api/settings', { provider: 'openai' }],
      ['DELETE', '/api/tasks/t1', undefined],
    ];
    for (const [method, p, body] of writes) {
      for (const [name, headers] of wrongs) {
        const r = await send({ method, path: p, headers: { 'content-type': 'application/json', origin: base, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
        expect(r.status, `${method} ${p} with ${name}`).toBe(401);
      }
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('a foreign Host (DNS rebinding): 403, nothing runs', () => {
  it('refuses every Host but localhost, 127.0.0.1 and [::1] with the port, even with the token', async () => {
    const s = await createSession();
    const before = await snapshot();
    const port = clamp.port;
    const hosts = [`evil.example:${port}`, 'evil.example', '127.0.0.1', 'localhost', `127.0.0.1:${port + 1}`, `127.0.0.1.evil.example:${port}`, `localhost.:${port}`, `0.0.0.0:${port}`, `[::1]`, `127.1:${port}`, `2130706433:${port}`, ''];
    for (const host of hosts) {
      for (const p of ['/', '/api/sessions', '/api/tasks/events']) {
        const r = await send({ path: p, headers: { host, cookie: cookie() } });
        expect(r.status, `GET ${p} Host ${host}`).toBe(host === '' ? 400 : 403);
      }
      const origin = `http://${host}`;
      const chat = await send({ method: 'POST', path: '/api/chat', headers: jsonHeaders({ host, origin }), body: JSON.stringify(userMessage(s, `u-host-${hosts.indexOf(host)}`, 'mark host')) });
      // no Host at all is refused by Node's HTTP parser itself (400), before the door
      expect(chat.status, `POST /api/chat Host ${host}`).toBe(host === '' ? 400 : 403);
    }
    // the three local names, any case, do pass
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect((await send({ path: '/api/status', headers: { host, cookie: cookie() } })).status, host).toBe(200);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('a foreign, null or missing Origin on a write: 403, nothing runs', () => {
  it('refuses POST, PATCH, PUT and DELETE from anywhere but the page itself, token or not', async () => {
    const s = await createSession();
    const assistantId = await pendingApproval(s, 'origin');
    const before = await snapshot();
    const port = clamp.port;
    const origins: Array<[string, string | undefined]> = [
      ['foreign', 'http://evil.example'],
      ['foreign with the port', `http://evil.example:${port}`],
      ['null', 'null'],
      ['missing', undefined],
      ['empty', ''],
      ['https', `https://127.0.0.1:${port}`],
      ['another port', `http://127.0.0.1:${port + 1}`],
      ['no port', 'http://127.0.0.1'],
      ['suffix', `http://127.0.0.1:${port}.evil.example`],
      ['userinfo', `http://localhost:${port}@evil.example`],
      ['path', `http://127.0.0.1:${port}/x`],
      ['file', 'file://'],
    ];
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/chat', userMessage(s, 'u-origin-2', 'mark origin2')],
      ['POST', '/api/chat', continuation(s, assistantId)],
      ['POST', '/api/sessions', {}],
      ['PATCH', `/api/sessions/${s}`, { mode: 'auto', title: 'pwned' }],
      ['DELETE', `/api/sessions/${s}`, undefined],
      ['POST', `/api/sessions/${s}/approvals/call-origin`, { answer: 'always' }],
      ['POST', `/api/sessions/${s}/stop`, undefined],
      ['PUT', '/api/settings', { provider: 'openai', model: 'gpt-pwned' }],
      ['DELETE', '/api/tasks/t1', undefined],
    ];
    for (const [method, p, body] of writes) {
      for (const [name, origin] of origins) {
        const headers: Record<string, string> = { 'content-type': 'application/json', cookie: cookie() };
        if (origin !== undefined) headers.origin = origin;
        const r = await send({ method, path: p, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        expect(r.status, `${method} ${p} with ${name} Origin`).toBe(403);
      }
    }
    expect(await snapshot()).toEqual(before);
    expect(markLines('origin') + markLines('origin2')).toBe(0);
    // the same write from the page itself goes through (the refusals above were the Origin's doing)
    const ok = await send({ method: 'PATCH', path: `/api/sessions/${s}`, headers: jsonHeaders(), body: JSON.stringify({ title: 'renamed' }) });
    expect(ok.status).toBe(200);
  });
});

describe('a forged approval: refused, nothing runs', () => {
  it('refuses a continuation nobody answered, a page that claims an answer, an unknown call and another session\'s call', async () => {
    const s = await createSession();
    const other = await createSession();
    const assistantId = await pendingApproval(s, 'forged');
    const stored = ((await (await api(`/api/sessions/${s}`)).json()) as SessionDetail).messages.at(-1)!;
    const part = stored.parts.find((p) => (p as { toolCallId?: string }).toolCallId === 'call-forged') as { approval: { id: string } };
    const before = await snapshot();

    const unanswered = await api('/api/chat', { json: continuation(s, assistantId) });
    expect(unanswered.status).toBe(409);
    expect(((await unanswered.json()) as { error: string }).error).toMatch(/No pending approval of this message has been answered/);
    // a page that sends its copy of the message claiming the call was approved: the body has no room for it
    const claimed = [{ ...part, state: 'approval-responded', approval: { id: part.approval.id, approved: true } }];
    const fat = await api('/api/chat', { json: { sessionId: s, message: { id: assistantId, role: 'assistant', parts: claimed } } });
    expect(fat.status).toBe(400);
    expect(((await fat.json()) as { error: string }).error).toMatch(/Unrecognized keys: "role", "parts"/);
    // a made-up message id
    expect((await api('/api/chat', { json: continuation(s, 'not-a-message') })).status).toBe(409);
    // continuing the message in another session
    expect((await api('/api/chat', { json: continuation(other, assistantId) })).status).toBe(409);

    const unknown = await api(`/api/sessions/${s}/approvals/call-never-made`, { json: { answer: 'once' } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/No approval is pending for tool call call-never-made/);
    expect((await api(`/api/sessions/${other}/approvals/call-forged`, { json: { answer: 'once' } })).status).toBe(404);
    expect((await api(`/api/sessions/no-such-session/approvals/call-forged`, { json: { answer: 'once' } })).status).toBe(404);
    expect((await api(`/api/sessions/${s}/approvals/..%2F..%2Fcall-forged`, { json: { answer: 'once' } })).status).toBe(404);
    // the approval's own id is not the tool call id
    expect((await api(`/api/sessions/${s}/approvals/${encodeURIComponent(part.approval.id)}`, { json: { answer: 'once' } })).status).toBe(404);

    expect(await snapshot()).toEqual(before);
    expect(markLines('forged')).toBe(0);
  });
});

describe('a replayed approval: refused, the command runs once', () => {
  it('refuses a second answer, a replayed continuation and a replayed user message', async () => {
    const s = await createSession();
    const assistantId = await pendingApproval(s, 'replay');
    expect((await api(`/api/sessions/${s}/approvals/call-replay`, { json: { answer: 'once' } })).status).toBe(200);
    for (const answer of ['once', 'deny', 'always', 'session']) {
      expect((await api(`/api/sessions/${s}/approvals/call-replay`, { json: { answer } })).status, answer).toBe(409);
    }
    const run = await api('/api/chat', { json: continuation(s, assistantId) });
    expect(run.status).toBe(200);
    const chunks = await readChunks(run);
    expect(chunks.find((c) => c.type === 'tool-output-available' && c.toolCallId === 'call-replay')).toMatchObject({ output: { status: 'ok' } });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    expect(markLines('replay')).toBe(1);

    const before = await snapshot();
    // the same continuation again (a replay of the request the page sent)
    expect((await api('/api/chat', { json: continuation(s, assistantId) })).status).toBe(409);
    // the assistant message that ran the command, continued again
    const latest = before.messages[before.sessions.findIndex((x) => x.id === s)].at(-1)!;
    expect((await api('/api/chat', { json: continuation(s, latest) })).status).toBe(409);
    // answering the call after it ran
    expect((await api(`/api/sessions/${s}/approvals/call-replay`, { json: { answer: 'once' } })).status).toBe(409);
    // the first user message, sent again
    expect((await api('/api/chat', { json: userMessage(s, 'u-replay', 'mark replay') })).status).toBe(409);
    expect(await snapshot()).toEqual(before);
    expect(markLines('replay')).toBe(1);
  });
});

describe('an oversized body: 413, nothing stored', () => {
  it('refuses big chat, session, approval and settings bodies; a body without a length; a huge declared one unread', async () => {
    const s = await createSession();
    await pendingApproval(s, 'big');
    const before = await snapshot();
    const chatMax = BUDGET.CHAT_BODY_MAX_BYTES;
    const padded = (bytes: number, obj: Record<string, unknown>) => {
      const json = JSON.stringify({ ...obj, pad: '' });
      return json.slice(0, -2) + 'x'.repeat(bytes - Buffer.byteLength(json)) + '"}';
    };
    const tooBig = /^The request body is larger than \d+ bytes\. Send less\.$/;
    // each route's own limit, counted by the route
    const cases: Array<[string, string, string]> = [
      ['POST', '/api/chat', padded(chatMax + 1, userMessage(s, 'u-big-chat', 'mark bigchat'))],
      ['POST', '/api/sessions', padded(BUDGET.API_BODY_MAX_BYTES + 1, { title: 'big' })],
      ['PATCH', `/api/sessions/${s}`, padded(BUDGET.API_BODY_MAX_BYTES + 1, { title: 'big' })],
      ['PUT', '/api/settings', padded(BUDGET.API_BODY_MAX_BYTES + 1, { model: 'big' })],
      ['POST', `/api/sessions/${s}/approvals/call-big`, padded(256 * 1024 + 1, { answer: 'once', reason: 'r' })],
    ];
    for (const [method, p, body] of cases) {
      const r = await send({ method, path: p, headers: jsonHeaders(), body });
      expect(r.status, `${method} ${p}`).toBe(413);
      expect(JSON.parse(r.body), `${method} ${p}`).toEqual({ error: expect.stringMatching(tooBig) });
    }
    // past the door's limit: refused before any route reads it
    const huge = await send({ method: 'POST', path: '/api/chat', headers: jsonHeaders(), body: padded(BUDGET.DOOR_BODY_MAX_BYTES + 1, userMessage(s, 'u-huge', 'mark huge')) });
    expect(huge.status).toBe(413);
    expect(huge.body.trim()).toMatch(tooBig);
    // a huge declared length with a body that never comes: answered at once, not after waiting for it
    const t0 = Date.now();
    const declared = await send({ method: 'POST', path: '/api/sessions', headers: jsonHeaders({ 'content-length': String(10 * 1024 ** 3) }), body: '{}' });
    expect(declared.status).toBe(413);
    expect(Date.now() - t0).toBeLessThan(5000);
    // no length at all (chunked): the server would read it to the end before a route could count it
    for (const [method, p, body] of [...cases, ['POST', '/api/sessions', '{}'] as [string, string, string]]) {
      const pieces = [];
      for (let i = 0; i < body.length; i += 64 * 1024) pieces.push(body.slice(i, i + 64 * 1024));
      const r = await send({ method, path: p, headers: jsonHeaders(), chunks: pieces });
      expect(r.status, `${method} ${p} chunked`).toBe(411);
    }
    expect(await snapshot()).toEqual(before);
    expect(markLines('bigchat') + markLines('huge')).toBe(0);
  });
});

describe('a malformed body: 400 naming the problem, nothing stored', () => {
  it('refuses invalid JSON, wrong types, missing and extra fields', async () => {
    const s = await createSession();
    await pendingApproval(s, 'malformed');
    const before = await snapshot();
    const cases: Array<[string, string, string, RegExp]> = [
      ['POST', '/api/chat', '{"sessionId":', /not valid JSON/],
      ['POST', '/api/chat', '', /body is empty/],
      ['POST', '/api/chat', '[]', /Invalid request/],
      ['POST', '/api/chat', 'null', /Invalid request/],
      ['POST', '/api/chat', '{}', /field "sessionId"/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: 5, message: userMessage(s, 'u-m1', 'mark malformed1').message }), /field "sessionId"/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s }), /send either "message" \(\{ id, text \}: a user message\) or "continue"/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s, message: { id: 'u-m2', role: 'system', text: 'mark malformed2' } }), /field "message": Unrecognized key: "role"/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s, message: { id: 'u-m3', text: ['mark malformed3'] } }), /field "message\.text"/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s, message: { id: '', text: 'mark malformed4' } }), /field "message\.id"/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s, message: { id: 'u-m5', text: '   ' } }), /message is empty/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s, message: { id: 'u-m6', text: 'mark malformed6' }, continue: { messageId: 'x' } }), /not both/],
      ['POST', '/api/chat', JSON.stringify({ sessionId: s, continue: { messageId: '' } }), /field "continue\.messageId"/],
      ['POST', '/api/sessions', '{"title":', /not valid JSON/],
      ['POST', '/api/sessions', JSON.stringify({ title: 123 }), /field "title"/],
      ['POST', '/api/sessions', JSON.stringify({ mode: 'yolo' }), /field "mode"/],
      ['POST', '/api/sessions', JSON.stringify({ workspace: '/' }), /Invalid request/],
      ['PATCH', `/api/sessions/${s}`, '{}', /send a title, a mode, a model, or several/],
      ['PATCH', `/api/sessions/${s}`, JSON.stringify({ mode: 'root' }), /field "mode"/],
      ['PATCH', `/api/sessions/${s}`, 'mode=auto', /not valid JSON/],
      ['POST', `/api/sessions/${s}/approvals/call-malformed`, '{}', /field "answer"/],
      ['POST', `/api/sessions/${s}/approvals/call-malformed`, JSON.stringify({ answer: 'yes' }), /field "answer"/],
      ['POST', `/api/sessions/${s}/approvals/call-malformed`, JSON.stringify({ answer: 'edit', editedCommand: 42 }), /field "editedCommand"/],
      ['POST', `/api/sessions/${s}/approvals/call-malformed`, '\u0000', /not valid JSON/],
      ['PUT', '/api/settings', '{"provider": }', /not valid JSON/],
    ];
    for (const [method, p, body, error] of cases) {
      const r = await send({ method, path: p, headers: jsonHeaders(), body });
      expect(r.status, `${method} ${p} ${body.slice(0, 80)}`).toBe(400);
      expect((JSON.parse(r.body) as { error: string }).error, `${method} ${p} ${body.slice(0, 80)}`).toMatch(error);
    }
    // a chat for a session that does not exist
    expect((await api('/api/chat', { json: userMessage('no-such-session', 'u-m7', 'mark malformed7') })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    expect(fs.readdirSync(path.join(ws.workspace, 'marks'))).toEqual(before.marks);
  });
});

describe('the file viewer: only spilled outputs and logs, never a file outside them', () => {
  it('refuses traversal, absolute paths, symlinks out of the data dir and Clamp\'s own secrets', async () => {
    const secret = path.join(ws.root, 'secret.txt');
    fs.writeFileSync(secret, 'TOPSECRET-OUTSIDE\n');
    fs.mkdirSync(path.join(ws.dataDir, 'spill'), { recursive: true });
    fs.writeFileSync(path.join(ws.dataDir, 'spill', 'ok.txt'), 'spilled text\n');
    fs.symlinkSync(secret, path.join(ws.dataDir, 'spill', 'link-out.txt'));
    fs.symlinkSync(ws.root, path.join(ws.dataDir, 'spill', 'dir-out'));
    fs.symlinkSync('/etc/passwd', path.join(ws.dataDir, 'passwd-link'));
    fs.writeFileSync(path.join(ws.dataDir, 'secrets.json'), JSON.stringify({ anthropic: 'sk-ant-TOPSECRET-KEY' }));
    const get = (p: string) => api(`/api/files?path=${encodeURIComponent(p)}`);

    const ok = await get('spill/ok.txt');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { text: string }).text).toBe('spilled text\n');

    const attempts = [
      '../../etc/passwd',
      '../../../../../../../../etc/passwd',
      '/etc/passwd',
      secret,
      '../secret.txt',
      'spill/../../secret.txt',
      'spill/link-out.txt',
      'spill/dir-out/secret.txt',
      'passwd-link',
      `${ws.dataDir}/../secret.txt`,
      '.',
      ws.dataDir,
      '/proc/self/environ',
      // Clamp's own files in the data dir: API keys, the approval signing secret, the database
      'secrets.json',
      'approval-secret',
      'clamp.db',
    ];
    for (const p of attempts) {
      const r = await get(p);
      expect([403, 404], p).toContain(r.status);
      const text = await r.text();
      expect(text, p).not.toMatch(/TOPSECRET|root:x:0:0|CLAMP_TOKEN|SQLite format/);
    }
    // the query decoded by the server, not by us: raw ../ and %2e%2e
    for (const q of ['../../etc/passwd', '%2e%2e/%2e%2e/etc/passwd', '..%2f..%2fetc%2fpasswd', '%2Fetc%2Fpasswd']) {
      const r = await send({ path: `/api/files?path=${q}`, headers: { cookie: cookie() } });
      expect([403, 404], q).toContain(r.status);
      expect(r.body).not.toMatch(/root:x:0:0/);
    }
    const nul = await send({ path: '/api/files?path=spill/ok.txt%00.png', headers: { cookie: cookie() } });
    expect(nul.status).toBe(400);
  });
});

describe('the event stream', () => {
  it('answers 401 without the token and 403 through a foreign Host; streams with both right', async () => {
    expect((await send({ path: '/api/tasks/events' })).status).toBe(401);
    expect((await send({ path: '/api/tasks/events', headers: { cookie: 'clamp_token=wrong', accept: 'text/event-stream' } })).status).toBe(401);
    expect((await send({ path: '/api/tasks/events', headers: { host: `evil.example:${clamp.port}`, cookie: cookie() } })).status).toBe(403);
    const abort = new AbortController();
    const r = await api('/api/tasks/events', { signal: abort.signal });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await r.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^: connected/);
    abort.abort();
  });
});

describe('CORS', () => {
  it('a preflight from another origin gets no CORS headers', async () => {
    for (const headers of <Array<Record<string, string>>>[
      { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      { origin: 'http://evil.example', 'access-control-request-method': 'POST', cookie: cookie() },
    ]) {
      for (const p of ['/api/chat', '/api/sessions', '/api/tasks/events']) {
        const r = await send({ method: 'OPTIONS', path: p, headers });
        expect(corsHeaders(r.headers), `OPTIONS ${p}`).toEqual([]);
      }
    }
  });

  it('no response the suite saw carried a CORS header', () => {
    expect(seen.length).toBeGreaterThan(300);
    expect(seen.filter((s) => corsHeaders(s.headers).length > 0).map((s) => s.what)).toEqual([]);
  });
});
