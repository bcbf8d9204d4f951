import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { openDb, closeDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { loadMessages } from '../../lib/store/messages';
import type { ServerConfig } from '../../lib/server/http';
import { setClaudeUserHooks, setHookApproval, readHookSources } from '../../lib/hooks/sources';
import { getMcpHub } from '../../lib/mcp/hub';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';

/**
 * Hooks through the server's turn (handleChat, the page's route's function) and a stand-in OpenAI-compatible
 * model that records every request: real hook scripts (sh and node) in the person's hooks.json, Claude Code's
 * user settings and a workspace's .claude/settings.json.
 */

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let reply: (req: FakeRequest) => FakeReply = () => ({ text: 'ok' });
const savedEnv = { ...process.env };
let scripts: string;

beforeAll(async () => {
  fake = await startFakeOpenAI((req) => reply(req));
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  ws = tempWorkspace('clamp-hooks-');
  scripts = fs.mkdtempSync(path.join(ws.root, 'scripts-'));
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
  const file = path.join(scripts, name);
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}

function personHooks(hooks: unknown): void {
  fs.writeFileSync(path.join(ws.dataDir, 'hooks.json'), JSON.stringify({ hooks }));
}

const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));
const lastRole = (req: FakeRequest) => req.body.messages.at(-1)?.role;
const allText = (req: FakeRequest) => req.body.messages.map((m) => textOf(m.content)).join('\n');

/** The model: one tool call for the user's message, then text once a result came back. */
function callOnce(name: string, args: unknown, after = 'done'): void {
  reply = (req) => (lastRole(req) === 'tool' ? { text: after } : { toolCalls: [{ name, args, id: `call_${Math.random().toString(36).slice(2, 8)}` }] });
}

async function send(text: string, mode: 'default' | 'accept-edits' | 'auto' = 'default') {
  const db = openDb(ws.dataDir);
  const s = createSession(db, { workspace: ws.workspace }, mode);
  const res = await handleChat(cfg, { sessionId: s.id, message: { id: `u-${Date.now()}`, text } }, new AbortController().signal);
  const chunks = await readChunks(res);
  return { chunks, sessionId: s.id, messages: () => loadMessages(db, s.id) };
}

function toolPart(messages: ReturnType<typeof loadMessages>): { output?: { status: string; output: string; meta?: { hooks?: Array<{ outcome: string; hook: string; reason?: string }> } } } {
  const parts = messages.flatMap((m) => m.parts) as Array<{ type: string; output?: unknown }>;
  return parts.find((p) => p.type.startsWith('tool-') && p.output) as never;
}

describe('PreToolUse', () => {
  it('an sh hook that exits 2 blocks run_command: nothing runs, the model reads its stderr, the card names the hook', async () => {
    const hook = script('check-secrets.sh', '#!/bin/sh\ninput=$(cat)\ncase "$input" in *ran.txt*) echo "commands may not touch ran.txt" >&2; exit 2;; esac\nexit 0\n');
    personHooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] });
    callOnce('run_command', { command: 'touch ran.txt' });
    const t = await send('make the file', 'auto');
    expect(fs.existsSync(path.join(ws.workspace, 'ran.txt'))).toBe(false);
    const toolMsg = fake.requests[1].body.messages.find((m) => m.role === 'tool');
    expect(textOf(toolMsg?.content)).toContain('blocked by hook check-secrets: commands may not touch ran.txt');
    const part = toolPart(t.messages());
    expect(part.output?.status).toBe('denied');
    expect(part.output?.meta?.hooks).toEqual([{ event: 'PreToolUse', hook: 'check-secrets', outcome: 'denied', reason: 'commands may not touch ran.txt' }]);
  });

  it("a node hook's JSON rewrites the input (Claude Code's field names) and allows a call that would ask", async () => {
    const hook = script(
      'rewrite.mjs',
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);` +
        `if(i.tool_name!=='Bash'||i.tool_input.command!=='touch a.txt'||i.hook_event_name!=='PreToolUse'||i.cwd!==process.env.CLAUDE_PROJECT_DIR)process.exit(1);` +
        `console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'allow',permissionDecisionReason:'touch is fine',updatedInput:{command:'touch b.txt'}}}))});`,
    );
    personHooks({ PreToolUse: [{ matcher: 'run_command', hooks: [{ type: 'command', command: `node ${hook}`, name: 'rewrite' }] }] });
    callOnce('run_command', { command: 'touch a.txt' });
    const t = await send('make a');
    expect(t.chunks.some((c) => c.type === 'tool-approval-request')).toBe(false);
    expect(fs.existsSync(path.join(ws.workspace, 'b.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws.workspace, 'a.txt'))).toBe(false);
    expect(toolPart(t.messages()).output?.meta?.hooks?.map((n) => n.outcome)).toEqual(['allowed', 'rewrote']);
  });

  it('a hook that times out asks the person (its default), naming the hook and the timeout', async () => {
    const hook = script('slow.sh', '#!/bin/sh\nsleep 30\n');
    personHooks({ PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: hook, timeout: 1 }] }] });
    ws.write('notes.txt', 'hello\n');
    callOnce('read_file', { path: 'notes.txt' });
    const started = Date.now();
    const t = await send('read notes');
    expect(Date.now() - started).toBeLessThan(15_000);
    const info = t.chunks.find((c) => c.type === 'data-approval-info') as { data: { decision: { action: string; reason: string } } } | undefined;
    expect(info?.data.decision.action).toBe('ask');
    expect(info?.data.decision.reason).toMatch(/^asked by hook slow: the hook failed: it timed out after 1(\.0)? ?s/);
  });

  it("a deny on an MCP tool (matcher mcp__*): the server's tool never runs, the model reads the reason", async () => {
    const cfgFile = path.join(scripts, 'mcp.json');
    fs.writeFileSync(cfgFile, JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [path.join(__dirname, 'touch-mcp.mjs')] } } }));
    process.env.CLAMP_MCP_CONFIG = cfgFile;
    const hook = script('mcp-guard.mjs', `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'deny',permissionDecisionReason:'no MCP writes: '+i.tool_name}}))});`);
    personHooks({ PreToolUse: [{ matcher: 'mcp__*', hooks: [{ type: 'command', command: `node ${hook}` }] }] });
    const target = path.join(ws.root, 'touched-by-mcp');
    callOnce('mcp__files__touch', { file: target });
    try {
      const t = await send('touch it', 'auto');
      expect(fs.existsSync(target)).toBe(false);
      const toolMsg = fake.requests[1].body.messages.find((m) => m.role === 'tool');
      expect(textOf(toolMsg?.content)).toContain('blocked by hook mcp-guard: no MCP writes: mcp__files__touch');
      expect(toolPart(t.messages()).output?.status).toBe('denied');
    } finally {
      await getMcpHub(ws.dataDir, ws.workspace).shutdown();
    }
  });

  it('an @-mention read passes the hooks too', async () => {
    const hook = script('no-env.sh', '#!/bin/sh\ngrep -q "\\.env" && { echo "no .env reads" >&2; exit 2; }\nexit 0\n');
    personHooks({ PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: hook }] }] });
    ws.write('.env', 'KEY=secret\n');
    reply = () => ({ text: 'ok' });
    await send('look at @.env');
    const user = fake.requests[0].body.messages.filter((m) => m.role === 'user').map((m) => textOf(m.content)).join('\n');
    expect(user).toContain('blocked by hook no-env: no .env reads');
    expect(user).not.toContain('KEY=secret');
  });
});

describe('PostToolUse, UserPromptSubmit, Stop', () => {
  it('a PostToolUse formatter runs after write_file and edit_file on the file Claude Code names file_path', async () => {
    const fmt = script('fmt.mjs', `import fs from 'node:fs';let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const f=JSON.parse(s).tool_input.file_path;fs.writeFileSync(f,fs.readFileSync(f,'utf8').replace(/ +/g,' '))});`);
    personHooks({ PostToolUse: [{ matcher: 'Write|Edit|MultiEdit', hooks: [{ type: 'command', command: `node ${fmt}` }] }] });
    callOnce('write_file', { path: 'a.txt', content: 'one    two\n' });
    await send('write it', 'accept-edits');
    expect(fs.readFileSync(path.join(ws.workspace, 'a.txt'), 'utf8')).toBe('one two\n');
    callOnce('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'two     three' });
    const t = await send('edit it', 'accept-edits');
    expect(fs.readFileSync(path.join(ws.workspace, 'a.txt'), 'utf8')).toBe('one two three\n');
    expect(toolPart(t.messages()).output?.meta?.hooks).toEqual([{ event: 'PostToolUse', hook: 'fmt', outcome: 'ran' }]);
  });

  it("UserPromptSubmit's stdout is context the next model request carries; exit 2 blocks the prompt", async () => {
    const hook = script('ctx.sh', '#!/bin/sh\ngrep -q forbidden && { echo "that word is not allowed" >&2; exit 2; }\necho "The build uses pnpm."\n');
    personHooks({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] });
    reply = () => ({ text: 'ok' });
    await send('how do I build?');
    expect(allText(fake.requests[0])).toContain('The build uses pnpm.');
    const n = fake.requests.length;
    await expect(send('a forbidden word')).rejects.toThrow(/Your message was not sent: blocked by hook ctx: that word is not allowed/);
    expect(fake.requests.length).toBe(n);
  });

  it('a Stop hook makes the turn go on once, with its reason; stop_hook_active lets it end', async () => {
    const log = path.join(scripts, 'stop.log');
    const hook = script(
      'stop.mjs',
      `import fs from 'node:fs';let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);fs.appendFileSync(${JSON.stringify(log)},String(i.stop_hook_active)+'\\n');` +
        `if(!i.stop_hook_active)console.log(JSON.stringify({decision:'block',reason:'run the tests first'}))});`,
    );
    personHooks({ Stop: [{ hooks: [{ type: 'command', command: `node ${hook}` }] }] });
    reply = (req) => ({ text: allText(req).includes('run the tests first') ? 'tests pass' : 'done' });
    const t = await send('fix it');
    expect(fake.requests.length).toBe(2);
    expect(textOf(fake.requests[1].body.messages.at(-1)?.content)).toContain('run the tests first');
    expect(t.chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta).join('')).toContain('tests pass');
    // HOOK_STOP_CONTINUES_MAX is 1: the second stop is not asked
    expect(fs.readFileSync(log, 'utf8')).toBe('false\n');
  });
});

describe('Notification and the README example', () => {
  it('a Notification hook hears of a call that waits for the person', async () => {
    const log = path.join(scripts, 'notify.log');
    personHooks({ Notification: [{ hooks: [{ type: 'command', command: `jq -r '.hook_event_name + ": " + .message' >> ${log}` }] }] });
    callOnce('run_command', { command: 'touch waits.txt' });
    const t = await send('make it');
    expect(t.chunks.some((c) => c.type === 'tool-approval-request')).toBe(true);
    // the shell creates the log before jq writes its line: wait for the line, not the file
    for (let i = 0; i < 50 && !(fs.existsSync(log) && fs.readFileSync(log, 'utf8').endsWith('\n')); i++) await new Promise((r) => setTimeout(r, 100));
    expect(fs.readFileSync(log, 'utf8')).toBe('Notification: Clamp needs your permission to use run_command: run_command touch waits.txt\n');
  });

  it("the README's check-secrets example refuses `cat .env` with the text the README quotes", async () => {
    const hook = script('check-secrets.sh', '#!/bin/sh\ncmd=$(jq -r .tool_input.command)\ncase "$cmd" in\n  *.env*|*id_rsa*) echo "commands may not read secrets ($cmd)" >&2; exit 2 ;;\nesac\nexit 0\n');
    personHooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook, timeout: 10 }] }] });
    ws.write('.env', 'KEY=secret\n');
    callOnce('run_command', { command: 'cat .env' });
    await send('show the env');
    const toolMsg = fake.requests[1].body.messages.find((m) => m.role === 'tool');
    expect(textOf(toolMsg?.content)).toContain(
      'run_command was refused: blocked by hook check-secrets: commands may not read secrets (cat .env). Do not retry it; ask the user what to do instead.',
    );
    expect(textOf(toolMsg?.content)).not.toContain('KEY=secret');
  });
});

describe('sources', () => {
  it("a Claude Code user settings file copied verbatim works once the person turns it on", async () => {
    const home = fs.mkdtempSync(path.join(ws.root, 'home-'));
    process.env.HOME = home;
    const hook = script('validate.mjs', `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const c=JSON.parse(s).tool_input.command;if(/^rm /.test(c))console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'deny',permissionDecisionReason:'rm is not allowed here'}}))});`);
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(
      path.join(home, '.claude', 'settings.json'),
      `{\n  "permissions": { "allow": ["Bash(npm test:*)"] },\n  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "Bash",\n        "hooks": [\n          { "type": "command", "command": "node ${hook}", "timeout": 30 }\n        ]\n      }\n    ],\n    "SubagentStop": []\n  }\n}\n`,
    );
    ws.write('keep/x.txt', 'x\n');
    callOnce('run_command', { command: 'rm keep/x.txt' });
    await send('clean up', 'auto');
    expect(fs.existsSync(path.join(ws.workspace, 'keep/x.txt'))).toBe(false);
    setClaudeUserHooks(openDb(ws.dataDir), true);
    ws.write('keep/x.txt', 'x\n');
    await send('clean up', 'auto');
    expect(fs.existsSync(path.join(ws.workspace, 'keep/x.txt'))).toBe(true);
    expect(textOf(fake.requests.at(-1)!.body.messages.find((m) => m.role === 'tool')?.content)).toContain('blocked by hook validate: rm is not allowed here');
  });

  it("a workspace's hook does not run before the person approves it, and runs in the sandbox after", async () => {
    ws.write(
      '.claude/settings.json',
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'touch "$CLAUDE_PROJECT_DIR/ran-inside"; touch /tmp/clamp-hook-escape-$PPID-x; echo "$HOME" > "$CLAUDE_PROJECT_DIR/home-seen"; ls ~/.ssh > /dev/null 2>&1 && echo visible > "$CLAUDE_PROJECT_DIR/ssh"; true' }] }] } }),
    );
    reply = () => ({ text: 'ok' });
    await send('hello');
    expect(fs.existsSync(path.join(ws.workspace, 'ran-inside'))).toBe(false);
    const db = openDb(ws.dataDir);
    const pending = readHookSources(db, ws.workspace, ws.dataDir).pending;
    expect(pending.map((e) => [e.event, e.source])).toEqual([['UserPromptSubmit', 'workspace']]);
    setHookApproval(db, ws.workspace, pending[0].hash, true);
    const before = new Set(fs.readdirSync('/tmp'));
    await send('hello again');
    expect(fs.existsSync(path.join(ws.workspace, 'ran-inside'))).toBe(true);
    // the sandbox's /tmp is its own: nothing the hook wrote there reached the host's
    expect(fs.readdirSync('/tmp').filter((f) => f.startsWith('clamp-hook-escape-') && !before.has(f))).toEqual([]);
  });
});
