import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRulesView } from '../../lib/contract/permission-rest';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, type RunningClamp } from './harness';

/**
 * Permission rules from a workspace's .claude/settings.json over HTTP: the real launcher, the rules route, and chat
 * turns with a stand-in model whose requests are recorded (what the model read, and that no secret reached it).
 */

const CANARY = 'CANARY-http-91c2';
let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let calls: { name: string; args: unknown }[] = [];

beforeAll(async () => {
  ws = tempWorkspace('clamp-perm-http-');
  ws.write('.claude/settings.json', JSON.stringify({ permissions: { allow: ['Bash(npm test:*)'], deny: ['Bash(git push:*)', 'Read(./secrets/**)'] } }));
  ws.write('secrets/key.txt', `token=${CANARY}\n`);
  ws.write('package.json', JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: "node -e \"require('fs').writeFileSync('tests-ran.txt','yes')\"" } }));
  const home = path.join(ws.root, 'home');
  fs.mkdirSync(home);
  fake = await startFakeOpenAI((req: FakeRequest): FakeReply => (req.body.messages.at(-1)?.role === 'tool' ? { text: 'done' } : { toolCalls: calls.map((c, i) => ({ ...c, id: `call_${i}_${Date.now()}` })) }));
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'default', HOME: home });
}, 300_000);
afterAll(async () => {
  await clamp?.stop();
  await fake?.close();
  ws?.cleanup();
});

async function turn(text: string) {
  const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
  const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-${Date.now()}`, text } } });
  expect(chat.status).toBe(200);
  const chunks = await readChunks(chat);
  return { asked: chunks.some((c) => c.type === 'tool-approval-request') };
}

const put = async (json: unknown) => clamp.api('/api/rules/files', { method: 'PUT', json });
const everything = () => fake.requests.map((r) => JSON.stringify(r.body)).join('\n');

describe('permission rules from settings files over HTTP', () => {
  it('GET lists them off; PUT turns them on and approves the allow rule; bad bodies are refused with the fix', async () => {
    const view = (await (await clamp.api('/api/rules/files')).json()) as FileRulesView;
    expect(view.on).toBe(false);
    expect(view.rules.map((r) => [r.action, r.text, r.state])).toEqual([
      ['deny', 'Bash(git push:*)', 'active'],
      ['deny', 'Read(./secrets/**)', 'active'],
      ['allow', 'Bash(npm test:*)', 'pending'],
    ]);
    expect((await put({})).status).toBe(400);
    const unknown = await put({ approve: { hash: '0'.repeat(32), approved: true } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/^No allow rule of this workspace's settings files has the hash 0{32}\. Reload the rules and try again\.$/);
    expect(((await (await put({ on: true })).json()) as FileRulesView).on).toBe(true);
    const hash = view.rules[2].hash!;
    const after = (await (await put({ approve: { hash, approved: true } })).json()) as FileRulesView;
    expect(after.rules[2].state).toBe('active');
  });

  it('npm test runs without asking; git push is refused with the rule named, and nothing ran', async () => {
    calls = [{ name: 'run_command', args: { command: 'npm test' } }];
    expect((await turn('run the tests')).asked).toBe(false);
    expect(ws.read('tests-ran.txt')).toBe('yes');
    calls = [{ name: 'run_command', args: { command: 'touch pushed.txt; git push origin main' } }];
    await turn('push');
    expect(fs.existsSync(path.join(ws.workspace, 'pushed.txt'))).toBe(false);
    expect(everything()).toContain('run_command was refused: the rule Bash(git push:*) in .claude/settings.json denies it');
  }, 60_000);

  it('read_file and grep never hand the model a denied file', async () => {
    calls = [
      { name: 'read_file', args: { path: 'secrets/key.txt' } },
      { name: 'grep', args: { pattern: 'token' } },
      { name: 'grep', args: { pattern: 'token', path: 'secrets' } },
    ];
    await turn('find the token');
    expect(everything()).toContain('the rule Read(./secrets/**) in .claude/settings.json denies it');
    expect(everything()).not.toContain(CANARY);
  }, 60_000);

  it('@ completion leaves out what a Read deny withholds (and offers it again once the rules are off)', async () => {
    ws.write('secrets-notes.md', 'not secret\n');
    const names = async () => ((await (await clamp.api('/api/paths?q=secr')).json()) as { items: { path: string }[] }).items.map((i) => i.path);
    const on = await names();
    expect(on).toContain('secrets-notes.md');
    expect(on.filter((p) => p === 'secrets' || p.startsWith('secrets/'))).toEqual([]);
    expect((await put({ on: false })).status).toBe(200);
    expect((await names()).some((p) => p === 'secrets' || p.startsWith('secrets/'))).toBe(true);
    expect((await put({ on: true })).status).toBe(200);
  }, 60_000);
});
