import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as sessionsRoute from '../../app/api/sessions/route';
import * as sessionRoute from '../../app/api/sessions/[id]/route';
import * as settingsRoute from '../../app/api/settings/route';
import * as checkRoute from '../../app/api/settings/check/route';
import * as rulesRoute from '../../app/api/rules/route';
import * as ruleRoute from '../../app/api/rules/[id]/route';
import { errorResponse, HttpError, json, parseJson, serverConfig } from '../../lib/server/http';
import { closeDb, openDb, StoreError } from '../../lib/store/db';
import { ApprovalAnsweredError, recordPending } from '../../lib/store/approvals';
import type { StoredApproval } from '../../lib/contract/protocol';
import { appendMessage } from '../../lib/store/messages';
import { addRule } from '../../lib/store/rules';
import { ConfigError } from '../../lib/config';
import { BUDGET } from '../../lib/contract/budget';
import { z } from 'zod';
import fs from 'node:fs';
import { harness, tempWorkspace } from '../helpers';
import { storeHost } from '../../lib/server/agent-host';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { sandboxChoice } from '../../lib/tools/commands/sandbox-policy';
import { getSandboxSettings } from '../../lib/store/settings';

let ws: ReturnType<typeof tempWorkspace>;
const saved = { ...process.env };

beforeEach(() => {
  ws = tempWorkspace('clamp-routes-');
  process.env.CLAMP_WORKSPACE = ws.workspace;
  process.env.CLAMP_DATA_DIR = ws.dataDir;
  delete process.env.CLAMP_MODE;
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.OPENAI_API_KEY;
  delete process.env.CLAMP_API_KEY;
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

const URL_BASE = 'http://127.0.0.1/api';
const send = (path: string, method: string, body?: string | object, headers: Record<string, string> = {}) =>
  new Request(`${URL_BASE}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
const params = (id: string) => ({ params: Promise.resolve({ id }) });
async function read(res: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A body the server cannot know the size of in advance (no Content-Length). */
function streamedRequest(path: string, method: string, bytes: number): Request {
  const chunk = new TextEncoder().encode('x'.repeat(1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Request(`${URL_BASE}${path}`, { method, body: stream, duplex: 'half' } as RequestInit);
}

describe('/api/sessions', () => {
  it('creates (201) and lists sessions of this workspace, newest first', async () => {
    expect(await read(await sessionsRoute.GET())).toEqual({ status: 200, body: { sessions: [] } });
    const a = await read(await sessionsRoute.POST(send('/sessions', 'POST', { title: 'First' })));
    expect(a.status).toBe(201);
    expect(a.body.session).toMatchObject({ title: 'First', mode: 'default', messageCount: 0, pendingApprovals: 0 });
    expect(a.body.session).not.toHaveProperty('workspace');
    const b = await read(await sessionsRoute.POST(send('/sessions', 'POST', { mode: 'plan' })));
    expect(b.body.session).toMatchObject({ title: 'New session', mode: 'plan' });
    const list = await read(await sessionsRoute.GET());
    expect((list.body.sessions as { title: string }[]).map((s) => s.title)).toEqual(['New session', 'First']);
  });

  it('starts a new session in CLAMP_MODE when the body names no mode', async () => {
    process.env.CLAMP_MODE = 'accept-edits';
    const res = await read(await sessionsRoute.POST(send('/sessions', 'POST', {})));
    expect(res.body.session).toMatchObject({ mode: 'accept-edits' });
  });

  it('400 for a malformed, empty or invalid body, naming the field', async () => {
    const bad = await read(await sessionsRoute.POST(send('/sessions', 'POST', '{"title": ')));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^The request body is not valid JSON \(.+\)\.$/);
    expect(await read(await sessionsRoute.POST(send('/sessions', 'POST', '')))).toEqual({
      status: 400,
      body: { error: 'The request body is empty. Send a JSON object.' },
    });
    expect(await read(await sessionsRoute.POST(send('/sessions', 'POST', { mode: 'yolo' })))).toEqual({
      status: 400,
      body: { error: 'Invalid request: field "mode": Invalid option: expected one of "default"|"accept-edits"|"plan"|"debug"|"auto".' },
    });
    expect(await read(await sessionsRoute.POST(send('/sessions', 'POST', { title: 'x'.repeat(81) })))).toEqual({
      status: 400,
      body: { error: 'Invalid request: field "title": Too big: expected string to have <=80 characters.' },
    });
    expect(await read(await sessionsRoute.POST(send('/sessions', 'POST', { titel: 'typo' })))).toEqual({
      status: 400,
      body: { error: 'Invalid request: Unrecognized key: "titel".' },
    });
    expect(await read(await sessionsRoute.POST(send('/sessions', 'POST', [1])))).toEqual({
      status: 400,
      body: { error: 'Invalid request: Invalid input: expected object, received array.' },
    });
    expect((await read(await sessionsRoute.GET())).body.sessions).toEqual([]);
  });

  it('413 for a body over the cap, whether declared or streamed', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(BUDGET.API_BODY_MAX_BYTES) });
    const error = `The request body is larger than ${BUDGET.API_BODY_MAX_BYTES} bytes. Send less.`;
    expect(await read(await sessionsRoute.POST(send('/sessions', 'POST', big)))).toEqual({ status: 413, body: { error } });
    // refused on its declared size alone, before reading
    const declared = send('/sessions', 'POST', '{}', { 'content-length': String(BUDGET.API_BODY_MAX_BYTES + 1) });
    expect(await read(await sessionsRoute.POST(declared))).toEqual({ status: 413, body: { error } });
    expect(declared.bodyUsed).toBe(false);
    expect(await read(await sessionsRoute.POST(streamedRequest('/sessions', 'POST', BUDGET.API_BODY_MAX_BYTES + 4096)))).toEqual({
      status: 413,
      body: { error },
    });
    expect((await read(await sessionsRoute.GET())).body.sessions).toEqual([]);
  });
});

describe('/api/sessions/[id]', () => {
  async function create(title?: string): Promise<string> {
    const res = await read(await sessionsRoute.POST(send('/sessions', 'POST', title ? { title } : {})));
    return (res.body.session as { id: string }).id;
  }

  it('GET returns the session with its conversation and pending approvals', async () => {
    const id = await create();
    const db = openDb(ws.dataDir);
    appendMessage(db, id, { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'list the files' }] });
    recordPending(db, { approvalId: 'ap1', sessionId: id, toolCallId: 'c1', toolName: 'run_command', input: { command: 'ls' } });
    closeDb(ws.dataDir); // the route reopens it, as after a restart
    const res = await read(await sessionRoute.GET(send(`/sessions/${id}`, 'GET'), params(id)));
    expect(res.status).toBe(200);
    expect(res.body.session).toMatchObject({ id, title: 'list the files', messageCount: 1, pendingApprovals: 1 });
    expect(res.body.messages).toEqual([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'list the files' }] }]);
    expect(res.body.pendingApprovals).toMatchObject([{ approvalId: 'ap1', toolCallId: 'c1', status: 'pending', input: { command: 'ls' } }]);
  });

  it('404 for an unknown id, an id that cannot exist, or a session of another workspace', async () => {
    expect(await read(await sessionRoute.GET(send('/sessions/nope', 'GET'), params('nope')))).toEqual({
      status: 404,
      body: { error: 'Session nope not found. List the sessions with GET /api/sessions.' },
    });
    expect(await read(await sessionRoute.GET(send('/sessions/x', 'GET'), params('../etc')))).toEqual({
      status: 404,
      body: { error: 'Session ../etc not found.' },
    });
    const id = await create('mine');
    const other = tempWorkspace('clamp-routes-other-');
    try {
      process.env.CLAMP_WORKSPACE = other.workspace;
      expect((await sessionRoute.GET(send(`/sessions/${id}`, 'GET'), params(id))).status).toBe(404);
      expect((await sessionRoute.DELETE(send(`/sessions/${id}`, 'DELETE'), params(id))).status).toBe(404);
      expect((await sessionRoute.PATCH(send(`/sessions/${id}`, 'PATCH', { title: 'stolen' }), params(id))).status).toBe(404);
    } finally {
      other.cleanup();
    }
  });

  it('PATCH renames and switches mode; 400 without either; 404 when unknown', async () => {
    const id = await create();
    const res = await read(await sessionRoute.PATCH(send(`/sessions/${id}`, 'PATCH', { title: 'Renamed', mode: 'debug' }), params(id)));
    expect(res).toMatchObject({ status: 200, body: { session: { id, title: 'Renamed', mode: 'debug' } } });
    expect(await read(await sessionRoute.PATCH(send(`/sessions/${id}`, 'PATCH', {}), params(id)))).toEqual({
      status: 400,
      body: { error: 'Invalid request: send a title, a mode, a model, or several.' },
    });
    expect(await read(await sessionRoute.PATCH(send(`/sessions/${id}`, 'PATCH', { title: '' }), params(id)))).toEqual({
      status: 400,
      body: { error: 'Invalid request: field "title": Too small: expected string to have >=1 characters.' },
    });
    expect(await read(await sessionRoute.PATCH(send(`/sessions/${id}`, 'PATCH', '{bad'), params(id)))).toMatchObject({ status: 400 });
    expect((await sessionRoute.PATCH(send('/sessions/nope', 'PATCH', { title: 'x' }), params('nope'))).status).toBe(404);
    const list = await read(await sessionsRoute.GET());
    expect(list.body.sessions).toMatchObject([{ id, title: 'Renamed', mode: 'debug' }]);
  });

  it('DELETE removes the session (200), then 404', async () => {
    const id = await create('bye');
    expect(await read(await sessionRoute.DELETE(send(`/sessions/${id}`, 'DELETE'), params(id)))).toEqual({ status: 200, body: { deleted: id } });
    expect(await read(await sessionRoute.DELETE(send(`/sessions/${id}`, 'DELETE'), params(id)))).toEqual({
      status: 404,
      body: { error: `Session ${id} not found. List the sessions with GET /api/sessions.` },
    });
    expect((await sessionRoute.GET(send(`/sessions/${id}`, 'GET'), params(id))).status).toBe(404);
  });
});

describe('/api/settings', () => {
  it('GET shows the defaults and which keys are set; PUT saves settings and keys without returning them', async () => {
    process.env.OPENAI_API_KEY = 'sk-env-key';
    expect(await read(await settingsRoute.GET())).toEqual({
      status: 200,
      body: {
        settings: { provider: null, model: null, baseUrl: null, contextWindow: null, defaultMode: 'default' },
        sandbox: { level: 'by-mode', network: false, passEnv: [], hide: [], show: [], allowHosts: [] },
        sandboxEnv: {},
        keys: { anthropic: false, openai: false, 'openai-compatible': false },
        envKeys: { anthropic: false, openai: true, 'openai-compatible': false },
        secretsFile: path.join(ws.dataDir, 'secrets.json'),
      },
    });
    const put = await read(
      await settingsRoute.PUT(
        send('/settings', 'PUT', { provider: 'openai-compatible', model: 'qwen3', baseUrl: 'http://localhost:1234/v1', contextWindow: 32768, keys: { 'openai-compatible': 'sk-stored' } }),
      ),
    );
    expect(put).toEqual({
      status: 200,
      body: {
        settings: { provider: 'openai-compatible', model: 'qwen3', baseUrl: 'http://localhost:1234/v1', contextWindow: 32768, defaultMode: 'default' },
        sandbox: { level: 'by-mode', network: false, passEnv: [], hide: [], show: [], allowHosts: [] },
        sandboxEnv: {},
        keys: { anthropic: false, openai: false, 'openai-compatible': true },
        envKeys: { anthropic: false, openai: true, 'openai-compatible': false },
        secretsFile: path.join(ws.dataDir, 'secrets.json'),
      },
    });
    const got = await settingsRoute.GET();
    const text = await got.text();
    expect(text).not.toContain('sk-');
    expect(JSON.parse(text).keys['openai-compatible']).toBe(true);
    const removed = await read(await settingsRoute.PUT(send('/settings', 'PUT', { keys: { 'openai-compatible': null } })));
    expect(removed.body.keys).toEqual({ anthropic: false, openai: false, 'openai-compatible': false });
    expect(removed.body.settings).toMatchObject({ model: 'qwen3' });
  });

  it('400 naming the field for a bad value; 413 over the cap', async () => {
    expect(await read(await settingsRoute.PUT(send('/settings', 'PUT', { baseUrl: 'file:///etc/passwd' })))).toEqual({
      status: 400,
      body: { error: 'Invalid request: field "baseUrl": must be an http:// or https:// URL.' },
    });
    expect(await read(await settingsRoute.PUT(send('/settings', 'PUT', { keys: { anthropic: '  ' } })))).toEqual({
      status: 400,
      body: { error: 'Invalid request: field "keys.anthropic": must not be empty; send null to remove the key.' },
    });
    expect(await read(await settingsRoute.PUT(send('/settings', 'PUT', { provider: 'gpt' })))).toMatchObject({ status: 400, body: { error: expect.stringContaining('field "provider"') } });
    expect(await read(await settingsRoute.PUT(send('/settings', 'PUT', { contextWindow: 12.5 })))).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('field "contextWindow"') },
    });
    expect(await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { allowHosts: ['packages.example.org', 'https://x.example.org/'] } })))).toEqual({
      status: 400,
      body: { error: 'Invalid request: field "sandbox.allowHosts.1": "https://x.example.org/" is not a host pattern: a host name (packages.example.org), *.name for every name below it, or an IP address, optionally with :port.' },
    });
    const hosts = await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { allowHosts: [' packages.example.org ', '*.example.net', 'packages.example.org'] } })));
    expect((hosts.body as { sandbox: { allowHosts: string[] } }).sandbox.allowHosts).toEqual(['packages.example.org', '*.example.net']);
    expect((await settingsRoute.PUT(streamedRequest('/settings', 'PUT', BUDGET.API_BODY_MAX_BYTES + 1))).status).toBe(413);
    expect((await read(await settingsRoute.GET())).body.settings).toMatchObject({ provider: null, baseUrl: null });
  });
});

describe('/api/rules', () => {
  it('lists the workspace\'s saved rules and deletes one (200, then 404)', async () => {
    const db = openDb(ws.dataDir);
    const r = addRule(db, { workspace: ws.workspace, tool: 'run_command', pattern: 'npm test', action: 'allow' });
    addRule(db, { workspace: '/elsewhere', tool: 'run_command', pattern: 'npm', action: 'allow' });
    const list = await read(await rulesRoute.GET());
    expect(list).toEqual({
      status: 200,
      body: { rules: [{ id: r.id, workspace: ws.workspace, tool: 'run_command', pattern: 'npm test', action: 'allow', createdAt: r.createdAt }] },
    });
    expect(await read(await ruleRoute.DELETE(send(`/rules/${r.id}`, 'DELETE'), params(r.id)))).toEqual({ status: 200, body: { deleted: r.id } });
    expect(await read(await ruleRoute.DELETE(send(`/rules/${r.id}`, 'DELETE'), params(r.id)))).toEqual({
      status: 404,
      body: { error: `Rule ${r.id} not found. List the rules with GET /api/rules.` },
    });
    expect((await read(await rulesRoute.GET())).body.rules).toEqual([]);
  });
});

describe('lib/server/http', () => {
  it('errorResponse maps known errors to their status', async () => {
    const answered: StoredApproval = {
      approvalId: 'ap1', sessionId: 's1', toolCallId: 'c1', toolName: 'run_command', input: { command: 'ls' }, info: null,
      status: 'answered', answer: 'once', editedCommand: null, reason: null, network: false, createdAt: 1, answeredAt: 2,
    };
    // the 409 carries the approval as it stands, so the page can take the earlier answer
    expect(await read(errorResponse(new ApprovalAnsweredError(answered)))).toEqual({
      status: 409,
      body: { error: 'Approval ap1 was already answered (once). Reload the session to see its current state.', approval: answered },
    });
    expect((await read(errorResponse(new StoreError('bad', 'invalid')))).status).toBe(400);
    expect((await read(errorResponse(new StoreError('gone', 'not-found')))).status).toBe(404);
    expect(await read(errorResponse(new HttpError(413, 'too big')))).toEqual({ status: 413, body: { error: 'too big' } });
    expect(await read(errorResponse(new ConfigError('CLAMP_MODE=x is not a permission mode.')))).toEqual({
      status: 500,
      body: { error: 'CLAMP_MODE=x is not a permission mode.' },
    });
    const zerr = z.object({ n: z.number() }).safeParse({ n: 'x' }).error!;
    expect(await read(errorResponse(zerr))).toEqual({ status: 400, body: { error: 'Invalid request: field "n": Invalid input: expected number, received string.' } });
  });

  it('json sets the status and forbids caching; parseJson nests field paths', async () => {
    const res = json({ ok: true }, 201);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const schema = z.object({ a: z.object({ b: z.array(z.string()) }) });
    await expect(parseJson(send('/x', 'POST', { a: { b: ['ok', 3] } }), schema, 1000)).rejects.toThrow('Invalid request: field "a.b.1": Invalid input: expected string, received number.');
    await expect(parseJson(send('/x', 'POST', { a: { b: [] } }), schema, 5)).rejects.toMatchObject({ status: 413 });
    expect(await parseJson(send('/x', 'POST', { a: { b: ['é'] } }), schema, 1000)).toEqual({ a: { b: ['é'] } });
  });

  it('serverConfig reads the workspace, data dir and mode from the environment, and explains a bad one', async () => {
    process.env.CLAMP_MODE = 'plan';
    expect(serverConfig()).toEqual({ workspace: ws.workspace, dataDir: ws.dataDir, mode: 'plan' });
    process.env.CLAMP_WORKSPACE = `${ws.root}/missing`;
    expect(await read(await sessionsRoute.GET())).toEqual({
      status: 500,
      body: { error: `CLAMP_WORKSPACE=${ws.root}/missing does not exist. Point it at the repository Clamp should work in.` },
    });
  });

  it('routes run on Node and are never cached', () => {
    for (const mod of [sessionsRoute, sessionRoute, settingsRoute, rulesRoute, ruleRoute]) {
      expect(mod.runtime).toBe('nodejs');
      expect(mod.dynamic).toBe('force-dynamic');
    }
  });
});

describe('/api/settings: the sandbox', () => {
  it('saving the level changes what the next command runs under; CLAMP_SANDBOX wins over it', async () => {
    delete process.env.CLAMP_SANDBOX;
    delete process.env.CLAMP_SANDBOX_NETWORK;
    const host = storeHost(openDb(ws.dataDir), { sessionId: 's1', workspace: ws.workspace, dataDir: ws.dataDir });
    const h = harness([runCommandTool], ws);
    const touch = () => h.call('run_command', { command: 'touch made.txt' }, { services: host.services }, { approver: { approved: true } });

    const put = await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { level: 'read-only', network: true } })));
    expect(put.body).toMatchObject({ sandbox: { level: 'read-only', network: true }, sandboxEnv: {} });
    const ro = await touch();
    expect(ro.output).not.toMatch(/^exit code 0/);
    expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(false);

    await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { level: 'by-mode' } }));
    expect((await read(await settingsRoute.GET())).body.sandbox).toEqual({ level: 'by-mode', network: true, passEnv: [], hide: [], show: [], allowHosts: [] });
    expect((await touch()).output).toMatch(/^exit code 0/);
    expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(true);
    fs.rmSync(path.join(ws.workspace, 'made.txt'));

    // the environment, when set, wins: the page shows it and the saved level no longer applies
    await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { level: 'read-only' } }));
    process.env.CLAMP_SANDBOX = 'workspace-write';
    process.env.CLAMP_SANDBOX_NETWORK = '0';
    expect((await read(await settingsRoute.GET())).body.sandboxEnv).toEqual({ level: 'workspace-write', network: false });
    expect((await touch()).output).toMatch(/^exit code 0/);
    expect(sandboxChoice('default', undefined, process.env, getSandboxSettings(openDb(ws.dataDir)))).toMatchObject({ level: 'workspace-write', network: false });
    delete process.env.CLAMP_SANDBOX_NETWORK;
    expect(sandboxChoice('default', undefined, process.env, getSandboxSettings(openDb(ws.dataDir)))).toMatchObject({ network: true });
    expect(sandboxChoice('plan', undefined, {} as NodeJS.ProcessEnv, { level: 'workspace-write', network: false }).level).toBe('read-only');
  });

  it('saves the variables to pass and the paths to hide and show; refuses a name that is not one and a relative path', async () => {
    const put = await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { passEnv: ['MY_FLAG', 'MY_FLAG', ' OTHER '], hide: ['~/notes', '/srv/keys'], show: ['~/sdk'] } })));
    expect(put.body).toMatchObject({ sandbox: { passEnv: ['MY_FLAG', 'OTHER'], hide: ['~/notes', '/srv/keys'], show: ['~/sdk'] } });
    process.env.CLAMP_SANDBOX_ENV = 'FROM_ENV';
    expect((await read(await settingsRoute.GET())).body.sandboxEnv).toEqual({ passEnv: ['FROM_ENV'] });
    delete process.env.CLAMP_SANDBOX_ENV;
    expect((await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { passEnv: ['NOT A NAME'] } })))).status).toBe(400);
    expect((await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { hide: ['relative/path'] } })))).status).toBe(400);
  });

  it('refuses a level that is not one', async () => {
    expect((await read(await settingsRoute.PUT(send('/settings', 'PUT', { sandbox: { level: 'none' } })))).status).toBe(400);
  });
});

describe('/api/settings/check', () => {
  it('answers what is wrong with the settings as the dialog holds them, and refuses a malformed body', async () => {
    const missing = path.join(ws.root, 'no-such-script.json');
    expect(await read(await checkRoute.POST(send('/settings/check', 'POST', { provider: 'scripted', model: missing, baseUrl: null })))).toEqual({
      status: 200,
      body: { ok: false, reached: false, pick: null, message: `The script file ${missing} does not exist. Give the path of a JSON script of model turns (docs/scripted-model.md).`, models: [] },
    });
    const bad = await read(await checkRoute.POST(send('/settings/check', 'POST', { provider: 'nope', model: null, baseUrl: null })));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/field "provider"/);
  });
});
