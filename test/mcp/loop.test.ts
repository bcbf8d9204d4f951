import { createAnthropic } from '@ai-sdk/anthropic';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../../lib/agent/run-turn';
import type { ModelStatus } from '../../lib/contract/protocol';
import { MODEL_TAKES_IMAGES } from '../../lib/mcp/content';
import { startFakeAnthropic, type FakeAnthropicRequest } from '../fake-anthropic';
import { memoryHost } from '../agent/memory-host';
import { user } from '../agent/context-harness';
import { BIN, hubBed } from './hub-bed';

const status: ModelStatus = { configured: true, provider: 'anthropic', model: 'claude-sonnet-4-5', label: 'anthropic · claude-sonnet-4-5', windowTokens: 200_000, windowSource: { kind: 'catalogue', detail: 'test' }, scripted: false };

/** One turn of the real loop with the hub's tools, against a stand-in Anthropic that replays `calls` then answers. */
async function turn(bed: ReturnType<typeof hubBed>, calls: { name: string; args: unknown }[]) {
  const fake = await startFakeAnthropic((_req, i) => (i < calls.length ? { toolCalls: [calls[i]] } : { text: 'Done.' }));
  try {
    const t = bed.turn();
    const { host } = memoryHost(bed.ws.workspace, bed.ws.dataDir, 'default');
    host.services = { ...t.services, [MODEL_TAKES_IMAGES]: true };
    const section = t.systemSection();
    const stream = runTurn({
      host,
      reg: t.reg,
      systemExtra: section ? [section] : [],
      model: createAnthropic({ apiKey: 'test-key', baseURL: fake.url })('claude-sonnet-4-5'),
      status,
      messages: [user('use the server')],
      signal: new AbortController().signal,
      approvalSecret: 'test-secret-test-secret-test-secret',
      maxRetries: 0,
      save: () => undefined,
    });
    const chunks: UIMessageChunk[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return { requests: [...fake.requests] as FakeAnthropicRequest[], chunks };
  } finally {
    await fake.close();
  }
}

const toolNames = (r: FakeAnthropicRequest) => (r.body.tools ?? []).map((t) => t.name as string);
const systemText = (r: FakeAnthropicRequest) => (typeof r.body.system === 'string' ? r.body.system : (r.body.system ?? []).map((b) => String(b.text)).join('\n'));

describe('MCP tools in the real loop (a stand-in Anthropic)', () => {
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    bed = hubBed({ everything: { command: BIN('mcp-server-everything') } });
    await bed.hub.prepare();
  }, 60_000);
  afterAll(() => bed.close());

  it('the model is sent the MCP tools with their input_schema, and an image result comes back as an image block', async () => {
    const { requests } = await turn(bed, [{ name: 'mcp__everything__get_tiny_image', args: {} }]);
    expect(requests).toHaveLength(2);
    expect(toolNames(requests[0])).toContain('mcp__everything__echo');
    const echo = requests[0].body.tools!.find((t) => t.name === 'mcp__everything__echo')!;
    expect(echo.input_schema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    const last = requests[1].body.messages.at(-1)!;
    const result = (last.content as Array<Record<string, unknown>>).find((b) => b.type === 'tool_result')!;
    const blocks = result.content as Array<Record<string, unknown>>;
    expect(blocks[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/\[image 1: image\/png, .*attached\]/) });
    expect(blocks[1]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
  }, 60_000);

  it('deferred: the model is not sent them but reads their names in the system prompt; tool_search loads one and the next step is sent it', async () => {
    const low = hubBed({ everything: { command: BIN('mcp-server-everything') } }, { budget: { MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS: 100 } });
    try {
      await low.hub.prepare();
      const { requests } = await turn(low, [
        { name: 'tool_search', args: { query: 'select:mcp__everything__echo' } },
        { name: 'mcp__everything__echo', args: { message: 'found' } },
      ]);
      expect(requests).toHaveLength(3);
      expect(toolNames(requests[0]).filter((n) => n.startsWith('mcp__'))).toEqual([]);
      expect(toolNames(requests[0])).toContain('tool_search');
      expect(systemText(requests[0])).toContain('- mcp__everything__echo: Echoes back the input string');
      expect(toolNames(requests[1])).toContain('mcp__everything__echo');
      expect(toolNames(requests[1])).not.toContain('mcp__everything__get_sum');
      expect(JSON.stringify(requests[2].body.messages.at(-1))).toContain('Echo: found');
    } finally {
      await low.close();
    }
  }, 60_000);
});
