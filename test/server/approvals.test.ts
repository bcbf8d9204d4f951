import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import type { Incoming } from '../../lib/agent/chat-request';
import { answerToolCall } from '../../lib/server/approvals';
import { openDb, closeDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { listRules } from '../../lib/store/rules';
import { loadMessages } from '../../lib/store/messages';
import type { ServerConfig } from '../../lib/server/http';
import type { ScriptTurn } from '../../lib/agent/scripted-model';
import { tempWorkspace } from '../helpers';
import { readChunks } from './harness';
import * as approvalRoute from '../../app/api/sessions/[id]/approvals/[toolCallId]/route';

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
const savedEnv = { ...process.env };

function script(turns: ScriptTurn[]) {
  const file = path.join(ws.root, 'script.json');
  fs.writeFileSync(file, JSON.stringify(turns));
  process.env.CLAMP_MODEL = `scripted:${file}`;
}

beforeEach(() => {
  ws = tempWorkspace();
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

const userMsg = (id: string, text: string): Incoming => ({ message: { id, text } });
const resume = (messageId: string): Incoming => ({ continue: { messageId } });

async function send(sessionId: string, incoming: Incoming) {
  const res = await handleChat(cfg, { sessionId, ...incoming }, new AbortController().signal);
  return readChunks(res);
}

function lastAssistantId(sessionId: string): string {
  const msgs = loadMessages(openDb(ws.dataDir), sessionId);
  return msgs[msgs.length - 1].id;
}

describe('approval answers', () => {
  it('"this session" saves the rule key: the next call of that command runs without asking, in this session only', async () => {
    script([
      { toolCalls: [{ name: 'run_command', args: { command: 'touch one.txt' }, id: 't1' }] },
      { text: 'made one' },
      { toolCalls: [{ name: 'run_command', args: { command: 'touch two.txt' }, id: 't2' }] },
      { text: 'made two' },
    ]);
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    const c1 = await send(s.id, userMsg('u1', 'make one'));
    expect(c1.some((c) => c.type === 'tool-approval-request')).toBe(true);
    answerToolCall(cfg, s.id, 't1', { answer: 'session' });
    const c2 = await send(s.id, resume(lastAssistantId(s.id)));
    expect(c2.some((c) => c.type === 'tool-output-available')).toBe(true);
    expect(fs.existsSync(path.join(ws.workspace, 'one.txt'))).toBe(true);
    const c3 = await send(s.id, userMsg('u2', 'make two'));
    expect(c3.some((c) => c.type === 'tool-approval-request')).toBe(false);
    expect(fs.existsSync(path.join(ws.workspace, 'two.txt'))).toBe(true);
    expect(listRules(openDb(ws.dataDir), ws.workspace)).toEqual([]);
  });

  it('"always" saves a workspace rule that a new session uses and the settings page lists', async () => {
    script([{ toolCalls: [{ name: 'run_command', args: { command: 'touch a.txt' }, id: 'a1' }] }, { text: 'ok' }]);
    const db = openDb(ws.dataDir);
    const s1 = createSession(db, { workspace: ws.workspace }, 'default');
    await send(s1.id, userMsg('u1', 'version'));
    answerToolCall(cfg, s1.id, 'a1', { answer: 'always' });
    expect(listRules(db, ws.workspace).map((r) => [r.tool, r.pattern, r.action])).toEqual([['run_command', 'touch', 'allow']]);
    const s2 = createSession(db, { workspace: ws.workspace }, 'default');
    const c = await send(s2.id, userMsg('u9', 'version again'));
    expect(c.some((x) => x.type === 'tool-approval-request')).toBe(false);
    expect(c.some((x) => x.type === 'tool-output-available')).toBe(true);
  });

  it('refuses to save an opaque command as a rule', async () => {
    script([{ toolCalls: [{ name: 'run_command', args: { command: 'eval "$(cat notes.txt)"' }, id: 'o1' }] }]);
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    await send(s.id, userMsg('u1', 'date'));
    expect(() => answerToolCall(cfg, s.id, 'o1', { answer: 'always' })).toThrow(/cannot be saved as a rule/);
    expect(() => answerToolCall(cfg, s.id, 'o1', { answer: 'session' })).toThrow(/cannot be saved as a rule/);
  });

  it('"edit & approve" runs the edited command and tells the model what ran', async () => {
    script([{ toolCalls: [{ name: 'run_command', args: { command: 'echo model > picked.txt' }, id: 'e1' }] }, { text: 'ok' }]);
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    await send(s.id, userMsg('u1', 'write'));
    answerToolCall(cfg, s.id, 'e1', { answer: 'edit', editedCommand: 'echo person > picked.txt' });
    const c = await send(s.id, resume(lastAssistantId(s.id)));
    expect(ws.read('picked.txt')).toBe('person\n');
    const out = c.find((x) => x.type === 'tool-output-available') as { output: { output: string; meta: { editedCommand: string } } };
    expect(out.output.output).toMatch(/^The user edited the command before approving it\. What ran: echo person > picked\.txt\n\(You proposed: echo model > picked\.txt\)/);
  });

  it('an edited command is still judged: a catastrophic edit is blocked', async () => {
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    script([{ toolCalls: [{ name: 'run_command', args: { command: 'touch x' }, id: 'x1' }] }, { text: 'ok' }]);
    await send(s.id, userMsg('u1', 'go'));
    answerToolCall(cfg, s.id, 'x1', { answer: 'edit', editedCommand: 'rm -rf ~' });
    const c = await send(s.id, resume(lastAssistantId(s.id)));
    const out = c.find((x) => x.type === 'tool-output-available') as { output: { status: string; output: string } };
    expect(out.output.status).toBe('denied');
    expect(out.output.output).toMatch(/Blocked by Clamp's safety policy/);
  });

  it('"allow network" on one approval runs that call with the network, and only that call', async () => {
    process.env.CLAMP_WORKSPACE = ws.workspace;
    process.env.CLAMP_DATA_DIR = ws.dataDir;
    delete process.env.CLAMP_SANDBOX;
    delete process.env.CLAMP_SANDBOX_NETWORK;
    // /proc/net/dev lists the interfaces the command's network namespace has: only lo without the network
    const command = 'touch n.txt && cat /proc/net/route';
    script([
      { toolCalls: [{ name: 'run_command', args: { command }, id: 'n1' }] },
      { toolCalls: [{ name: 'run_command', args: { command }, id: 'n2' }] },
      { text: 'done' },
    ]);
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    const post = (toolCallId: string, body: object) =>
      approvalRoute.POST(new Request(`http://127.0.0.1/api/sessions/${s.id}/approvals/${toolCallId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), {
        params: Promise.resolve({ id: s.id, toolCallId }),
      });
    // a default route (destination 00000000) is a way out; the sandbox's own namespace has none (its pasta link to
    // Clamp's proxy is spliced on loopback, not routed)
    const routesOut = (out: string) => /^\S+\s+00000000\s/m.test(out);

    await send(s.id, userMsg('u1', 'look'));
    const res = await post('n1', { answer: 'once', network: true });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { approval: { network: boolean } }).approval.network).toBe(true);
    const c1 = await send(s.id, resume(lastAssistantId(s.id)));
    const out1 = (c1.find((x) => x.type === 'tool-output-available') as { output: { output: string } }).output.output;
    expect(out1).toMatch(/^exit code 0/);
    expect(out1).toContain('it ran with network access (approved by the person for this command only)');
    expect(routesOut(out1)).toBe(true);

    // the next call asks again, and approved without the network runs without it
    expect((await post('n2', { answer: 'once' })).status).toBe(200);
    const c2 = await send(s.id, resume(lastAssistantId(s.id)));
    const out2 = (c2.find((x) => x.type === 'tool-output-available') as { output: { output: string } }).output.output;
    expect(out2).toMatch(/^exit code 0/);
    expect(out2).not.toContain('network access');
    expect(routesOut(out2)).toBe(false);
  });

  it('refuses "allow network" with a denial or for a tool that is not a command', async () => {
    script([{ toolCalls: [{ name: 'run_command', args: { command: 'touch x.txt' }, id: 'd1' }] }, { text: 'ok' }]);
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    await send(s.id, userMsg('u1', 'x'));
    expect(() => answerToolCall(cfg, s.id, 'd1', { answer: 'deny', network: true })).toThrow(/goes with an approval/);
  });
});
