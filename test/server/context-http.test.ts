import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompactionInfo, ModelStatus, SessionDetail, SessionLedger } from '../../lib/contract/protocol';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { readChunks, startClamp, type RunningClamp, stopBed } from './harness';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;

beforeAll(async () => {
  ws = tempWorkspace();
  for (let i = 0; i < 8; i++) ws.write(`src/f${i}.ts`, Array.from({ length: 60 }, (_, k) => `export const v${i}_${k} = ${k}; // file ${i}`).join('\n') + '\n');
  let reads = 0;
  fake = await startFakeOpenAI(
    (req) => {
      if (!req.body.tools) return { text: '## Goal and constraints\n- read the files\n## Next step\n- say how many were read' };
      const last = req.body.messages.at(-1)!;
      if (last.role === 'user' && String(last.content).includes('how many')) return { text: `I read ${reads} files.` };
      if (reads < 8) return { toolCalls: [{ name: 'read_file', args: { path: `src/f${reads}.ts` }, id: `call_r${reads++}` }] };
      return { text: 'Read them all.' };
    },
    { window: { tokens: 16_384 } },
  );
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
}, 240_000);

afterAll(() => stopBed(clamp, fake, ws));

describe('the session context over HTTP', () => {
  it('reports the window the server gave, keeps a ledger per step, and compacts by hand with a focus', { timeout: 120_000 }, async () => {
    const status = (await (await clamp.api('/api/status')).json()) as { model: ModelStatus };
    expect(status.model.windowTokens).toBe(16_384);
    expect(status.model.windowSource).toEqual({ kind: 'server', detail: "the server's /v1/models (max_model_len)" });

    const { session } = (await (await clamp.api('/api/sessions', { json: {} })).json()) as { session: { id: string } };
    const chat = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: 'u-1', text: 'read src/ file by file' } } });
    expect(chat.status).toBe(200);
    await readChunks(chat);

    const ledger = (await (await clamp.api(`/api/sessions/${session.id}/ledger`)).json()) as SessionLedger;
    expect(ledger.steps).toHaveLength(9);
    expect(ledger.steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ledger.totals.inputTokens.fresh).toBe(fake.requests.reduce((n, r) => n + r.promptTokens, 0));
    expect(ledger.totals.costUsd).toBeNull();

    const bad = await clamp.api(`/api/sessions/${session.id}/compact`, { json: { focus: 3 } });
    expect(bad.status).toBe(400);
    const unknown = await clamp.api('/api/sessions/nope/compact', { json: {} });
    expect(unknown.status).toBe(404);

    const before = fake.requests.length;
    const res = await clamp.api(`/api/sessions/${session.id}/compact`, { json: { focus: 'the file names' } });
    expect(res.status).toBe(200);
    const c = (await res.json()) as CompactionInfo;
    expect(c).toMatchObject({ trigger: 'manual', outcome: 'summary', firstKeptStep: 7 });
    expect(c.summary).toContain('## Next step');
    const summaryReq = fake.requests[before];
    expect(summaryReq.body.tools).toBeUndefined();
    expect(JSON.stringify(summaryReq.body.messages)).toContain('The user asked the summary to keep in particular: the file names');

    // stored after the conversation, every original message kept
    const detail = (await (await clamp.api(`/api/sessions/${session.id}`)).json()) as SessionDetail;
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(detail.messages[1].parts.filter((p) => p.type === 'tool-read_file')).toHaveLength(8);
    expect(detail.messages[2].parts.at(-1)).toMatchObject({ type: 'data-compaction', data: { id: c.id } });

    // the next turn starts from the summary
    const next = await clamp.api('/api/chat', { json: { sessionId: session.id, message: { id: 'u-2', text: 'how many did you read?' } } });
    await readChunks(next);
    const sent = fake.requests.at(-1)!.body.messages;
    expect(String(sent[1].content)).toContain('[Summary of steps 1–6 of this session');
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'how many did you read?' });
    expect(JSON.stringify(sent)).not.toContain('src/f0.ts');
  });
});
