import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { closeDb } from '../../lib/store/db';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';

/**
 * Traces over OTLP/HTTP: a headless run pointed at a local receiver sends its spans (the turn, the model's calls
 * with their token counts, each tool call) before it exits; without the endpoint nothing is sent; prompts and tool
 * outputs stay out of the spans unless the person turns recording on.
 */

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: OtlpAttr[];
}
interface Received {
  url: string;
  contentType: string;
  body: string;
}

const BIN = path.join(ROOT, 'bin/clamp.mjs');
const BARE_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|OTEL_|INIT_CWD$)/.test(k)),
) as unknown as NodeJS.ProcessEnv;
const CANARY = 'PROMPT-CANARY-7f3a';
const FILE_CANARY = 'FILE-CANARY-91bc';

let ws: ReturnType<typeof tempWorkspace>;
let received: Received[] = [];
let receiver: http.Server;
let receiverUrl = '';

function startReceiver(): Promise<void> {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

function spansOf(r: Received[]): OtlpSpan[] {
  return r.flatMap((x) => {
    const doc = JSON.parse(x.body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
    return (doc.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []));
  });
}

function attr(s: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue;
}

function clampRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', ...args], {
      cwd: ws.workspace,
      env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A model that reads notes.txt, then answers; its usage is reported in the stream's last chunk. */
function readingModel() {
  return startFakeOpenAI((req) => {
    const last = req.body.messages.at(-1)!;
    if (last.role === 'tool') return { text: 'Read it.', usage: { prompt_tokens: 321, completion_tokens: 12 } };
    return { text: 'Reading.', toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'call_read_1' }], usage: { prompt_tokens: 300, completion_tokens: 20 } };
  });
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-traces-');
  ws.write('notes.txt', `${FILE_CANARY}\n`);
  await startReceiver();
});
afterAll(async () => {
  closeDb(ws.dataDir);
  ws.cleanup();
  await new Promise((r) => receiver.close(r));
});

describe('traces over OTLP/HTTP', () => {
  it("a headless run sends its spans before it exits: the turn, the model's calls with token counts, the tool call, the session", { timeout: 120_000 }, async () => {
    received = [];
    const fake = await readingModel();
    try {
      const r = await clampRun([`look at notes.txt ${CANARY}`], {
        CLAMP_MODEL: 'openai-compatible:fake-coder',
        CLAMP_BASE_URL: fake.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Read it.');
    } finally {
      await fake.close();
    }
    // the exporter's own path and format
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((x) => x.url === '/v1/traces')).toBe(true);
    expect(received[0].contentType).toContain('application/json');
    const spans = spansOf(received);
    const names = spans.map((s) => s.name);

    const turn = spans.find((s) => s.name === 'invoke_agent clamp');
    expect(turn, names.join(', ')).toBeDefined();
    const session = attr(turn!, 'gen_ai.conversation.id');
    expect(session).toMatch(/\S/);

    const tool = spans.find((s) => s.name === 'execute_tool read_file');
    expect(tool, names.join(', ')).toBeDefined();
    expect(attr(tool!, 'gen_ai.tool.name')).toBe('read_file');
    expect(attr(tool!, 'gen_ai.tool.call.id')).toBe('call_read_1');
    expect(attr(tool!, 'gen_ai.conversation.id')).toBe(session);
    expect(attr(tool!, 'clamp.tool.status')).toBe('ok');
    expect(attr(tool!, 'clamp.tool.side_effect')).toBe('read');
    // every span of the run is one trace, under the turn
    expect(new Set(spans.filter((s) => s.name !== 'clamp.approval.wait').map((s) => s.traceId)).size).toBe(1);

    // the AI SDK's model calls, with the GenAI token counts the model reported
    const calls = spans.filter((s) => attr(s, 'gen_ai.usage.input_tokens') !== undefined);
    expect(calls.map((s) => attr(s, 'gen_ai.usage.input_tokens'))).toEqual(expect.arrayContaining([300, 321]));
    expect(calls.map((s) => attr(s, 'gen_ai.usage.output_tokens'))).toEqual(expect.arrayContaining([20, 12]));
    expect(calls.some((s) => attr(s, 'gen_ai.request.model') === 'fake-coder')).toBe(true);

    // content is not recorded by default: neither the prompt nor the file's text is in any span
    const all = received.map((x) => x.body).join('\n');
    expect(all).not.toContain(CANARY);
    expect(all).not.toContain(FILE_CANARY);
  });

  it('records the prompt and the tool output only when CLAMP_OTEL_RECORD_CONTENT=1', { timeout: 120_000 }, async () => {
    received = [];
    const fake = await readingModel();
    try {
      const r = await clampRun([`look at notes.txt ${CANARY}`], {
        CLAMP_MODEL: 'openai-compatible:fake-coder',
        CLAMP_BASE_URL: fake.url,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiverUrl}/v1/traces`,
        CLAMP_OTEL_RECORD_CONTENT: '1',
      });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await fake.close();
    }
    const all = received.map((x) => x.body).join('\n');
    expect(all).toContain(CANARY);
    const tool = spansOf(received).find((s) => s.name === 'execute_tool read_file');
    expect(String(attr(tool!, 'gen_ai.tool.call.result'))).toContain(FILE_CANARY);
  });

  it('sends nothing without OTEL_EXPORTER_OTLP_ENDPOINT', { timeout: 120_000 }, async () => {
    received = [];
    const fake = await readingModel();
    try {
      const r = await clampRun(['look at notes.txt'], { CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Read it.');
    } finally {
      await fake.close();
    }
    expect(received).toEqual([]);
  });
});
