import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleChat } from '../../lib/server/chat';
import { answerToolCall } from '../../lib/server/approvals';
import { openDb, closeDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { loadMessages } from '../../lib/store/messages';
import { flushTracing, startTracing } from '../../lib/contract/trace-export';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';

/**
 * The page's server traced (its turns run in the server's process): a call that waits for the person gives a span
 * from its request to the answer, with the answer and the time waited; the command's run and both turns are spans
 * of the same session.
 */
interface OtlpSpan {
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }>;
}

let ws: ReturnType<typeof tempWorkspace>;
let receiver: http.Server;
const bodies: string[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  ws = tempWorkspace('clamp-traces-server-');
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  expect(await startTracing('server', { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: url })).toBe('on');
});
afterAll(async () => {
  await flushTracing();
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
  await new Promise((r) => receiver.close(r));
});

function spans(): OtlpSpan[] {
  return bodies.flatMap((b) =>
    ((JSON.parse(b) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> }).resourceSpans ?? []).flatMap((rs) =>
      (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []),
    ),
  );
}
const attr = (s: OtlpSpan, k: string) => {
  const v = s.attributes?.find((a) => a.key === k)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : v?.boolValue);
};

describe("the page's server, traced", () => {
  it("an approval's wait is a span from the request to the answer; the command's run and both turns are the session's", { timeout: 60_000 }, async () => {
    const file = path.join(ws.root, 'script.json');
    fs.writeFileSync(file, JSON.stringify([{ toolCalls: [{ name: 'run_command', args: { command: 'touch made.txt' }, id: 'c1' }] }, { text: 'done' }]));
    process.env.CLAMP_MODEL = `scripted:${file}`;
    const cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' as const };
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    const first = await readChunks(await handleChat(cfg, { sessionId: s.id, message: { id: 'u1', text: 'make a file' } }, new AbortController().signal));
    expect(first.some((c) => c.type === 'tool-approval-request')).toBe(true);
    await new Promise((r) => setTimeout(r, 400)); // the person takes a while
    answerToolCall(cfg, s.id, 'c1', { answer: 'once' });
    const msgs = loadMessages(openDb(ws.dataDir), s.id);
    await readChunks(await handleChat(cfg, { sessionId: s.id, continue: { messageId: msgs[msgs.length - 1].id } }, new AbortController().signal));
    expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(true);
    await flushTracing();

    const all = spans();
    const wait = all.find((x) => x.name === 'clamp.approval.wait');
    expect(wait, all.map((x) => x.name).join(', ')).toBeDefined();
    expect(attr(wait!, 'clamp.approval.answer')).toBe('once');
    expect(attr(wait!, 'gen_ai.tool.name')).toBe('run_command');
    expect(attr(wait!, 'gen_ai.conversation.id')).toBe(s.id);
    expect(Number(attr(wait!, 'clamp.approval.wait_ms'))).toBeGreaterThanOrEqual(400);
    const waitedNs = BigInt(wait!.endTimeUnixNano) - BigInt(wait!.startTimeUnixNano);
    expect(waitedNs).toBeGreaterThanOrEqual(400_000_000n);

    const run = all.find((x) => x.name === 'execute_tool run_command' && attr(x, 'clamp.tool.status') === 'ok');
    expect(run, all.map((x) => `${x.name}:${attr(x, 'clamp.tool.status')}`).join(', ')).toBeDefined();
    expect(attr(run!, 'gen_ai.conversation.id')).toBe(s.id);
    expect(all.filter((x) => x.name === 'invoke_agent clamp' && attr(x, 'gen_ai.conversation.id') === s.id)).toHaveLength(2);
  });
});
