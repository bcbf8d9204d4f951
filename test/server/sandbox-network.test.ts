import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskSummary } from '../../lib/contract/protocol';
import { orphanedHelpers } from '../../lib/exec/net-tools';
import { startFakeOpenAI } from '../fake-openai';
import { connectProbe as connect, tempWorkspace } from '../helpers';
import { scriptedReplies } from '../e2e/scenarios';
import { ROOT } from '../../lib/server/build';
import { readChunks, startClamp, type RunningClamp } from './harness';

/**
 * The sandbox's network through the real server, in default sandbox settings (issue 25, item 2): the demo's dev
 * server, started by the model as a background task, answers on this machine's 127.0.0.1 and on no other
 * address, and the task carries the link; `npm install` of a small package fails naming the registry's host
 * while the host is not allowed, and works once the settings allow it, or once the person approves the model's
 * allow_hosts for the session. The registry is whatever npm is configured with here.
 */

const REGISTRY_HOST = new URL(execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()).host;
const INSTALL = 'npm install is-number --no-audit --no-fund --no-save';
const OTHER_ADDRESS = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

const scripts = {
  dev: [{ toolCalls: [{ name: 'run_command', args: { command: 'node server.js', background: true }, id: 'dev' }] }, { text: 'The dev server runs.' }],
  install: [{ toolCalls: [{ name: 'run_command', args: { command: INSTALL }, id: 'install' }] }, { text: 'Tried.' }],
  grant: [
    { toolCalls: [{ name: 'run_command', args: { command: INSTALL, allow_hosts: [REGISTRY_HOST], sandbox_reason: 'to install the package' }, id: 'grant' }] },
    { text: 'Installed.' },
  ],
};

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;


async function session(mode: string): Promise<string> {
  const res = await clamp.api('/api/sessions', { json: { mode } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { session: { id: string } }).session.id;
}

/** One user message; the turn's chunks. */
async function say(sessionId: string, text: string) {
  return readChunks(await clamp.api('/api/chat', { json: { sessionId, message: { id: `u-${Math.random().toString(36).slice(2)}`, text } } }));
}

function resultOf(chunks: Array<Record<string, unknown>>, toolCallId?: string): { output: string; status: string; meta?: Record<string, unknown> } {
  const c = chunks.find((x) => x.type === 'tool-output-available' && (!toolCallId || x.toolCallId === toolCallId)) as { output: { output: string; status: string; meta?: Record<string, unknown> } } | undefined;
  if (!c) throw new Error(`no tool result in ${JSON.stringify(chunks).slice(0, 2000)}`);
  return c.output;
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-sandbox-net-');
  fs.cpSync(path.join(ROOT, 'demo/workspace'), ws.workspace, { recursive: true });
  ws.write('package.json', JSON.stringify({ name: 'blog', version: '1.0.0', type: 'module' }));
  fake = await startFakeOpenAI(scriptedReplies(scripts));
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'default' });
}, 300_000);

afterAll(async () => {
  await clamp?.stop();
  await fake?.close();
  // the server's shutdown stopped every helper of the sandbox's network
  for (let i = 0; i < 20 && orphanedHelpers().length; i++) await new Promise((r) => setTimeout(r, 100));
  expect(orphanedHelpers()).toEqual([]);
  ws?.cleanup();
});

describe('the sandbox\'s network through the real server', () => {
  it('the demo\'s dev server, a background task, answers on this machine\'s 127.0.0.1 only, and the task carries the link', { timeout: 120_000 }, async () => {
    const id = await session('auto');
    const chunks = await say(id, '[e2e:dev] start the dev server');
    const started = resultOf(chunks);
    expect(started.output).toMatch(/^Started background task (t\d+)/);
    const taskId = started.meta!.taskId as string;
    let task: TaskSummary | undefined;
    for (let i = 0; i < 100 && !task?.ports?.length; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const list = (await (await clamp.api('/api/tasks')).json()) as { tasks: TaskSummary[] };
      task = list.tasks.find((t) => t.id === taskId);
    }
    expect(task?.ports, JSON.stringify(task)).toHaveLength(1);
    const port = task!.ports![0]!;
    expect(port.url).toBe(`http://127.0.0.1:${port.hostPort}/`);
    // the URL the server printed is the one the person opens (the same number was free here)
    const printed = fs.readFileSync(task!.logPaths.stdout, 'utf8');
    expect(printed).toContain(`dev server listening on http://127.0.0.1:${port.hostPort}`);
    const res = await fetch(`${port.url}posts/hello-world`);
    expect([200, 404]).toContain(res.status);
    expect(await res.text()).not.toBe('');
    if (OTHER_ADDRESS) expect(await connect(OTHER_ADDRESS, port.hostPort)).not.toBe('open');
    // task_output tells the model the same address
    const out = await clamp.api(`/api/tasks/${taskId}`);
    expect(out.status).toBe(200);
    expect((await clamp.api(`/api/tasks/${taskId}`, { method: 'DELETE' })).status).toBeLessThan(300);
  });

  it('npm install fails naming the registry\'s host until the settings allow it, then installs', { timeout: 180_000 }, async () => {
    const id = await session('auto');
    const refused = resultOf(await say(id, '[e2e:install] install it'));
    expect(refused.status).toBe('error');
    expect(refused.output).toContain(`The sandbox's proxy refused ${REGISTRY_HOST}: not on the allowed hosts. If the task needs it, call run_command again with the same command, allow_hosts: ["${REGISTRY_HOST}"]`);
    expect(refused.meta?.proxyRefused).toEqual([REGISTRY_HOST]);
    expect(fs.existsSync(path.join(ws.workspace, 'node_modules/is-number'))).toBe(false);

    const put = await clamp.api('/api/settings', { method: 'PUT', json: { sandbox: { allowHosts: [REGISTRY_HOST] } } });
    expect(put.status).toBe(200);
    try {
      const ok = resultOf(await say(id, '[e2e:install] install it again'));
      expect(ok.status, ok.output).toBe('ok');
      expect(fs.existsSync(path.join(ws.workspace, 'node_modules/is-number/package.json'))).toBe(true);
    } finally {
      await clamp.api('/api/settings', { method: 'PUT', json: { sandbox: { allowHosts: [] } } });
      fs.rmSync(path.join(ws.workspace, 'node_modules'), { recursive: true, force: true });
    }
  });

  it('allow_hosts asks the person, naming the host; approved, it installs and the host stays allowed for the session', { timeout: 180_000 }, async () => {
    const id = await session('default');
    const chunks = await say(id, '[e2e:grant] install it');
    const ask = chunks.find((c) => c.type === 'tool-approval-request') as { toolCallId: string } | undefined;
    expect(ask, JSON.stringify(chunks).slice(0, 2000)).toBeDefined();
    const detail = (await (await clamp.api(`/api/sessions/${id}`)).json()) as { pendingApprovals: Array<{ approvalId: string; info: { decision: { reason: string } } }> };
    expect(detail.pendingApprovals[0]!.info.decision.reason).toContain(`asks to reach ${REGISTRY_HOST} through the sandbox's proxy, for the rest of this session, because: to install the package`);
    expect((await clamp.api(`/api/sessions/${id}/approvals/${encodeURIComponent(ask!.toolCallId)}`, { json: { answer: 'once' } })).status).toBe(200);
    const last = (await (await clamp.api(`/api/sessions/${id}`)).json()) as { messages: Array<{ id: string }> };
    const done = await readChunks(await clamp.api('/api/chat', { json: { sessionId: id, continue: { messageId: last.messages.at(-1)!.id } } }));
    const r = resultOf(done);
    expect(r.status, r.output).toBe('ok');
    expect(r.output).toContain(`the sandbox's proxy allows ${REGISTRY_HOST} for the rest of this session (approved by the person)`);
    expect(fs.existsSync(path.join(ws.workspace, 'node_modules/is-number/package.json'))).toBe(true);
    fs.rmSync(path.join(ws.workspace, 'node_modules'), { recursive: true, force: true });
    // the same session: a plain install reaches the host without asking again (auto mode runs it)
    await clamp.api(`/api/sessions/${id}`, { method: 'PATCH', json: { mode: 'auto' } });
    const again = resultOf(await say(id, '[e2e:install] once more'));
    expect(again.status, again.output).toBe('ok');
  });
});
