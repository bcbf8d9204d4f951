import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { openDb, closeDb } from '../../lib/store/db';
import { createSession, listSessions } from '../../lib/store/sessions';
import { loadSessionDetail } from '../../lib/store/session-detail';
import { listChildren } from '../../lib/store/children';
import { listSessionRules } from '../../lib/store/rules';
import { loadMessages } from '../../lib/store/messages';
import type { ServerConfig } from '../../lib/server/http';
import type { SubagentView } from '../../lib/contract/subagents';
import { tempWorkspace } from '../helpers';
import { readChunks } from './harness';
import * as approvalRoute from '../../app/api/sessions/[id]/approvals/[toolCallId]/route';

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
const savedEnv = { ...process.env };

function script(s: object) {
  const file = path.join(ws.root, 'script.json');
  fs.writeFileSync(file, JSON.stringify(s));
  process.env.CLAMP_MODEL = `scripted:${file}`;
}

beforeEach(() => {
  ws = tempWorkspace();
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  // the approvals route reads its configuration from the environment
  process.env.CLAMP_WORKSPACE = ws.workspace;
  process.env.CLAMP_DATA_DIR = ws.dataDir;
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

const post = (sessionId: string, toolCallId: string, body: object) =>
  approvalRoute.POST(new Request(`http://127.0.0.1/api/sessions/${sessionId}/approvals/${toolCallId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), {
    params: Promise.resolve({ id: sessionId, toolCallId }),
  });

const chat = (sessionId: string, text: string, id = 'u1') => handleChat(cfg, { sessionId, message: { id, text } }, new AbortController().signal);

describe('subagents through the chat route and the store', () => {
  it("a general child's write waits in the parent's pending list; the approvals route answers it and the turn goes on; the child is stored as a session with a parent", async () => {
    script({
      turns: [{ toolCalls: [{ name: 'agent', id: 'p1', args: { type: 'general', description: 'write the note', prompt: 'job-note: write note.txt' } }] }, { text: 'The note is written.' }],
      subagents: { 'job-note': [{ toolCalls: [{ name: 'write_file', id: 'w1', args: { path: 'note.txt', content: 'from the child\n' } }] }, { text: 'Wrote note.txt.' }] },
    });
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace }, 'default');
    const res = await chat(s.id, 'write a note');
    const reading = readChunks(res);
    // the child's call waits, recorded in the child's session and listed with the parent's pending approvals
    await expect.poll(() => loadSessionDetail(db, ws.workspace, s.id).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
    const [child] = listChildren(db, s.id);
    const pending = loadSessionDetail(db, ws.workspace, s.id).pendingApprovals[0];
    expect(pending).toMatchObject({ sessionId: child.id, toolCallId: 'w1', toolName: 'write_file', info: { from: { sessionId: child.id, label: 'general: write the note' } } });
    expect(pending.info?.diff).toContain('+from the child');
    expect(fs.existsSync(path.join(ws.workspace, 'note.txt'))).toBe(false);
    // "this session" on a child's call saves the rule for the session the person works in
    expect((await post(child.id, 'w1', { answer: 'session' })).status).toBe(200);
    const chunks = await reading;
    expect(ws.read('note.txt')).toBe('from the child\n');
    expect(listSessionRules(db, s.id).map((r) => r.tool)).toEqual(['write_file']);
    expect(listSessionRules(db, child.id)).toEqual([]);
    const out = chunks.find((c) => c.type === 'tool-output-available' && c.toolCallId === 'p1') as { output: { output: string } };
    expect(out.output.output).toContain('Wrote note.txt.');
    // stored: the child is a session with a parent, not listed; its conversation survives a restart
    expect(listSessions(db, ws.workspace).map((x) => x.id)).toEqual([s.id]);
    closeDb(ws.dataDir);
    const again = openDb(ws.dataDir);
    const childDetail = loadSessionDetail(again, ws.workspace, child.id);
    expect(childDetail.session.parentId).toBe(s.id);
    expect(JSON.stringify(childDetail.messages)).toContain('Wrote note.txt.');
    const parentMsg = loadMessages(again, s.id).at(-1)!;
    const view = parentMsg.parts.find((p) => p.type === 'data-subagent') as unknown as { data: SubagentView };
    expect(view.data).toMatchObject({ sessionId: child.id, status: 'done', calls: [{ toolCallId: 'w1', toolName: 'write_file', state: 'ok' }] });
    // a transcript is read-only
    await expect(chat(child.id, 'hello', 'u2')).rejects.toThrow(/subagent's transcript: it is read-only/);
  });

  it('a denied child call: the child is told, nothing is written', async () => {
    script({
      turns: [{ toolCalls: [{ name: 'agent', id: 'p1', args: { type: 'general', description: 'write', prompt: 'job-x: write x.txt' } }] }, { text: 'ok' }],
      subagents: { 'job-x': [{ toolCalls: [{ name: 'write_file', id: 'w1', args: { path: 'x.txt', content: 'x' } }] }, { text: 'I was not allowed to write x.txt.' }] },
    });
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace }, 'default');
    const reading = readChunks(await chat(s.id, 'go'));
    await expect.poll(() => loadSessionDetail(db, ws.workspace, s.id).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
    const [child] = listChildren(db, s.id);
    expect((await post(child.id, 'w1', { answer: 'deny', reason: 'no files today' })).status).toBe(200);
    const chunks = await reading;
    expect(fs.existsSync(path.join(ws.workspace, 'x.txt'))).toBe(false);
    const out = chunks.find((c) => c.type === 'tool-output-available' && c.toolCallId === 'p1') as { output: { output: string } };
    expect(out.output.output).toContain('I was not allowed to write x.txt.');
    const childMsgs = JSON.stringify(loadMessages(db, child.id));
    expect(childMsgs).toContain('The user denied this call: no files today.');
  });

  it("ask_user: the question waits as the session's pending approval; the reply through the route is the tool's result", async () => {
    script([{ toolCalls: [{ name: 'ask_user', id: 'q1', args: { question: 'Tabs or spaces?', choices: ['tabs', 'spaces'] } }] }, { text: 'Spaces, then.' }]);
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace }, 'default');
    const reading = readChunks(await chat(s.id, 'format it'));
    await expect.poll(() => loadSessionDetail(db, ws.workspace, s.id).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
    expect(loadSessionDetail(db, ws.workspace, s.id).pendingApprovals[0].info?.question).toEqual({ question: 'Tabs or spaces?', choices: ['tabs', 'spaces'] });
    // a question is answered with a reply, not saved as a rule
    expect((await post(s.id, 'q1', { answer: 'always' })).status).toBe(400);
    expect((await post(s.id, 'q1', { answer: 'once' })).status).toBe(400);
    expect((await post(s.id, 'q1', { answer: 'once', reply: 'spaces' })).status).toBe(200);
    const chunks = await reading;
    const out = chunks.find((c) => c.type === 'tool-output-available' && c.toolCallId === 'q1') as { output: { output: string } };
    expect(out.output.output).toBe('The user answered: spaces');
  });
});
