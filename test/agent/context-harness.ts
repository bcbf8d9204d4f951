import type { UIMessageChunk } from 'ai';
import { runTurn } from '../../lib/agent/run-turn';
import { resolveModel } from '../../lib/agent/providers';
import { withServerWindow } from '../../lib/agent/windows';
import { createToolRegistry } from '../../lib/dispatch/all-tools';
import type { ClampMessage, CompactionInfo, LedgerStep, ModelStatus, PrunedInfo } from '../../lib/contract/protocol';
import type { FakeReply, FakeRequest } from '../fake-openai';
import { memoryHost } from './memory-host';
import { TEST_APPROVAL_SECRET } from './stand-in';

export const user = (text: string, id = 'u1'): ClampMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** A scripted session through the fake server: `reads` read_file calls, one per step, then a closing text; summary requests (no tools) get a structured summary. */
export function readingScript(paths: (i: number) => string, reads: number): (req: FakeRequest) => FakeReply {
  let made = 0;
  return (req) => {
    if (!req.body.tools) {
      return { text: `## Goal and constraints\n- read every file\n## Decisions\n- none\n## Files\n- read ${made} files so far\n## Commands\n- none\n## Open problems\n- none\n## Plan\n- keep reading\n## Next step\n- read file ${made}` };
    }
    if (made >= reads) return { text: `Read all ${reads} files.` };
    const i = made++;
    return { text: '', toolCalls: [{ name: 'read_file', args: { path: paths(i) }, id: `call_read_${i}` }] };
  };
}

/** Resolve the openai-compatible provider at a fake server's URL, with the window the server reports. */
export async function fakeModel(url: string, contextWindow: number | null = null) {
  const r = resolveModel({ CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: url }, { contextWindow });
  if (!r.ok) throw new Error(r.status.help);
  return { model: r.model, status: await withServerWindow(r.status, r.baseUrl) };
}

/** Run one turn with the real tools; collect the chunks and what was saved. */
export async function runOne(o: { workspace: string; dataDir: string; model: Parameters<typeof runTurn>[0]['model']; status: ModelStatus; messages: ClampMessage[]; maxSteps?: number }) {
  const { host } = memoryHost(o.workspace, o.dataDir, 'default');
  let saved: ClampMessage[] = [];
  const chunks: UIMessageChunk[] = [];
  const stream = runTurn({
    host,
    reg: createToolRegistry(),
    model: o.model,
    status: o.status,
    messages: o.messages,
    signal: new AbortController().signal,
    approvalSecret: TEST_APPROVAL_SECRET,
    maxRetries: 0,
    maxSteps: o.maxSteps ?? 1000,
    save: (m) => (saved = m),
  });
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return { saved, chunks };
}

export function dataOf<T>(messages: ClampMessage[], type: string): T[] {
  return messages.flatMap((m) => m.parts.filter((p) => p.type === type).map((p) => (p as unknown as { data: T }).data));
}

export const ledgerOf = (m: ClampMessage[]) => dataOf<LedgerStep>(m, 'data-ledger');
export const compactionsOf = (m: ClampMessage[]) => dataOf<CompactionInfo>(m, 'data-compaction');
export const prunedOf = (m: ClampMessage[]) => dataOf<PrunedInfo>(m, 'data-pruned');

/** UTF-8 bytes of the tool results a request carried, as the server received them. */
export function toolBytesIn(req: FakeRequest): number {
  return req.body.messages.filter((m) => m.role === 'tool').reduce((n, m) => n + Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)), 0);
}
