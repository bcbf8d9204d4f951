import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as acp from '@agentclientprotocol/sdk';
import { closeDb, openDb } from '../../lib/store/db';
import { getSession, listSessions } from '../../lib/store/sessions';
import { listRules } from '../../lib/store/rules';
import { getByToolCallId } from '../../lib/store/approvals';
import { isJournaled } from '../../lib/store/tool-calls';
import { baselineOf } from '../../lib/checkpoints/session';
import { startFakeOpenAI, turnPosition, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startTestEditor, type TestEditor, type TestEditorOptions } from './editor-client';

/** What the test's editor says README.md holds: a buffer with changes not saved to disk. */
const UNSAVED = 'line typed in the editor, not saved\n';
/** The sleep of the command the test cancels: its own duration, so its process can be found by its arguments. */
const SLEEP = 'sleep 37.25';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;

/** The stand-in model's turns, by the prompt's words and how many results follow it. */
function reply(req: FakeRequest): FakeReply {
  const { text, results } = turnPosition(req);
  if (text.includes('make the file')) {
    const steps: FakeReply[] = [
      { text: 'Planning first.', toolCalls: [{ name: 'todo_write', args: { items: [{ content: 'read the readme', status: 'in_progress' }, { content: 'write made.txt', status: 'pending' }] } }] },
      { toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'echo made-by-clamp > made.txt' } }] },
    ];
    return steps[results] ?? { text: 'Done.' };
  }
  if (text.includes('run the long one')) {
    return results === 0 ? { toolCalls: [{ name: 'run_command', args: { command: `touch started.txt && ${SLEEP} && touch finished.txt` } }] } : { text: 'It ended.' };
  }
  if (text.includes('Say hello to')) return { text: 'Hello from the command.' };
  if (text.includes('Summarise these')) return { text: 'Summarised.' };
  if (text.includes('wait on me')) return results === 0 ? { toolCalls: [{ name: 'run_command', args: { command: 'mkdir never-approved' } }] } : { text: 'Not run.' };
  if (text.includes('after the cancel')) return { text: 'Still here.' };
  if (text.includes('keep looking')) return { toolCalls: [{ name: 'list_dir', args: { path: '.' } }] };
  if (text.includes('touch twice')) {
    const steps: FakeReply[] = [
      { toolCalls: [{ name: 'run_command', args: { command: 'touch always-one.txt' } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'touch always-two.txt' } }] },
      { toolCalls: [{ name: 'read_file', args: { path: '../outside.txt' } }] },
      { toolCalls: [{ name: 'read_file', args: { path: 'link.txt' } }] },
    ];
    return steps[results] ?? { text: 'Done.' };
  }
  if (text.includes('edit both')) {
    const edits = [
      { name: 'edit_file', args: { path: 'notes.txt', old_string: 'old note', new_string: 'new note' } },
      { name: 'edit_file', args: { path: 'README.md', old_string: '# demo on disk', new_string: '# demo, edited by Clamp' } },
    ];
    return results < 2 ? { toolCalls: [edits[results]] } : { text: 'Edited.' };
  }
  return { text: 'Nothing scripted for this.' };
}

type Editor = TestEditor;

/** `clamp acp` as a child process, driven by the SDK's client side over its stdin/stdout; the editor allows every call once unless `choose` picks (or answers `cancelled` when the request is cancelled), and holds README.md with unsaved changes. */
function startEditor(choose: TestEditorOptions['choose'] = () => 'allow_once', env: Record<string, string> = {}): Editor {
  const readText = (p: string) => (p === path.join(ws.workspace, 'README.md') ? UNSAVED : fs.readFileSync(p, 'utf8'));
  return startTestEditor({ workspace: ws.workspace, dataDir: ws.dataDir, modelUrl: fake.url, env, choose, readText });
}

async function initialize(e: Editor): Promise<acp.InitializeResponse> {
  return e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } });
}

/** Wait until a condition holds (polling), or fail saying what was awaited. */
async function until(what: string, ok: () => boolean, ms = 30_000, e?: Editor): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${e ? `; clamp acp said:\n${e.stderr()}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ofSession = (e: Editor, id: string) => e.updates.filter((u) => u.sessionId === id).map((u) => u.update);
const toolUpdates = (e: Editor, id: string, toolCallId: string) =>
  ofSession(e, id).filter((u): u is Extract<acp.SessionUpdate, { toolCallId: string }> => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === toolCallId);
/** The tool calls of a session as the editor knows them: name (from the title), kind and every status in order. */
function calls(e: Editor, id: string) {
  const starts = ofSession(e, id).filter((u) => u.sessionUpdate === 'tool_call') as Array<acp.ToolCall & { sessionUpdate: 'tool_call' }>;
  return starts.map((s) => ({ id: s.toolCallId, name: s.title.split(' ')[0], kind: s.kind, statuses: toolUpdates(e, id, s.toolCallId).flatMap((u) => (u.status ? [u.status] : [])), updates: toolUpdates(e, id, s.toolCallId) }));
}

/** Processes of this machine whose command line has the text. */
function processesWith(text: string): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(text);
    } catch {
      return false;
    }
  }).map(Number);
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-acp-');
  ws.write('README.md', '# demo on disk\n');
  ws.write('.clamp/skills/review/SKILL.md', '---\nname: review\ndescription: Review the change for bugs\n---\nLook at the diff and list bugs.\n');
  ws.write('.clamp/commands/greet.md', '---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n');
  fake = await startFakeOpenAI(reply);
});
afterAll(async () => {
  await fake?.close();
  closeDb(ws.dataDir);
  ws.cleanup();
});

describe('clamp acp (the real bin, driven by the ACP SDK client, a stand-in model)', { timeout: 240_000 }, () => {
  let firstSession = '';
  let firstPrompt = '';

  it('reads through the editor, asks permission for a command and runs it; tool calls, the plan and slash commands reach the editor', async () => {
    const e = startEditor();
    try {
      const init = await initialize(e);
      expect(init.agentCapabilities?.loadSession).toBe(true);
      expect(init.agentCapabilities?.promptCapabilities?.embeddedContext).toBe(true);
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.workspace, mcpServers: [] });
      firstSession = s.sessionId;
      expect(s.modes?.currentModeId).toBe('default');
      expect(s.modes?.availableModes.map((m) => m.id)).toEqual(['default', 'accept-edits', 'plan', 'debug', 'auto']);
      // the slash commands: the workspace's skill and its command from a file
      await until('available_commands_update', () => ofSession(e, s.sessionId).some((u) => u.sessionUpdate === 'available_commands_update'), 30_000, e);
      const listed = ofSession(e, s.sessionId).find((u) => u.sessionUpdate === 'available_commands_update') as acp.AvailableCommandsUpdate;
      expect(listed.availableCommands.map((c) => c.name).sort()).toEqual(['greet', 'review']);
      expect(listed.availableCommands.find((c) => c.name === 'greet')?.input).toEqual({ hint: '<name>' });

      firstPrompt = 'Please make the file';
      const done = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: firstPrompt }] });
      expect(done.stopReason, e.stderr()).toBe('end_turn');

      // the command asked, the editor allowed it once, and it ran on the host
      expect(e.permissions).toHaveLength(1);
      const asked = e.permissions[0];
      expect(asked.toolCall.kind).toBe('execute');
      expect(asked.toolCall.title).toContain('echo made-by-clamp > made.txt');
      expect(asked.options.map((o) => o.kind)).toContain('allow_once');
      expect(asked.options.map((o) => o.kind)).toContain('reject_once');
      expect(fs.readFileSync(path.join(ws.workspace, 'made.txt'), 'utf8')).toBe('made-by-clamp\n');

      const seen = calls(e, s.sessionId);
      expect(seen.map((c) => [c.name, c.kind])).toEqual([['todo_write', 'think'], ['read_file', 'read'], ['run_command', 'execute']]);
      expect(seen.map((c) => c.statuses.at(-1))).toEqual(['completed', 'completed', 'completed']);
      // each call in progress as it runs (the command once the editor allowed it), then completed
      for (const c of seen) expect(c.statuses, c.name).toEqual(['pending', 'in_progress', 'completed']);
      expect(seen[1].updates.some((u) => u.locations?.[0]?.path === path.join(ws.workspace, 'README.md'))).toBe(true);
      // the plan, from todo_write
      const plan = ofSession(e, s.sessionId).find((u) => u.sessionUpdate === 'plan') as acp.Plan;
      expect(plan.entries).toEqual([
        { content: 'read the readme', priority: 'medium', status: 'in_progress' },
        { content: 'write made.txt', priority: 'medium', status: 'pending' },
      ]);
      // the text streamed as message chunks
      const text = ofSession(e, s.sessionId).flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
      expect(text).toBe('Planning first.Done.');

      // read_file went through the editor: the model read the unsaved buffer, not the disk
      expect(e.reads).toContain(path.join(ws.workspace, 'README.md'));
      const readResult = fake.requests.flatMap((r) => r.body.messages).find((m) => m.role === 'tool' && JSON.stringify(m.content).includes('not saved'));
      expect(JSON.stringify(readResult?.content)).toContain('line typed in the editor, not saved');
      expect(fake.requests.flatMap((r) => r.body.messages).some((m) => JSON.stringify(m.content).includes('# demo on disk'))).toBe(false);

      // a prompt starting with /greet runs the command from its file
      const greeted = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: '/greet Ada' }] });
      expect(greeted.stopReason).toBe('end_turn');
      expect(turnPosition(fake.requests.at(-1)!).text).toContain('Say hello to Ada.');

      // edits: through dispatch on disk, then into the editor's buffer — not where the buffer held unsaved changes
      ws.write('notes.txt', 'old note\n');
      const edited = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'edit both files' }] });
      expect(edited.stopReason, e.stderr()).toBe('end_turn');
      expect(ws.read('notes.txt')).toBe('new note\n');
      expect(ws.read('README.md')).toBe('# demo, edited by Clamp\n');
      expect(e.writes).toEqual([{ sessionId: s.sessionId, path: path.join(ws.workspace, 'notes.txt'), content: 'new note\n' }]);
      expect(e.stderr()).toContain(`${path.join(ws.workspace, 'README.md')} had unsaved changes in the editor; its buffer was left as it is`);
      const edit = calls(e, s.sessionId).find((c) => c.name === 'edit_file')!;
      expect(edit.kind).toBe('edit');
      expect(edit.statuses.at(-1)).toBe('completed');
      expect(edit.updates.at(-1)?.content).toEqual([{ type: 'diff', path: path.join(ws.workspace, 'notes.txt'), oldText: 'old note', newText: 'new note' }]);
      expect(e.permissions.at(-2)?.toolCall.content?.some((c) => c.type === 'diff')).toBe(true);
      // as on the page: the call was journaled before it ran, and the session's files were checkpointed first
      expect(isJournaled(openDb(ws.dataDir), s.sessionId, edit.id)).toBe(true);
      expect(baselineOf(openDb(ws.dataDir), s.sessionId)).not.toBeNull();

      // the page lists the session like any other
      expect(listSessions(openDb(ws.dataDir), ws.workspace).map((x) => x.id)).toContain(s.sessionId);
    } finally {
      await e.close();
    }
  });

  it('cancel mid-turn ends the prompt as cancelled and stops the running command', async () => {
    const e = startEditor();
    try {
      await initialize(e);
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.workspace, mcpServers: [] });
      const prompt = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'run the long one' }] });
      await until('the command to start', () => fs.existsSync(path.join(ws.workspace, 'started.txt')));
      expect(processesWith(SLEEP).length).toBeGreaterThan(0);
      await e.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
      await until('the command to be stopped', () => processesWith(SLEEP).length === 0, 10_000);
      expect(fs.existsSync(path.join(ws.workspace, 'finished.txt'))).toBe(false);
      const run = calls(e, s.sessionId).find((c) => c.name === 'run_command');
      expect(run?.statuses.slice(0, 2)).toEqual(['pending', 'in_progress']);
    } finally {
      await e.close();
    }
  });

  it('a second connection loads the first session by id: its history is replayed; set_mode changes its mode', async () => {
    expect(firstSession).not.toBe('');
    const e = startEditor();
    try {
      await initialize(e);
      const loaded = await e.agent.request(acp.methods.agent.session.load, { sessionId: firstSession, cwd: ws.workspace, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('default');
      const replay = ofSession(e, firstSession);
      const users = replay.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));
      expect(users[0]).toBe(firstPrompt);
      const replayed = calls(e, firstSession);
      expect(replayed.map((c) => [c.name, c.kind, c.statuses.at(-1)])).toEqual([
        ['todo_write', 'think', 'completed'],
        ['read_file', 'read', 'completed'],
        ['run_command', 'execute', 'completed'],
        ['edit_file', 'edit', 'completed'],
        ['edit_file', 'edit', 'completed'],
      ]);
      expect(replayed[3].updates[0].content).toEqual([{ type: 'diff', path: path.join(ws.workspace, 'notes.txt'), oldText: 'old note', newText: 'new note' }]);
      expect(replay.some((u) => u.sessionUpdate === 'plan')).toBe(true);

      await e.agent.request(acp.methods.agent.session.setMode, { sessionId: firstSession, modeId: 'accept-edits' });
      await until('current_mode_update', () => ofSession(e, firstSession).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'accept-edits'));
      expect(getSession(openDb(ws.dataDir), firstSession)?.mode).toBe('accept-edits');
      await expect(e.agent.request(acp.methods.agent.session.setMode, { sessionId: firstSession, modeId: 'yolo' })).rejects.toThrow(/Unknown mode "yolo"/);
    } finally {
      await e.close();
    }
  });
  it('"always allow" saves the rule the page saves; a path outside the workspace is refused before the editor is asked', async () => {
    fs.writeFileSync(path.join(ws.root, 'outside.txt'), 'CANARY-outside-the-workspace\n');
    fs.symlinkSync(path.join(ws.root, 'outside.txt'), path.join(ws.workspace, 'link.txt'));
    const e = startEditor((req) => (req.options.some((o) => o.optionId === 'allow_always') ? 'allow_always' : 'allow_once'));
    try {
      await initialize(e);
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.workspace, mcpServers: [] });
      const done = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'touch twice' }] });
      expect(done.stopReason, e.stderr()).toBe('end_turn');
      // asked once: "always" saved the page's rule for the workspace, and the second touch ran without asking
      expect(e.permissions).toHaveLength(1);
      expect(e.permissions[0].options.find((o) => o.kind === 'allow_always')?.name).toContain('run_command: touch');
      expect(listRules(openDb(ws.dataDir), ws.workspace).map((r) => [r.tool, r.pattern, r.action])).toContainEqual(['run_command', 'touch', 'allow']);
      expect(fs.existsSync(path.join(ws.workspace, 'always-one.txt'))).toBe(true);
      expect(fs.existsSync(path.join(ws.workspace, 'always-two.txt'))).toBe(true);
      // outside the workspace, by its name or through a link: refused by dispatch; the editor was never asked
      const reads = calls(e, s.sessionId).filter((c) => c.name === 'read_file');
      expect(reads.map((c) => c.statuses.at(-1))).toEqual(['failed', 'failed']);
      expect(e.reads.filter((p) => p.includes('outside') || p.includes('link.txt'))).toEqual([]);
      expect(fake.requests.some((r) => JSON.stringify(r.body.messages).includes('CANARY-outside'))).toBe(false);
    } finally {
      await e.close();
    }
  });
  it('a prompt with a file link and an embedded file: the model reads both (the link as an @-mention, read with read_file)', async () => {
    ws.write('docs/linked.md', 'LINKED-FILE-TEXT\n');
    const e = startEditor();
    try {
      await initialize(e);
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.workspace, mcpServers: [] });
      const done = await e.agent.request(acp.methods.agent.session.prompt, {
        sessionId: s.sessionId,
        prompt: [
          { type: 'text', text: 'Summarise these' },
          { type: 'resource_link', uri: `file://${path.join(ws.workspace, 'docs/linked.md')}`, name: 'linked.md' },
          { type: 'resource', resource: { uri: `file://${path.join(ws.workspace, 'draft.md')}`, mimeType: 'text/markdown', text: 'EMBEDDED-DRAFT-TEXT' } },
        ],
      });
      expect(done.stopReason, e.stderr()).toBe('end_turn');
      const sent = JSON.stringify(fake.requests.at(-1)!.body.messages);
      expect(sent).toContain('@docs/linked.md');
      expect(sent).toContain('LINKED-FILE-TEXT');
      expect(sent).toContain('EMBEDDED-DRAFT-TEXT');
    } finally {
      await e.close();
    }
  });
  it('cancel while the editor is asked: the prompt ends as cancelled, the call is refused and not run, and the session takes the next prompt', async () => {
    const e = startEditor((_req, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined))));
    try {
      await initialize(e);
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.workspace, mcpServers: [] });
      const prompt = e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'wait on me' }] });
      await until('the permission request', () => e.permissions.length === 1, 30_000, e);
      await e.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
      expect(fs.existsSync(path.join(ws.workspace, 'never-approved'))).toBe(false);
      const next = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'after the cancel' }] });
      expect(next.stopReason, e.stderr()).toBe('end_turn');
      expect(fs.existsSync(path.join(ws.workspace, 'never-approved'))).toBe(false);
      // the call's approval is answered (refused, with the reason), so nothing waits in the page's inbox
      const asked = e.permissions[0].toolCall.toolCallId;
      expect(getByToolCallId(openDb(ws.dataDir), s.sessionId, asked)).toMatchObject({ status: 'answered', answer: 'deny', reason: 'The prompt was cancelled in the editor.' });
      // what the model was sent next: the stopped turn's unanswered call is left out, the new message follows
      expect(fake.requests.at(-1)!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    } finally {
      await e.close();
    }
  });
  it('the step limit ends the prompt as max_turn_requests', async () => {
    const e = startEditor(undefined, { CLAMP_MAX_STEPS: '2' });
    try {
      await initialize(e);
      const s = await e.agent.request(acp.methods.agent.session.new, { cwd: ws.workspace, mcpServers: [] });
      const done = await e.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'keep looking' }] });
      expect(done.stopReason, e.stderr()).toBe('max_turn_requests');
      expect(calls(e, s.sessionId).map((c) => [c.name, c.statuses.at(-1)])).toEqual([['list_dir', 'completed'], ['list_dir', 'completed']]);
    } finally {
      await e.close();
    }
  });
});
