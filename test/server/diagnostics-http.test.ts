import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { messageText } from '../e2e/scenarios';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, type RunningClamp, stopBed } from './harness';
import { lastToolText, turnInNewSession } from './chat-turn';
import type { DiagnosticsSettingsView, LateDiagnosticsAnswer } from '../../lib/contract/diagnostics';
import type { ClampMessage, SessionDetail } from '../../lib/contract/protocol';
import { BUDGET } from '../../lib/contract/budget';
import { DIAGNOSTICS_COLD_START_FIGURE_MS } from '../../bench/diagnostics';

/**
 * Diagnostics after edits through the real server: a model's edit_file of a TypeScript file (the
 * language server found and started from inside the server bundle), the result the model reads next,
 * the settings route that lists the servers and turns diagnostics off.
 */
let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

beforeAll(async () => {
  ws = tempWorkspace('clamp-diag-http-');
  // lib without the DOM's declarations, which these sources never use: each TypeScript server loads about 1.2 s of CPU less
  ws.write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, lib: ['ES2022'] }, include: ['src'] }));
  ws.write('src/a.ts', 'export const port: number = 8080;\n');
  ws.write('notes.txt', 'notes\n');
  // stand-in servers that take SLOW_START_MS to start, each cold for one test
  fs.writeFileSync(
    path.join(ws.dataDir, 'lsp.json'),
    JSON.stringify({
      servers: Object.fromEntries(['slow', 'slower'].map((name) => [name, { command: process.execPath, args: [FAKE_LSP, 'push', '--init-delay-ms', String(SLOW_START_MS)], patterns: [`*.${name}`], sandbox: false }])),
    }),
  );
  fake = await startFakeOpenAI((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    const slow = slowReply(req);
    if (slow) return slow;
    if (last.role !== 'user') return awaitLate(req) ?? { text: 'Done.' };
    const text = messageText(last);
    const [from, to] = text.includes('[break]') ? ['port: number = 8080', "port: number = '8080'"] : ["port: number = '8080'", 'port: number = 8080'];
    return { toolCalls: [{ name: 'edit_file', args: { path: 'src/a.ts', old_string: from, new_string: to }, id: `call_${text.includes('[break]') ? 'break' : 'fix'}_${Date.now()}` }] };
  });
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'accept-edits' });
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

const turn = (text: string) => turnInNewSession(clamp, fake, text);

const FAKE_LSP = path.resolve(__dirname, '../lsp/fake-lsp.mjs');
const SLOW_START_MS = 5000;
const firstUserText = (req: FakeRequest) => messageText(req.body.messages.find((m) => m.role === 'user'));
const NOTE = '[Clamp: diagnostics of earlier changes, which arrived after their results.';

/**
 * The model of the slow-server tests. "[slow-turn]": write a.slow, then read notes.txt (a second apart) until a
 * result carries the late diagnostics, then end. "[slower]": write b.slower and end the turn at once; its next
 * message is answered with text.
 */
function slowReply(req: FakeRequest): FakeReply | undefined {
  const first = firstUserText(req);
  const msgs = req.body.messages;
  const last = msgs[msgs.length - 1];
  if (first.includes('[slow-turn]')) {
    if (last.role === 'user') return { toolCalls: [{ name: 'write_file', args: { path: 'a.slow', content: 'ok\nBAD line\n' }, id: 'slow-write' }] };
    const reads = msgs.filter((m) => m.role === 'tool').length - 1;
    if (!messageText(last).includes(NOTE) && reads < 40) return { delayMs: 500, toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: `slow-read-${reads}` }] };
    return { text: 'Saw them.' };
  }
  if (first.includes('[slower]')) {
    if (last.role === 'user' && messageText(last).includes('[slower]')) return { toolCalls: [{ name: 'write_file', args: { path: 'b.slower', content: 'BAD\n' }, id: 'slower-write' }] };
    return { text: last.role === 'user' ? 'Read them.' : 'Written.' };
  }
  return undefined;
}

/** An edit whose diagnostics are pending: read notes.txt, half a second apart, until a result carries them. */
function awaitLate(req: FakeRequest): FakeReply | undefined {
  const turnMsgs = req.body.messages.slice(req.body.messages.findLastIndex((m) => m.role === 'user'));
  const tools = turnMsgs.filter((m) => m.role === 'tool').map((m) => messageText(m));
  if (!tools.some((t) => t.includes('Diagnostics pending')) || tools.some((t) => t.includes(NOTE)) || tools.length > 60) return undefined;
  return { delayMs: 500, toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: `late-read-${tools.length}` }] };
}

async function storedMessages(sessionId: string): Promise<ClampMessage[]> {
  return ((await (await clamp.api(`/api/sessions/${sessionId}`)).json()) as SessionDetail).messages;
}
const lateParts = (messages: ClampMessage[]) => messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'data-diagnostics' ? [{ messageId: m.id, late: p.data }] : [])));

describe('diagnostics after edits, through the server', () => {
  it("the model reads the compiler's new error in edit_file's result (or, when it went back pending, a later one); the settings route lists the server", { timeout: 4 * DIAGNOSTICS_COLD_START_FIGURE_MS }, async () => {
    // the first edit meets a cold server: the result may go back before the answer, which a later result then carries
    const seen = await turn('[break] the port');
    expect(seen).toContain("Diagnostics (typescript): 1 new error (showing 1):\n  src/a.ts:1:14 error TS2322: Type 'string' is not assignable to type 'number'.");
    const view = (await (await clamp.api('/api/settings/diagnostics')).json()) as DiagnosticsSettingsView;
    expect(view.enabled).toBe(true);
    expect(view.servers.find((s) => s.name === 'typescript')).toMatchObject({ state: 'running', typescript: 'clamp' });
    expect(view.configPath).toBe(`${ws.dataDir}/lsp.json`);
  });

  it('turned off on the settings page, the next edit has no diagnostics; a bad body is refused', { timeout: 120_000 }, async () => {
    const bad = await clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: 'no' } });
    expect(bad.status).toBe(400);
    const off = await clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: false } });
    expect(off.status).toBe(200);
    const view = (await off.json()) as DiagnosticsSettingsView;
    expect(view).toMatchObject({ enabled: false, saved: false });
    expect(view.servers.find((s) => s.name === 'typescript')?.state).toBe('idle');
    const fixed = await turn('fix it');
    expect(fixed).toMatch(/^Edited src\/a\.ts/);
    const broken = await turn('[break] once more');
    expect(broken).not.toContain('Diagnostics');
    const on = await clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: true } });
    expect(((await on.json()) as DiagnosticsSettingsView).enabled).toBe(true);
  });
});

describe('an edit does not wait on a cold language server, through the server', () => {
  it(`a server that takes ${SLOW_START_MS / 1000} s to start: the edit's result comes back "pending" within ~1.5 s; the model's next request after the answer carries the new errors; the card's message stores them`, { timeout: 60_000 }, async () => {
    const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
    const from = fake.requests.length;
    const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-slow-${Date.now()}`, text: '[slow-turn] write it' } } });
    expect(chat.status).toBe(200);
    const chunks = await readChunks(chat);
    const reqs = fake.requests.slice(from);
    // the edit's result: back within the wait (plus a margin for the machine), pending
    expect(reqs[1].arrivedAtMs - reqs[0].answeredAtMs!).toBeLessThan(BUDGET.DIAGNOSTICS_WAIT_MS + 1500);
    expect(lastToolText(reqs[1])).toBe(
      'Created a.slow (+2 −0 lines, 12 bytes).\n\nDiagnostics pending: the slow language server did not answer within 1.5 s (it is still starting). The check goes on; its result (new errors, or none) comes with a later tool result or the next message.',
    );
    // a later request carries them, in the result of a later call, once
    const carrying = reqs.filter((r) => lastToolText(r).includes(NOTE));
    expect(carrying).toHaveLength(1);
    expect(lastToolText(carrying[0])).toContain(`${NOTE}\nwrite_file of a.slow (call slow-write): Diagnostics (slow): 1 new error (showing 1):\n  a.slow:2:1 error [bad]: BAD is not allowed here]`);
    expect(reqs.at(-1)!.body.messages.filter((m) => m.role === 'tool' && messageText(m).includes(NOTE))).toHaveLength(1);
    // the page got them in the stream, and they are stored with the turn's message
    const streamed = chunks.filter((c) => c.type === 'data-diagnostics');
    expect(streamed).toEqual([expect.objectContaining({ id: expect.stringMatching(/^diagnostics-/), data: expect.objectContaining({ toolCallId: 'slow-write', diagnostics: expect.objectContaining({ state: 'checked', newErrors: [expect.objectContaining({ path: 'a.slow', line: 2 })] }) }) })]);
    const stored = lateParts(await storedMessages(session.id));
    expect(stored.map((s) => s.late)).toEqual(streamed.map((c) => c.data));
  });

  it('the turn ends before the answer: it is stored with its call, the page can ask for it, and the next message carries it to the model', { timeout: 60_000 }, async () => {
    const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
    const t0 = Date.now();
    await readChunks(await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-slower-${Date.now()}`, text: '[slower] write it' } } }));
    expect(Date.now() - t0).toBeLessThan(SLOW_START_MS);
    const pending = await clamp.api(`/api/sessions/${session.id}/diagnostics`);
    const first = (await pending.json()) as LateDiagnosticsAnswer;
    expect(first.checking).toHaveLength(1);
    expect(first.arrived).toEqual([]);
    let answer = first;
    await expect.poll(async () => (answer = (await (await clamp.api(`/api/sessions/${session.id}/diagnostics`)).json()) as LateDiagnosticsAnswer).arrived.length, { timeout: 30_000, interval: 250 }).toBe(1);
    expect(answer).toMatchObject({ checking: [], arrived: [{ lateId: first.checking[0], toolCallId: 'slower-write', toolName: 'write_file', paths: ['b.slower'], diagnostics: { state: 'checked', newErrors: [expect.objectContaining({ path: 'b.slower', line: 1 })] } }] });
    // stored with the call it belongs to, so a reload shows it
    const messages = await storedMessages(session.id);
    const callMessage = messages.find((m) => m.parts.some((p) => 'toolCallId' in p && p.toolCallId === 'slower-write'));
    expect(lateParts(messages)).toEqual([{ messageId: callMessage!.id, late: answer.arrived[0] }]);
    // the next message carries it to the model
    const from = fake.requests.length;
    await readChunks(await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: `m-slower-2-${Date.now()}`, text: 'what now' } } }));
    const req = fake.requests[from];
    const user = messageText(req.body.messages.at(-1));
    expect(user).toContain('what now');
    expect(user).toContain(`${NOTE}\nwrite_file of b.slower (call slower-write): Diagnostics (slower): 1 new error (showing 1):\n  b.slower:1:1 error [bad]: BAD is not allowed here]`);
    expect((await clamp.api('/api/sessions/nope/diagnostics')).status).toBe(404);
  });
});
