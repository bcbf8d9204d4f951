import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { closeDb, openDb } from '../../lib/store/db';
import { loadMessages } from '../../lib/store/messages';
import { listSessions } from '../../lib/store/sessions';
import type { SessionDetail } from '../../lib/contract/protocol';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { buildOnce, startClamp } from '../server/harness';
import { runHeadless } from '../../lib/server/headless/run';

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const BIN = path.join(ROOT, 'bin/clamp.mjs');
/** The environment without any model configured: no keys, no CLAMP_MODEL. */
const BARE_ENV = Object.fromEntries(
  // INIT_CWD too: npm sets it, and Clamp takes it for the directory the command was typed in
  Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k)),
) as unknown as NodeJS.ProcessEnv;

let ws: ReturnType<typeof tempWorkspace>;
let n = 0;

/** Write a scripted model's turns to a file; returns the CLAMP_MODEL value. */
function script(turns: unknown[]): string {
  const file = path.join(ws.root, `script-${++n}.json`);
  fs.writeFileSync(file, JSON.stringify(turns));
  return `scripted:${file}`;
}

/** Spawn the real bin: `node bin/clamp.mjs run …` in the workspace; o.onStdout sees stdout as it comes. */
function clampRun(args: string[], env: Record<string, string>, o: { input?: string; onStdout?: (all: string, child: ChildProcess) => void } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', ...args], {
      cwd: ws.workspace,
      env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      o.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(o.input ?? '');
  });
}

/** The tool results of a session as stored: what the model was sent. */
function storedResults(sessionId: string): Array<{ type: string; state: string; output?: { status: string; output: string } }> {
  const msgs = loadMessages(openDb(ws.dataDir), sessionId);
  return msgs.flatMap((m) => m.parts.filter((p) => p.type.startsWith('tool-'))) as never;
}

function sessionOf(r: CliRun): string {
  const m = /continue with --session (\S+)/.exec(r.stderr);
  if (!m) throw new Error(`no session in:\n${r.stderr}`);
  return m[1];
}

beforeAll(() => {
  ws = tempWorkspace('clamp-headless-');
  ws.write('README.md', '# demo\n');
});
afterAll(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

describe('clamp run (the real bin, a scripted model)', { timeout: 240_000 }, () => {
  it('text: an approval-needing command is refused with the flag that would allow it, nothing is created, exit 3', async () => {
    const model = script([
      { text: 'Looking first.', toolCalls: [{ name: 'list_dir', args: { path: '.' } }, { name: 'run_command', args: { command: 'touch made.txt' } }] },
      { text: 'I could not create it.' },
    ]);
    // no CLAMP_WORKSPACE: the workspace is the directory it runs in
    const r = await clampRun(['make a file'], { CLAMP_MODEL: model, CLAMP_WORKSPACE: '' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`· ${ws.workspace}\n`);
    expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(false);
    expect(r.stdout).toContain('Looking first.\n');
    expect(r.stdout).toMatch(/^\[ok\] list_dir \. \(\d+ entr(y|ies)\)$/m);
    expect(r.stdout).toContain('[denied] run_command touch made.txt\n');
    expect(r.stdout).toContain('I could not create it.');
    expect(r.stderr).toMatch(/clamp run: done, with refused calls · 2 step\(s\) · 2 tool call\(s\) · 1 refused · exit 3/);
    // what the model read: nobody is there, and which flag would allow it
    const denied = storedResults(sessionOf(r)).find((p) => p.type === 'tool-run_command');
    expect(denied?.output?.status).toBe('denied');
    expect(denied?.output?.output).toBe(
      "run_command was refused: it needs a person's approval (`touch made.txt` is not a known read-only command), and this is a headless run (clamp run) with nobody to approve it: `clamp run --allow run_command:touch` (or --dangerously-approve-all) would allow it. Do not retry it; ask the user what to do instead.",
    );
    expect(r.stdout).toContain('--allow run_command:touch');
  });

  it('--allow lets exactly that command run; another command is still refused', async () => {
    const model = script([
      { toolCalls: [{ name: 'run_command', args: { command: 'touch allowed.txt' } }, { name: 'run_command', args: { command: 'mkdir other' } }] },
      { text: 'Done.' },
    ]);
    const r = await clampRun(['--allow', 'run_command:touch', 'make things'], { CLAMP_MODEL: model });
    expect(r.code, r.stderr).toBe(3);
    expect(fs.existsSync(path.join(ws.workspace, 'allowed.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws.workspace, 'other'))).toBe(false);
    expect(r.stdout).toContain('[ok] run_command touch allowed.txt');
    expect(r.stdout).toContain('[denied] run_command mkdir other');
    expect(r.stdout).toContain('--allow run_command:mkdir');
  });

  it('--allow for every call of a tool, --model, and exit 0 when nothing was refused', async () => {
    // ask_user is not offered to a headless run; called anyway, it says nobody is there (it never waits)
    const model = script([{ toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'hello\n' } }, { name: 'ask_user', args: { question: 'Which name?' } }] }, { text: 'Written.' }]);
    // the model from --model, none in the environment
    const r = await clampRun(['--allow=write_file', '--model', model, 'write notes'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(ws.read('notes.txt')).toBe('hello\n');
    expect(r.stderr).toMatch(/clamp run: done · 2 step\(s\) · 2 tool call\(s\) · exit 0/);
    expect(r.stdout).toContain('[ok] ask_user Which name?');
    const asked = storedResults(sessionOf(r)).find((p) => p.type === 'tool-ask_user');
    expect(asked?.output?.output).toMatch(/^Nobody is there to answer questions in this run/);
  });

  it('--allow takes MCP tools by name, or a whole server: refused without, run with either', { timeout: 60_000 }, async () => {
    const config = path.join(ws.root, 'mcp-headless.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [path.join(ROOT, 'test/mcp/fixture-server.mjs')] } } }));
    const turns = [{ toolCalls: [{ name: 'mcp__fixture__add_tool', args: {} }] }, { text: 'Done.' }];
    const refused = await clampRun(['add a tool'], { CLAMP_MODEL: script(turns), CLAMP_MCP_CONFIG: config });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stdout).toContain('--allow mcp__fixture__add_tool');
    for (const flag of ['mcp__fixture__add_tool', 'mcp__fixture']) {
      const r = await clampRun(['--allow', flag, 'add a tool'], { CLAMP_MODEL: script(turns), CLAMP_MCP_CONFIG: config });
      expect(r.code, `${flag}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('[ok] mcp__fixture__add_tool');
    }
    // another server's name does not cover it, and a malformed name is a usage error
    const other = await clampRun(['--allow', 'mcp__fixtur', 'add a tool'], { CLAMP_MODEL: script(turns), CLAMP_MCP_CONFIG: config });
    expect(other.code, other.stderr).toBe(3);
    const bad = await clampRun(['--allow', 'mcp__fix ture', 'x'], { CLAMP_MODEL: script(turns) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not an MCP tool name');
  });

  it('--dangerously-approve-all runs what would ask; a prompt from stdin', async () => {
    const model = script([{ toolCalls: [{ name: 'run_command', args: { command: 'touch approved.txt' } }] }, { text: 'Done.' }]);
    const r = await clampRun(['--dangerously-approve-all', '-'], { CLAMP_MODEL: model }, { input: 'make approved.txt\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(ws.workspace, 'approved.txt'))).toBe(true);
    const sid = sessionOf(r);
    const first = loadMessages(openDb(ws.dataDir), sid)[0];
    expect(first.parts).toEqual([{ type: 'text', text: 'make approved.txt\n' }]);
  });

  it('--json: one JSON event per line, the page\'s chunks between a clamp-session and a clamp-summary event', async () => {
    const model = script([{ text: 'Reading.', toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }, { name: 'run_command', args: { command: 'touch j.txt' } }] }, { text: 'All read.' }]);
    const r = await clampRun(['--json', 'read it'], { CLAMP_MODEL: model });
    expect(r.code, r.stderr).toBe(3);
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ type: 'clamp-session', created: true, workspace: ws.workspace });
    const sessionId = events[0].sessionId as string;
    const types = events.map((e) => e.type);
    for (const t of ['start', 'start-step', 'text-delta', 'tool-input-available', 'tool-output-available', 'data-tool-summary', 'finish-step', 'finish']) expect(types).toContain(t);
    const outputs = events.filter((e) => e.type === 'tool-output-available') as Array<{ output: { status: string; output: string } }>;
    expect(outputs.map((o) => o.output.status).sort()).toEqual(['denied', 'ok']);
    expect(outputs.find((o) => o.output.status === 'ok')!.output.output).toContain('# demo');
    const summary = events.at(-1)!;
    expect(summary).toMatchObject({ type: 'clamp-summary', sessionId, end: 'denied', exitCode: 3, steps: 2, toolCalls: 2, text: 'All read.' });
    expect((summary.refused as Array<{ toolName: string; reason: string }>)[0]).toMatchObject({ toolName: 'run_command' });
    expect((summary.refused as Array<{ reason: string }>)[0].reason).toContain('nobody to approve it');
    expect(summary.messageId).toBe(events.find((e) => e.type === 'start')!.messageId);
    expect(r.stderr).toBe('');
  });

  it('a provider error exits 1 with its message; the step limit exits 4', async () => {
    const failing = script([{ error: 'the scripted provider is down' }]);
    const r = await clampRun(['hello'], { CLAMP_MODEL: failing });
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stdout + r.stderr).toContain('the scripted provider is down');
    expect(r.stderr).toContain('exit 1');

    const looping = script([{ toolCalls: [{ name: 'list_dir', args: { path: '.' } }] }, { text: 'never reached' }]);
    const s = await clampRun(['--max-steps', '1', 'look'], { CLAMP_MODEL: looping });
    expect(s.code, s.stderr).toBe(4);
    expect(s.stdout).not.toContain('never reached');
    expect(s.stderr).toContain('step limit');
  });

  it('nothing runs on misuse: exit 2 with what to fix, and no session is created', async () => {
    const before = listSessions(openDb(ws.dataDir), ws.workspace).length;
    const noModel = await clampRun(['hello'], {});
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('clamp run: No usable model. No model is configured.');
    const cases: Array<[string[], RegExp]> = [
      [['--frobnicate', 'x'], /Unknown option --frobnicate/],
      [['--mode', 'yolo', 'x'], /--mode yolo is not a permission mode\. Use one of: default, accept-edits, plan, debug, auto\./],
      [['--allow', 'npm test', 'x'], /"npm test" is not a tool\. For a command, write --allow "run_command:npm test"\./],
      [['--allow', 'write_file:src', 'x'], /a rule for write_file covers every call of it; write --allow write_file/],
      [['--session', 'nosuchsession', 'x'], /Session nosuchsession not found in the data dir/],
      [['--model', 'nosuch:model', 'x'], /--model nosuch:model names an unknown provider "nosuch"/],
      [[], /No prompt\./],
      [['two', 'words'], /One prompt, in quotes/],
    ];
    const model = script([{ text: 'unused' }]);
    // the same entry as the bin's, in this process (a spawn per case would only be slower)
    for (const [args, message] of cases) {
      let stderr = '';
      const err = { write: (t: string) => (stderr += t) } as unknown as NodeJS.WritableStream;
      const code = await runHeadless(args, { stdin: process.stdin, stdout: err, stderr: err, env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: model } });
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
    }
    const help = await clampRun(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: clamp run [options] "<prompt>"');
    expect(help.stdout).toContain('Exit status: 0 the turn ended normally');
    expect(listSessions(openDb(ws.dataDir), ws.workspace).length).toBe(before);
  });

  it('SIGINT stops the turn and kills its command: exit 130, the session stored as stopped', async () => {
    const marker = `sleep 31; echo late > late-${Date.now()}.txt`;
    const model = script([{ toolCalls: [{ name: 'run_command', args: { command: marker } }] }, { text: 'never' }]);
    let sent = false;
    const t0 = Date.now();
    const r = await clampRun(['--json', '--dangerously-approve-all', 'wait'], { CLAMP_MODEL: model }, {
      onStdout: (all, child) => {
        // the command has started once its input is out and the scheduler ran it: give it a moment
        if (!sent && all.includes('"tool-input-available"')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 1500);
        }
      },
    });
    expect(r.code, r.stderr).toBe(130);
    expect(Date.now() - t0).toBeLessThan(60_000);
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.at(-1)).toMatchObject({ type: 'clamp-summary', end: 'stopped', exitCode: 130 });
    expect(r.stderr).toContain('SIGINT: stopping the turn and its commands');
    await new Promise((res) => setTimeout(res, 300));
    expect(spawnSync('pgrep', ['-f', marker]).stdout.toString().trim()).toBe('');
    const part = storedResults(events[0].sessionId as string).find((p) => p.type === 'tool-run_command') as unknown as { state: string };
    expect(part.state).toBe('output-error');
  });
});

describe('clamp run through the real provider path', { timeout: 300_000 }, () => {
  // the server part needs the page built: global setup does it only for runs that include test/server
  beforeAll(() => buildOnce(), 900_000);
  it('--session continues a session, and the server shows the new messages', async () => {
    const fake = await startFakeOpenAI((req) => {
      const last = req.body.messages.at(-1)!;
      if (last.role === 'tool') return { text: 'Listed.' };
      const second = JSON.stringify(last.content).includes('second');
      return second ? { text: 'Second answer.' } : { text: 'First, a look.', toolCalls: [{ name: 'list_dir', args: { path: '.' }, id: 'call_ls' }] };
    });
    const env = { CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url };
    try {
      const first = await clampRun(['first question'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('First, a look.');
      expect(first.stdout).toContain('Listed.');
      const sid = sessionOf(first);
      const second = await clampRun(['--session', sid, 'second question'], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain('Second answer.');
      expect(sessionOf(second)).toBe(sid);
      // the model of the second run was sent the whole conversation
      const sent = fake.requests.at(-1)!.body.messages.map((m) => m.role);
      expect(sent).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);

      const clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, ...env });
      try {
        const list = (await (await clamp.api('/api/sessions')).json()) as { sessions: Array<{ id: string; title: string }> };
        expect(list.sessions.find((s) => s.id === sid)?.title).toBe('first question');
        const res = await clamp.api(`/api/sessions/${sid}`);
        expect(res.status).toBe(200);
        const detail = (await res.json()) as SessionDetail;
        expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
        const texts = detail.messages.map((m) => m.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join(''));
        expect(texts).toEqual(['first question', 'First, a look.Listed.', 'second question', 'Second answer.']);
      } finally {
        await clamp.stop();
      }
    } finally {
      await fake.close();
    }
  });
});
