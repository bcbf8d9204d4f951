import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { openDb, closeDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { loadMessages } from '../../lib/store/messages';
import type { ServerConfig } from '../../lib/server/http';
import { fileRulesOf, saveFileRules } from '../../lib/server/file-rules';
import { toolCli } from '../../lib/cli/tool-cli';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';

/**
 * Permission rules from settings files (Claude Code's permissions.allow/ask/deny) through the server's turn
 * (handleChat, the chat route's function) and a stand-in model that records every request it is sent.
 */

const CANARY = 'CANARY-7f3e-SECRET';
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
  ws = tempWorkspace('clamp-perm-');
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  process.env.CLAMP_MODEL = 'openai-compatible:fake-coder';
  process.env.CLAMP_BASE_URL = fake.url;
  // Claude Code's user settings live under HOME: an empty one of this test's own
  process.env.HOME = path.join(ws.root, 'home');
  fs.mkdirSync(process.env.HOME);
  fake.requests.length = 0;
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));
const lastRole = (req: FakeRequest) => req.body.messages.at(-1)?.role;
const everything = () => fake.requests.map((r) => JSON.stringify(r.body)).join('\n');
const toolTexts = () => fake.requests.flatMap((r) => r.body.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)));

/** The model: these tool calls for the user's message, then text once results came back. */
function calls(list: { name: string; args: unknown }[]): void {
  reply = (req) => (lastRole(req) === 'tool' ? { text: 'done' } : { toolCalls: list.map((c, i) => ({ ...c, id: `call_${i}_${Math.random().toString(36).slice(2, 7)}` })) });
}

function settings(file: string, permissions: unknown): void {
  const abs = file.startsWith('/') ? file : path.join(ws.workspace, file);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, JSON.stringify({ permissions }));
}

async function send(text: string, mode: 'default' | 'accept-edits' | 'auto' = 'default') {
  const db = openDb(ws.dataDir);
  const s = createSession(db, { workspace: ws.workspace }, mode);
  const res = await handleChat(cfg, { sessionId: s.id, message: { id: `u-${Date.now()}`, text } }, new AbortController().signal);
  const chunks = await readChunks(res);
  return { chunks, asked: chunks.some((c) => c.type === 'tool-approval-request'), messages: () => loadMessages(db, s.id) };
}

function npmProject(): void {
  ws.write('package.json', JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: "node -e \"require('fs').writeFileSync('tests-ran.txt','yes')\"" } }));
}

describe('Bash rules', () => {
  it('Bash(npm test:*) in the person\'s file runs npm test without asking; with the switch off it asks', async () => {
    npmProject();
    settings(path.join(ws.dataDir, 'hooks.json'), { allow: ['Bash(npm test:*)'] });
    calls([{ name: 'run_command', args: { command: 'npm test' } }]);
    const off = await send('run the tests');
    expect(off.asked).toBe(true);
    expect(fs.existsSync(path.join(ws.workspace, 'tests-ran.txt'))).toBe(false);

    saveFileRules(cfg, { on: true });
    const on = await send('run the tests');
    expect(on.asked).toBe(false);
    expect(ws.read('tests-ran.txt')).toBe('yes');
  }, 60_000);

  it("a workspace's allow rule does nothing until the person approves that exact rule", async () => {
    npmProject();
    settings('.claude/settings.json', { allow: ['Bash(npm test:*)'] });
    saveFileRules(cfg, { on: true });
    calls([{ name: 'run_command', args: { command: 'npm test' } }]);
    const view = fileRulesOf(cfg);
    const rule = view.rules.find((r) => r.text === 'Bash(npm test:*)')!;
    expect(rule).toMatchObject({ action: 'allow', source: 'workspace', state: 'pending', file: path.join(ws.workspace, '.claude/settings.json') });
    expect((await send('run the tests')).asked).toBe(true);
    expect(fs.existsSync(path.join(ws.workspace, 'tests-ran.txt'))).toBe(false);

    expect(saveFileRules(cfg, { approve: { hash: rule.hash!, approved: true } }).rules[0].state).toBe('active');
    expect((await send('run the tests')).asked).toBe(false);
    expect(ws.read('tests-ran.txt')).toBe('yes');
    // the approval is of that exact text: a new or changed rule waits again
    settings('.claude/settings.json', { allow: ['Bash(npm test:*)', 'Bash(npm  test:*)', 'Bash(npm run:*)'] });
    expect(fileRulesOf(cfg).rules.map((r) => r.state)).toEqual(['active', 'pending', 'pending']);
  }, 60_000);

  it("Bash(git push:*) in the workspace's file denies at once, even in auto mode: the model reads the rule, nothing ran", async () => {
    settings('.claude/settings.json', { deny: ['Bash(git push:*)'] });
    saveFileRules(cfg, { on: true });
    calls([{ name: 'run_command', args: { command: 'touch pushed.txt; git push origin main' } }]);
    await send('push it', 'auto');
    expect(fs.existsSync(path.join(ws.workspace, 'pushed.txt'))).toBe(false);
    const seen = toolTexts().join('\n');
    expect(seen).toContain('run_command was refused: the rule Bash(git push:*) in .claude/settings.json denies it');
    expect(seen).toContain('Do not retry it');
  }, 60_000);
});

describe('Read rules', () => {
  function secrets(): void {
    ws.write('secrets/key.txt', `token=${CANARY}\n`);
    ws.write('src/app.ts', 'export const app = 1; // CANARY-7f3e is not here\n');
    fs.mkdirSync(path.join(ws.workspace, 'docs'));
    fs.symlinkSync('../secrets/key.txt', path.join(ws.workspace, 'docs/link.txt'));
    fs.symlinkSync('../secrets', path.join(ws.workspace, 'docs/secrets-dir'));
    settings('.claude/settings.json', { deny: ['Read(./secrets/**)'] });
  }

  it('Read(./secrets/**) keeps secrets/ from read_file, grep, glob and list_dir, by any path trick: the canary never reaches the model', async () => {
    secrets();
    saveFileRules(cfg, { on: true });
    calls([
      { name: 'read_file', args: { path: 'secrets/key.txt' } },
      { name: 'read_file', args: { path: './secrets/../secrets/key.txt' } },
      { name: 'read_file', args: { path: 'docs/link.txt' } },
      { name: 'read_file', args: { path: 'docs/secrets-dir/key.txt' } },
      { name: 'read_file', args: { path: `${ws.workspace}/secrets/key.txt` } },
      { name: 'grep', args: { pattern: 'CANARY' } },
      { name: 'grep', args: { pattern: 'token', path: 'secrets' } },
      { name: 'grep', args: { pattern: 'token', path: 'docs' } },
      { name: 'glob', args: { pattern: '**/*.txt' } },
      { name: 'list_dir', args: { path: 'secrets' } },
    ]);
    await send('find the token', 'auto');
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
    expect(everything()).not.toContain(CANARY);
    const seen = toolTexts();
    expect(seen.filter((t) => t.includes('the rule Read(./secrets/**) in .claude/settings.json denies it')).length).toBeGreaterThanOrEqual(6);
    // the search of the whole workspace says what it withheld, and still finds the rest
    expect(seen.some((t) => t.includes('src/app.ts') && t.includes('withheld by a permission rule'))).toBe(true);
    expect(seen.some((t) => t.includes('secrets/key.txt') && !t.includes('denies it') && !t.includes('withheld'))).toBe(false);
  }, 60_000);

  it('with the switch off the same files decide nothing (the rule is listed, off)', async () => {
    secrets();
    calls([{ name: 'read_file', args: { path: 'secrets/key.txt' } }]);
    await send('read it', 'auto');
    expect(everything()).toContain(CANARY);
    expect(fileRulesOf(cfg)).toMatchObject({ on: false, rules: [{ text: 'Read(./secrets/**)', state: 'active', source: 'workspace' }] });
  }, 60_000);

  it('an @-mention of a denied file is refused and its text never sent', async () => {
    secrets();
    saveFileRules(cfg, { on: true });
    reply = () => ({ text: 'ok' });
    await send('what is in @secrets/key.txt and @docs/link.txt ?');
    expect(fake.requests.length).toBe(1);
    expect(everything()).not.toContain(CANARY);
    expect(everything()).toContain('the rule Read(./secrets/**) in .claude/settings.json denies it');
  }, 60_000);

  it('the tool CLI obeys them too', async () => {
    secrets();
    saveFileRules(cfg, { on: true });
    process.env.CLAMP_WORKSPACE = ws.workspace;
    process.env.CLAMP_DATA_DIR = ws.dataDir;
    const out: string[] = [];
    const sink = { write: (s: string) => out.push(s) } as never;
    expect(await toolCli(['read_file', '{"path":"secrets/key.txt"}', '--approve'], sink, sink)).toBe(0);
    expect(await toolCli(['grep', '{"pattern":"token"}'], sink, sink)).toBe(0);
    const text = out.join('');
    expect(text).not.toContain(CANARY);
    expect(text).toContain('denies it');
  }, 60_000);

  it('Read(./secrets/**) holds for commands, a background task and git_diff in the sandbox: the canary never reaches the model', async () => {
    secrets();
    const git = (args: string) => execSync(`git ${args}`, { cwd: ws.workspace, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore' });
    git('init -q -b main');
    git('-c user.name=T -c user.email=t@example.com commit -q --allow-empty -m first');
    saveFileRules(cfg, { on: true });
    calls([
      { name: 'run_command', args: { command: 'cat secrets/key.txt; cat docs/link.txt; cat docs/secrets-dir/*; grep -r token . || true' } },
      { name: 'run_command', args: { command: 'cat secrets/key.txt; echo started', background: true } },
      { name: 'git_diff', args: {} },
      { name: 'run_command', args: { command: 'echo "{}" > .claude/settings.json' } },
    ]);
    await send('show me the secrets', 'auto');
    expect(toolTexts().length).toBe(4);
    expect(everything()).not.toContain(CANARY);
    expect(toolTexts()[3]).toMatch(/Read-only file system/);
    expect(ws.read('.claude/settings.json')).toContain('Read(./secrets/**)');
    expect(ws.read('secrets/key.txt')).toContain(CANARY);
  }, 60_000);
});

describe('the files themselves', () => {
  it('a tool that would change a settings file asks, even in accept-edits mode (a removed deny would widen)', async () => {
    settings('.claude/settings.json', { deny: ['Read(./secrets/**)'] });
    saveFileRules(cfg, { on: true });
    calls([{ name: 'write_file', args: { path: '.claude/settings.json', content: '{}' } }]);
    const t = await send('drop the rule', 'accept-edits');
    expect(t.asked).toBe(true);
    const info = t.chunks.find((c) => c.type === 'data-approval-info') as { data: { decision: { reason: string } } } | undefined;
    expect(info?.data.decision.reason).toMatch(/^Clamp's guard of the permission rules in \.claude\/settings\.json asks for it/);
    expect(ws.read('.claude/settings.json')).toContain('Read(./secrets/**)');
    // another file is written as accept-edits mode writes
    calls([{ name: 'write_file', args: { path: 'notes.md', content: 'x' } }]);
    expect((await send('write notes', 'accept-edits')).asked).toBe(false);
  }, 60_000);
});

describe('files that do not parse', () => {
  it('an unparseable entry and a broken file are listed with what to fix; the other rules still hold', async () => {
    settings('.claude/settings.json', { deny: ['Read(./secrets/**)', 'WebFetch(example.com)', 42], allow: 'Bash' });
    fs.mkdirSync(path.join(ws.workspace, '.clamp'));
    fs.writeFileSync(path.join(ws.workspace, '.clamp/settings.json'), '{"permissions": {');
    saveFileRules(cfg, { on: true });
    const v = fileRulesOf(cfg);
    expect(v.rules.map((r) => [r.text, r.state])).toEqual([
      ['Read(./secrets/**)', 'active'],
      ['WebFetch(example.com)', 'error'],
      ['42', 'error'],
    ]);
    expect(v.rules[1].error).toBe(`WebFetch takes a domain, as in WebFetch(domain:example.com). This rule does nothing until it is fixed in ${path.join(ws.workspace, '.claude/settings.json')}.`);
    expect(v.problems).toEqual([
      expect.stringMatching(/\.clamp\/settings\.json is not valid JSON \(.*\); its permission rules are not read until it parses\.$/),
      `${path.join(ws.workspace, '.claude/settings.json')}: permissions.allow must be a list of rules such as ["Bash(npm test:*)"]; its rules are not read.`,
    ]);
    ws.write('secrets/key.txt', CANARY);
    calls([{ name: 'read_file', args: { path: 'secrets/key.txt' } }]);
    await send('read it', 'auto');
    expect(everything()).not.toContain(CANARY);
  }, 60_000);
});
