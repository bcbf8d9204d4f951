import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileTool } from '../../lib/tools/write-file';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { editFileTool } from '../../lib/tools/edit-file/edit-file';
import { createDiagnostics, stopLanguageServers } from '../../lib/lsp/service';
import { lateDiagnosticsOf, lateFeed } from '../../lib/dispatch/late-diagnostics';
import { BUDGET, type Budget } from '../../lib/contract/budget';
import type { DiagnosticsService, LateDiagnostics } from '../../lib/contract/diagnostics';
import type { ClampMessage } from '../../lib/contract/protocol';
import type { ToolResult } from '../../lib/contract/types';
import { openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { loadMessages, saveMessages } from '../../lib/store/messages';
import { storeLate, withLateNote } from '../../lib/server/diagnostics';
import { harness, tempWorkspace } from '../helpers';

/**
 * An edit never waits on a cold language server: past DIAGNOSTICS_WAIT_MS its result goes back "pending", and
 * the report follows — to the model with the session's next tool result (or the next user message), to the
 * page through a running turn's feed, else into the store.
 */
const FAKE = path.join(__dirname, 'fake-lsp.mjs');
const SLOW_START_MS = 5000;
let ws: ReturnType<typeof tempWorkspace>;
let kept: { sessionId: string; late: LateDiagnostics }[];
let n = 0;

function bed(budget: Partial<Budget> = {}) {
  const service = createDiagnostics({ workspace: ws.workspace, dataDir: ws.dataDir, enabled: () => true, budget });
  const diagnostics: DiagnosticsService = {
    covers: (abs) => service.covers(abs),
    check: (files, signal) => service.check(files, signal),
    keepLate: (sessionId, late) => kept.push({ sessionId, late }),
  };
  return harness([writeFileTool, readFileTool, editFileTool], ws, { services: { diagnostics } });
}
const session = () => `s-late-${++n}`;
const diag = (r: ToolResult) => r.meta?.diagnostics;

async function arrival(sessionId: string, lateId: string, timeoutMs = 3 * SLOW_START_MS): Promise<LateDiagnostics> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = lateDiagnosticsOf(sessionId).arrived.find((l) => l.lateId === lateId);
    if (found) return found;
    if (Date.now() > until) throw new Error(`no late report for ${lateId} in ${timeoutMs} ms: ${JSON.stringify(lateDiagnosticsOf(sessionId))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(() => {
  ws = tempWorkspace('clamp-lsp-late-');
  ws.write('notes.txt', 'hello\n');
  kept = [];
  fs.writeFileSync(
    path.join(ws.dataDir, 'lsp.json'),
    JSON.stringify({
      servers: {
        slow: { command: process.execPath, args: [FAKE, 'push', '--init-delay-ms', String(SLOW_START_MS)], patterns: ['*.slow'], sandbox: false },
        slowclean: { command: process.execPath, args: [FAKE, 'push', '--init-delay-ms', String(SLOW_START_MS)], patterns: ['*.clean'], sandbox: false },
        slownote: { command: process.execPath, args: [FAKE, 'push', '--init-delay-ms', String(SLOW_START_MS)], patterns: ['*.note'], sandbox: false },
        silent: { command: process.execPath, args: [FAKE, 'never'], patterns: ['*.never'], sandbox: false },
      },
    }),
  );
});

afterAll(async () => {
  await stopLanguageServers();
  ws.cleanup();
});

describe('an edit does not wait on a cold language server', () => {
  it(`a server that takes ${SLOW_START_MS / 1000} s to start: the edit returns "pending" within ~DIAGNOSTICS_WAIT_MS; the errors come with the session's next result, once`, async () => {
    const h = bed();
    const sid = session();
    const t0 = Date.now();
    const r = await h.call('write_file', { path: 'a.slow', content: 'fine\nBAD here\n' }, { sessionId: sid, callId: 'call_edit' });
    const took = Date.now() - t0;
    expect(r.status).toBe('ok');
    expect(took).toBeLessThan(BUDGET.DIAGNOSTICS_WAIT_MS + 1000);
    expect(diag(r)).toMatchObject({ servers: ['slow'], state: 'pending', note: 'it is still starting', lateId: expect.any(String) });
    expect(r.output).toBe(
      'Created a.slow (+2 −0 lines, 14 bytes).\n\nDiagnostics pending: the slow language server did not answer within 1.5 s (it is still starting). The check goes on; its result (new errors, or none) comes with a later tool result or the next message.',
    );
    const lateId = diag(r)!.lateId!;
    expect(lateDiagnosticsOf(sid).checking).toEqual([lateId]);

    // a call before the answer carries nothing
    const early = await h.call('read_file', { path: 'notes.txt' }, { sessionId: sid, callId: 'call_r0' });
    expect(early.output).not.toContain('[Clamp: diagnostics');

    const late = await arrival(sid, lateId);
    expect(late).toMatchObject({ lateId, toolCallId: 'call_edit', toolName: 'write_file', paths: ['a.slow'], diagnostics: { state: 'checked', servers: ['slow'], newErrors: [expect.objectContaining({ path: 'a.slow', line: 2, column: 1 })] } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(SLOW_START_MS - 200);
    // no running turn took it: the store keeps it with the session
    expect(kept).toContainEqual({ sessionId: sid, late });
    expect(lateDiagnosticsOf(sid).checking).toEqual([]);

    // another session's call does not get it
    const other = await h.call('read_file', { path: 'notes.txt' }, { sessionId: session(), callId: 'call_x' });
    expect(other.output).not.toContain('[Clamp: diagnostics');
    // in front of the next result (the exit clamp keeps a result's head): here a read cut to the cap
    ws.write('big.txt', `${'x'.repeat(99)}\n`.repeat(1000));
    const next = await h.call('read_file', { path: 'big.txt' }, { sessionId: sid, callId: 'call_r1' });
    expect(next.output.startsWith(
      '[Clamp: diagnostics of earlier changes, which arrived after their results.\nwrite_file of a.slow (call call_edit): Diagnostics (slow): 1 new error (showing 1):\n  a.slow:2:1 error [bad]: BAD is not allowed here]\n\n',
    )).toBe(true);
    expect(next.truncation).not.toBeNull();
    expect(Buffer.byteLength(next.output)).toBeLessThanOrEqual(BUDGET.TOOL_OUTPUT_MAX_BYTES);
    const again = await h.call('read_file', { path: 'notes.txt' }, { sessionId: sid, callId: 'call_r2' });
    expect(again.output).not.toContain('[Clamp: diagnostics');

    // warm now: the next edit has its answer in its result
    const warm = await h.call('edit_file', { path: 'a.slow', old_string: 'fine', new_string: 'fine BAD' }, { sessionId: sid, callId: 'call_edit2' });
    expect(diag(warm)).toMatchObject({ state: 'checked', newErrors: [expect.objectContaining({ line: 1, column: 6 })], preexisting: 1 });
  }, 6 * SLOW_START_MS);

  it('a late check that finds nothing new says so; a running turn\'s feed takes it before the store, buffers while detached, and hands the rest to the store when it closes', async () => {
    const h = bed();
    const sid = session();
    const feed = lateFeed(sid);
    const written: LateDiagnostics[] = [];
    feed.attach((l) => written.push(l));
    const r = await h.call('write_file', { path: 'b.clean', content: 'all good\n' }, { sessionId: sid, callId: 'call_clean' });
    expect(diag(r)?.state).toBe('pending');
    const late = await arrival(sid, diag(r)!.lateId!);
    expect(late.diagnostics).toMatchObject({ state: 'checked', newErrors: [] });
    expect(written).toEqual([late]);
    expect(kept.filter((k) => k.sessionId === sid)).toEqual([]);
    // a cap too small for the note: it waits for a later result
    const small = await h.call('read_file', { path: 'notes.txt' }, { sessionId: sid, callId: 'call_small', budget: { TOOL_OUTPUT_MAX_BYTES: 150 } });
    expect(small.output).not.toContain('[Clamp: diagnostics');
    const next = await h.call('read_file', { path: 'notes.txt' }, { sessionId: sid, callId: 'call_r' });
    expect(next.output).toMatch(/^\[Clamp: diagnostics of earlier changes, which arrived after their results\.\nwrite_file of b\.clean \(call call_clean\): no new errors \(slowclean\)\.\]\n\n1\thello\n/);

    // detached (the turn's stream is ending): buffered, then stored when the turn has saved its messages
    feed.detach();
    const cold = await bed({ DIAGNOSTICS_TIMEOUT_MS: BUDGET.DIAGNOSTICS_WAIT_MS + 300 }).call('write_file', { path: 'c.never', content: 'x\n' }, { sessionId: sid, callId: 'call_never' });
    expect(diag(cold)?.state).toBe('pending');
    const gaveUp = await arrival(sid, diag(cold)!.lateId!);
    expect(gaveUp.diagnostics).toMatchObject({ state: 'not-ready' });
    expect(kept.filter((k) => k.sessionId === sid)).toEqual([]);
    feed.close();
    expect(kept.filter((k) => k.sessionId === sid)).toEqual([{ sessionId: sid, late: gaveUp }]);
  }, 6 * SLOW_START_MS);

  it('a call stopped while it waits gets "not ready" at once', async () => {
    const h = bed();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const t0 = Date.now();
    const r = await h.call('write_file', { path: 'd.never', content: 'x\n' }, { sessionId: session(), callId: 'call_stop', signal: stop.signal });
    expect(Date.now() - t0).toBeLessThan(BUDGET.DIAGNOSTICS_WAIT_MS);
    expect(diag(r)).toMatchObject({ state: 'not-ready', note: 'the call was stopped' });
  });
});

describe('where a late report goes when no turn takes it', () => {
  it("the store keeps it in its call's message; the next user message carries what the model has not read", async () => {
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace });
    const pending = { servers: ['slow'], state: 'pending' as const, newErrors: [], shown: 0, preexisting: 0, durationMs: 1500, lateId: 'late-1' };
    const result: ToolResult = { status: 'ok', output: 'Created a.slow', truncation: null, meta: { diagnostics: pending } };
    const messages = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'make it' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'tool-write_file', toolCallId: 'call_0', state: 'output-available', input: { path: 'a.slow', content: 'BAD' }, output: result }] },
      { id: 'a2', role: 'assistant', parts: [{ type: 'tool-write_file', toolCallId: 'call_0', state: 'output-available', input: { path: 'b.slow', content: 'x' }, output: { ...result, meta: {} } }] },
    ] as unknown as ClampMessage[];
    saveMessages(db, s.id, messages);
    const late: LateDiagnostics = { lateId: 'late-1', toolCallId: 'call_0', toolName: 'write_file', paths: ['a.slow'], diagnostics: { ...pending, state: 'checked', durationMs: 5100 }, at: 1 };
    storeLate(db, s.id, late);
    storeLate(db, s.id, late);
    const stored = loadMessages(db, s.id);
    // the message whose call it is (call ids may repeat), once
    expect(stored[1].parts.filter((p) => p.type === 'data-diagnostics')).toEqual([{ type: 'data-diagnostics', id: 'diagnostics-late-1', data: late }]);
    expect(stored[2].parts.some((p) => p.type === 'data-diagnostics')).toBe(false);

    // the next user message: a note part the model reads, once
    const h = bed();
    const sid = s.id;
    const r = await h.call('write_file', { path: 'e.note', content: 'BAD\n' }, { sessionId: sid, callId: 'call_e' });
    expect(diag(r)?.state).toBe('pending');
    await arrival(sid, diag(r)!.lateId!);
    const user = { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'next' }] } as ClampMessage;
    const withNote = withLateNote([...stored, user], sid);
    const note = withNote.at(-1)!.parts.find((p) => p.type === 'data-diagnostics-note');
    expect(note).toEqual({ type: 'data-diagnostics-note', data: { text: expect.stringContaining('\nwrite_file of e.note (call call_e): Diagnostics (slownote): 1 new error (showing 1):\n  e.note:1:1 error [bad]'), lateIds: [diag(r)!.lateId] } });
    expect(withLateNote([...stored, user], sid).at(-1)!.parts).toEqual(user.parts);
  }, 6 * SLOW_START_MS);
});
