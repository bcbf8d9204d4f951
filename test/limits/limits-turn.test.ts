import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { loadSessionDetail } from '../../lib/store/session-detail';
import { loadMessages } from '../../lib/store/messages';
import { listChildren } from '../../lib/store/children';
import { getLimitSettings, getSessionLimits, sessionSpend, setLimitSettings } from '../../lib/store/spend';
import { ledgerOfSession } from '../../lib/server/context';
import type { ServerConfig } from '../../lib/server/http';
import type { StoredApproval } from '../../lib/contract/protocol';
import { startFakeOpenAI, turnPosition, type FakeReply, type FakeRequest } from '../fake-openai';
import { startFakeAnthropic } from '../fake-anthropic';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';
import * as approvalRoute from '../../app/api/sessions/[id]/approvals/[toolCallId]/route';
import * as limitsRoute from '../../app/api/settings/limits/route';

/** Every request the stand-in answers is counted as 1,000 tokens in and 100 out. */
const USAGE = { prompt_tokens: 1000, completion_tokens: 100 };
const PER_REQUEST = 1100;

/** "steps N <tag>": N read_file calls, one per step, then "Done <tag>."; "agent <tag>": a general subagent that does "steps 3 <tag>". */
function reply(req: FakeRequest, index: number): FakeReply {
  const { text, results } = turnPosition(req);
  const sub = /^agent (\S+)$/.exec(text);
  if (sub) return results < 1 ? { usage: USAGE, toolCalls: [{ name: 'agent', id: `call_${index}`, args: { type: 'general', description: 'read', prompt: `steps 3 ${sub[1]}` } }] } : { usage: USAGE, text: `Parent done ${sub[1]}.` };
  const m = /steps (\d+) (\S+)/.exec(text);
  if (!m) return { usage: USAGE, text: 'Hello.' };
  if (results < Number(m[1])) return { usage: USAGE, toolCalls: [{ name: 'read_file', args: { path: 'a.txt' }, id: `call_${index}` }] };
  return { usage: USAGE, text: `Done ${m[2]}.` };
}

let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
const savedEnv = { ...process.env };

beforeAll(async () => {
  fake = await startFakeOpenAI(reply);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  ws = tempWorkspace();
  ws.write('a.txt', 'alpha\n');
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  // the approvals route reads its configuration from the environment
  Object.assign(process.env, { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_DIAGNOSTICS: '0' });
  fake.requests.length = 0;
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

const requestsOf = (tag: string) => fake.requests.filter((r) => turnPosition(r).text.split(' ').includes(tag)).length;

/** Start a turn of a new session; its chunks when it ends. */
async function turn(text: string, sessionId?: string) {
  const db = openDb(ws.dataDir);
  const id = sessionId ?? createSession(db, { workspace: ws.workspace }, 'default').id;
  const res = await handleChat(cfg, { sessionId: id, message: { id: `u-${Math.random().toString(36).slice(2)}`, text } }, new AbortController().signal);
  return { id, reading: readChunks(res) };
}

/** The limit question that waits in a session (or its subagents), once it does. */
async function limitWait(sessionId: string): Promise<StoredApproval> {
  const db = openDb(ws.dataDir);
  await expect.poll(() => loadSessionDetail(db, ws.workspace, sessionId).pendingApprovals.filter((a) => a.info?.question?.limit).length, { timeout: 15_000 }).toBe(1);
  return loadSessionDetail(db, ws.workspace, sessionId).pendingApprovals.find((a) => a.info?.question?.limit)!;
}

const notices = (chunks: Record<string, unknown>[]) => chunks.filter((c) => c.type === 'data-notice').map((c) => (c.data as { message: string }).message);

describe('spending limits in a turn', () => {
  it('pauses before the request past a session token limit; continue with a raised limit (through the approvals route) and the turn finishes', async () => {
    setLimitSettings(openDb(ws.dataDir), { sessionTokens: 2000 });
    const { id, reading } = await turn('steps 3 t1');
    const wait = await limitWait(id);
    // two requests (2,200 tokens) reached the limit: the third was never sent
    expect(requestsOf('t1')).toBe(2);
    expect(wait.toolName).toBe('spending_limit');
    expect(wait.info?.question?.limit).toEqual({ scope: 'session', unit: 'tokens', limit: 2000, used: 2 * PER_REQUEST });
    expect(wait.info?.question?.question).toBe('Session limit of 2,000 tokens reached (2,200 used). Continue with a new limit, or stop?');
    // a new limit at or below what is used is refused with what to do
    const low = await post(id, wait.toolCallId, { answer: 'once', reply: '2,000' });
    expect(low.status).toBe(400);
    expect(((await low.json()) as { error: string }).error).toBe('The new limit must be above what is already used (2,200 tokens). Type a larger one, or stop.');
    await new Promise((r) => setTimeout(r, 300));
    expect(requestsOf('t1')).toBe(2);
    expect((await post(id, wait.toolCallId, { answer: 'once', reply: '10,000' })).status).toBe(200);
    const chunks = await reading;
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    expect(requestsOf('t1')).toBe(4);
    expect(notices(chunks)).toContain('Session limit of 2,000 tokens reached (2,200 used). Continuing with a new session limit of 10,000 tokens.');
    // the raised limit is the session's own, stored; the settings' stays
    const db = openDb(ws.dataDir);
    expect(getSessionLimits(db, id).tokens).toBe(10_000);
    expect(getLimitSettings(db).sessionTokens).toBe(2000);
    expect(JSON.stringify(loadMessages(db, id))).toContain('Done t1.');
    expect(sessionSpend(db, id).tokens).toBe(4 * PER_REQUEST);
    // the ledger shows the spend against the limits
    expect(ledgerOfSession(cfg, id).limits).toContainEqual({ scope: 'session', unit: 'tokens', used: 4 * PER_REQUEST, limit: 10_000 });
  });

  it('stop ends the turn cleanly: no further request, the results so far stored, a notice of the limit', async () => {
    setLimitSettings(openDb(ws.dataDir), { sessionTokens: 2000 });
    const { id, reading } = await turn('steps 3 t2');
    const wait = await limitWait(id);
    expect((await post(id, wait.toolCallId, { answer: 'deny' })).status).toBe(200);
    const chunks = await reading;
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    expect(requestsOf('t2')).toBe(2);
    expect(notices(chunks)).toContain('Session limit of 2,000 tokens reached (2,200 used). The turn stopped before its next model request.');
    const db = openDb(ws.dataDir);
    const stored = JSON.stringify(loadMessages(db, id));
    // both calls' results are kept; nothing waits any more
    expect(stored.match(/alpha/g)?.length).toBeGreaterThanOrEqual(2);
    expect(loadSessionDetail(db, ws.workspace, id).pendingApprovals).toEqual([]);
    // the next message starts at the limit again: it asks before its first request
    const next = await turn('steps 1 t2b', id);
    await limitWait(id);
    expect(requestsOf('t2b')).toBe(0);
    const w = loadSessionDetail(db, ws.workspace, id).pendingApprovals.find((a) => a.info?.question?.limit)!;
    expect((await post(id, w.toolCallId, { answer: 'deny' })).status).toBe(200);
    expect((await next.reading).at(-1)).toMatchObject({ type: 'finish' });
    expect(requestsOf('t2b')).toBe(0);
  });

  it('at the step limit nobody is asked: the turn ends there', async () => {
    setLimitSettings(openDb(ws.dataDir), { sessionTokens: 2000 });
    process.env.CLAMP_MAX_STEPS = '2';
    const { id, reading } = await turn('steps 3 m1');
    expect((await reading).at(-1)).toMatchObject({ type: 'finish' });
    expect(requestsOf('m1')).toBe(2);
    expect(loadSessionDetail(openDb(ws.dataDir), ws.workspace, id).pendingApprovals).toEqual([]);
  });

  it('a daily limit counts every session of the data dir', async () => {
    setLimitSettings(openDb(ws.dataDir), { dayTokens: 3000 });
    const a = await turn('steps 1 d1');
    expect((await a.reading).at(-1)).toMatchObject({ type: 'finish' });
    expect(requestsOf('d1')).toBe(2);
    // 2,200 of 3,000 used today: the second session's first request goes, its second waits
    const b = await turn('steps 3 d2');
    const wait = await limitWait(b.id);
    expect(wait.info?.question?.limit).toEqual({ scope: 'day', unit: 'tokens', limit: 3000, used: 3 * PER_REQUEST });
    expect(requestsOf('d2')).toBe(1);
    // continuing raises the daily limit in the settings
    expect((await post(b.id, wait.toolCallId, { answer: 'once', reply: '100000' })).status).toBe(200);
    expect((await b.reading).at(-1)).toMatchObject({ type: 'finish' });
    expect(requestsOf('d2')).toBe(4);
    expect(getLimitSettings(openDb(ws.dataDir)).dayTokens).toBe(100_000);
    expect(ledgerOfSession(cfg, b.id).limits).toContainEqual({ scope: 'day', unit: 'tokens', used: 6 * PER_REQUEST, limit: 100_000 });
  });

  it("a subagent's requests count toward its parent session, and its loop pauses at the limit", async () => {
    setLimitSettings(openDb(ws.dataDir), { sessionTokens: 3000 });
    const { id, reading } = await turn('agent s1');
    // the parent's request (1,100) and the child's first two (2,200): the child waits before its third
    const db = openDb(ws.dataDir);
    await expect.poll(() => loadSessionDetail(db, ws.workspace, id).pendingApprovals.filter((a) => a.info?.question?.limit).length, { timeout: 15_000 }).toBe(1);
    const wait = loadSessionDetail(db, ws.workspace, id).pendingApprovals.find((a) => a.info?.question?.limit)!;
    const [child] = listChildren(db, id);
    expect(wait.sessionId).toBe(child.id);
    expect(wait.info?.question?.limit).toMatchObject({ scope: 'session', used: 3 * PER_REQUEST });
    expect(fake.requests.length).toBe(3);
    expect((await post(child.id, wait.toolCallId, { answer: 'deny' })).status).toBe(200);
    const chunks = await reading;
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    // stopped: neither the child nor the parent sent another request
    expect(fake.requests.length).toBe(3);
    expect(sessionSpend(db, id).tokens).toBe(3 * PER_REQUEST);
    expect(sessionSpend(db, child.id).tokens).toBe(0);
  });
});

describe('the settings route', () => {
  const put = (body: unknown) => limitsRoute.PUT(new Request('http://127.0.0.1/api/settings/limits', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  it('sets and removes limits, shows what every session spent today, refuses what is not a limit', async () => {
    const a = await turn('steps 1 r1');
    await a.reading;
    const ok = await put({ dayTokens: 500_000, sessionCostUsd: 2.5 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ limits: { sessionTokens: null, sessionCostUsd: 2.5, dayTokens: 500_000, dayCostUsd: null }, today: { tokens: 2 * PER_REQUEST, costUsd: 0 } });
    expect((await put({ dayTokens: null })).status).toBe(200);
    expect(getLimitSettings(openDb(ws.dataDir)).dayTokens).toBeNull();
    for (const bad of [{ dayTokens: 0 }, { sessionTokens: 1.5 }, { dayCostUsd: -1 }, { weekTokens: 5 }]) expect((await put(bad)).status).toBe(400);
    const got = await limitsRoute.GET(new Request('http://127.0.0.1/api/settings/limits'));
    expect(((await got.json()) as { limits: { sessionCostUsd: number } }).limits.sessionCostUsd).toBe(2.5);
  });
});

describe('a money limit', () => {
  let anthropic: Awaited<ReturnType<typeof startFakeAnthropic>>;
  beforeAll(async () => {
    anthropic = await startFakeAnthropic((req) => {
      const results = req.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result').length;
      return results < 3 ? { toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] } : { text: 'Done.' };
    });
  });
  afterAll(async () => {
    await anthropic.close();
  });

  it('pauses at a session cost limit with a model the catalogue prices', async () => {
    Object.assign(process.env, { CLAMP_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: anthropic.url });
    setLimitSettings(openDb(ws.dataDir), { sessionCostUsd: 0.01 });
    const { id, reading } = await turn('read it three times');
    const wait = await limitWait(id);
    const hit = wait.info!.question!.limit!;
    expect(hit).toMatchObject({ scope: 'session', unit: 'usd', limit: 0.01 });
    // the money counted is the ledger's: the catalogue's prices of the requests sent
    const ledger = ledgerOfSession(cfg, id);
    expect(ledger.totals.costUsd).not.toBeNull();
    expect(hit.used).toBeCloseTo(ledger.totals.costUsd!, 9);
    expect(hit.used).toBeGreaterThanOrEqual(0.01);
    expect(anthropic.requests.length).toBe(ledger.totals.steps);
    const sent = anthropic.requests.length;
    expect((await post(id, wait.toolCallId, { answer: 'once', reply: '$5' })).status).toBe(200);
    expect((await reading).at(-1)).toMatchObject({ type: 'finish' });
    expect(anthropic.requests.length).toBe(4);
    expect(sent).toBeLessThan(4);
    expect(getSessionLimits(openDb(ws.dataDir), id).costUsd).toBe(5);
    expect(fs.existsSync(path.join(ws.dataDir, 'clamp.db'))).toBe(true);
  });
});
