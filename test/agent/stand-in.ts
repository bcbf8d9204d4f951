/**
 * What the loop tests share: the scripted model's status, the approval secret, one turn run to its
 * end (every chunk kept as sent, the last message the page would show, what the loop saved), and
 * the stand-in tools `peek` (a read) and `append` (a write into the workspace).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { z } from 'zod';
import { defineTool } from '../../lib/contract/types';
import { runTurn } from '../../lib/agent/run-turn';
import type { ClampMessage, ModelStatus } from '../../lib/contract/protocol';

export const TEST_APPROVAL_SECRET = 'test-secret-test-secret-test-secret';

/** The status of a scripted model: 't' labelled "test model" unless another id is given. */
export function scriptedStatus(o: { model?: string; windowTokens?: number } = {}): ModelStatus {
  return {
    configured: true,
    provider: 'scripted',
    model: o.model ?? 't',
    label: o.model ?? 'test model',
    windowTokens: o.windowTokens ?? 200_000,
    windowSource: { kind: 'settings', detail: 'test' },
    scripted: true,
  };
}

type TurnOptions = Parameters<typeof runTurn>[0];

/** What a mock model step streams: the parts, then a finish (tool calls or stop) with small usage. */
export function mockStep(parts: LanguageModelV3StreamPart[], finish: 'tool-calls' | 'stop'): { stream: ReadableStream<LanguageModelV3StreamPart> } {
  const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
  return {
    stream: new ReadableStream({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.enqueue({ type: 'finish', finishReason: { unified: finish, raw: undefined }, usage });
        c.close();
      },
    }),
  };
}

/** A mock step that says "ok". */
export const OK_TEXT: LanguageModelV3StreamPart[] = [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'ok' }, { type: 'text-end', id: 't' }];

/** One turn to its end: the scripted status, no retries and the test secret unless given. */
export async function runTestTurn(
  o: Omit<TurnOptions, 'signal' | 'approvalSecret' | 'maxRetries' | 'save' | 'status'> & Partial<Pick<TurnOptions, 'signal' | 'status' | 'maxRetries'>>,
): Promise<{ saved: ClampMessage[]; chunks: UIMessageChunk[]; last: ClampMessage | undefined }> {
  let saved: ClampMessage[] = [];
  const chunks: UIMessageChunk[] = [];
  const stream = runTurn({
    signal: new AbortController().signal,
    status: scriptedStatus(),
    maxRetries: 0,
    ...o,
    approvalSecret: TEST_APPROVAL_SECRET,
    save: (m) => (saved = m),
  });
  const [a, b] = stream.tee();
  const collect = (async () => {
    const reader = a.getReader();
    // the SDK keeps the first chunk of a data id as the message's part and updates it in place: keep each as sent
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(structuredClone(r.value));
  })();
  let last: ClampMessage | undefined;
  for await (const m of readUIMessageStream<ClampMessage>({ stream: b })) last = m;
  await collect;
  return { saved, chunks, last };
}

/** A read tool `peek` ({ n }) answering "<word> n" after `onRun` (which may wait or count). */
export function peekTool(o: { describe?: string; word?: string; onRun?: (n: number) => void | Promise<void> } = {}) {
  return defineTool({
    name: 'peek',
    effect: 'read',
    schema: z.object({ n: z.number() }),
    describe: () => o.describe ?? 'Reads nothing.',
    summary: (i) => String(i.n),
    async run(i) {
      await o.onRun?.(i.n);
      return { output: `${o.word ?? 'read'} ${i.n}` };
    },
  });
}

/** A write tool `append` ({ path, text }) into the workspace; `write` may replace the plain append (to make it racy). */
export function appendTool(o: { describe?: string; write?: (file: string, text: string) => void | Promise<void> } = {}) {
  return defineTool({
    name: 'append',
    effect: 'write',
    schema: z.object({ path: z.string(), text: z.string() }),
    paths: (i) => [{ path: i.path, access: 'write', field: 'path' }],
    describe: () => o.describe ?? 'Appends text to a file.',
    summary: (i) => i.path,
    async run(i, ctx) {
      const file = path.join(ctx.workspace, i.path);
      await (o.write ? o.write(file, i.text) : fs.appendFileSync(file, i.text));
      return { output: `appended ${i.text}` };
    },
  });
}
