import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { z } from 'zod';
import { createRegistry } from '../../lib/dispatch/registry';
import { defineTool, type ToolOutput, type ToolResult } from '../../lib/contract/types';
import { runTurn } from '../../lib/agent/run-turn';
import { createScriptedModel } from '../../lib/agent/scripted-model';
import type { ClampMessage } from '../../lib/contract/protocol';
import { RowView } from '../../components/message-view';
import { rowsOf } from '../../components/chat-rows';
import { tempWorkspace } from '../helpers';
import { memoryHost } from '../agent/memory-host';

/**
 * A tool no component has heard of: registered here only, with a meta that uses the kinds every
 * card knows (diff, exit code, task, log) and a field of its own. The real loop runs it; the real
 * list's rows (chat-rows.ts, RowView) render the stored message.
 */
interface ProbeMeta {
  station: string;
  diff: string;
  exitCode: number | null;
  taskId: string;
  logPath: string;
}

const probe = defineTool({
  name: 'weather_probe',
  effect: 'read',
  schema: z.strictObject({ city: z.string() }),
  describe: () => 'Probes the weather (test tool).',
  summary: (input, r?: ToolResult<ProbeMeta>) => (r?.meta?.station ? `${input.city} at ${r.meta.station}` : `${input.city} (asking)`),
  async run(input): Promise<ToolOutput<ProbeMeta>> {
    return {
      output: `It rains in ${input.city}.`,
      status: 'error',
      meta: { station: 'LFPG', diff: '--- a/sky\n+++ b/sky\n@@ -1 +1 @@\n-sun\n+rain\n', exitCode: 3, taskId: 't9', logPath: '/tmp/probe.log' },
    };
  },
});

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

async function runProbe(): Promise<{ message: ClampMessage; chunks: UIMessageChunk[] }> {
  const h = memoryHost(ws.workspace, ws.dataDir, 'default');
  const model = createScriptedModel([{ toolCalls: [{ name: 'weather_probe', args: { city: 'Paris' }, id: 'p1' }] }, { text: 'done' }]);
  let saved: ClampMessage[] = [];
  const stream = runTurn({
    host: h.host,
    reg: createRegistry([probe]),
    model,
    status: { configured: true, provider: 'scripted', model: 't', label: 'test model', windowTokens: 200_000, windowSource: { kind: 'settings', detail: 'test' }, scripted: true },
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather?' }] }],
    signal: new AbortController().signal,
    approvalSecret: 'test-secret-test-secret-test-secret',
    maxRetries: 0,
    save: (m) => (saved = m),
  });
  const [a, b] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collect = (async () => {
    const reader = a.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // copied as it arrives: the SDK updates a data part in place when its id comes again
      chunks.push(structuredClone(value));
    }
  })();
  for await (const _m of readUIMessageStream<ClampMessage>({ stream: b })) void _m;
  await collect;
  return { message: saved.at(-1)!, chunks };
}

/** The message as the virtualised list renders it: its rows, one RowView each. */
function render(message: ClampMessage): string {
  return rowsOf([message])
    .map((row) => renderToStaticMarkup(createElement(RowView, { row, cuts: new Map(), pruned: new Map(), idle: true })))
    .join('');
}

describe('the generic tool card', () => {
  it('renders a newly registered tool from its summary and meta kinds, with no component change', async () => {
    const { message, chunks } = await runProbe();
    // the summary went out twice: from the input, then with the result (same id: the second replaces the first)
    const lines = chunks.filter((c) => c.type === 'data-tool-summary');
    expect(lines).toEqual([
      { type: 'data-tool-summary', id: 'summary-p1', data: { toolCallId: 'p1', summary: 'Paris (asking)' } },
      { type: 'data-tool-summary', id: 'summary-p1', data: { toolCallId: 'p1', summary: 'Paris at LFPG' } },
    ]);
    expect(message.parts.filter((p) => p.type === 'data-tool-summary')).toHaveLength(1);

    const html = render(message);
    const card = /<div[^>]*data-tool-call-id="p1"[\s\S]*/.exec(html)?.[0] ?? '';
    expect(card).toContain('weather_probe');
    expect(card).toContain('Paris at LFPG');
    expect(card).not.toContain('Paris (asking)');
    // an error with an exit code and a diff opens by default
    expect(card).toContain('aria-expanded="true"');
    expect(card).toContain('exit 3');
    expect(card).toContain('aria-label="Diff of weather_probe Paris at LFPG"');
    expect(card).toContain('+1</span>');
    expect(card).toContain('Open full log');
    expect(card).toContain('Open task t9 log');
    // the tool's own field is not one the card knows: it does not show up as a guess
    expect(card).not.toContain('station');
  });

  it('falls back to the input for a call with no summary (a message stored before tools declared one)', () => {
    const message: ClampMessage = {
      id: 'a1',
      role: 'assistant',
      parts: [
        {
          type: 'tool-read_file',
          toolCallId: 'r1',
          state: 'output-available',
          input: { path: 'src/a.ts' },
          output: { status: 'ok', output: '1\tx', truncation: null, meta: { path: 'src/a.ts', offset: 1, lastLine: 1, totalLines: 1, totalLinesExact: true, sizeBytes: 1 } },
        },
      ],
    };
    const html = render(message);
    expect(html).toContain('{&quot;path&quot;:&quot;src/a.ts&quot;}');
    expect(html).not.toContain('exit ');
  });
});
