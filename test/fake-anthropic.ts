import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** One scripted reply: text and/or tool calls. */
export interface FakeAnthropicReply {
  text?: string;
  toolCalls?: { name: string; args: unknown; id?: string }[];
}

type Block = Record<string, unknown> & { cache_control?: unknown };

export interface FakeAnthropicRequest {
  body: { model: string; system?: Block[] | string; messages: Array<{ role: string; content: Block[] | string }>; tools?: Block[]; stream?: boolean; max_tokens?: number };
  /** where the request put cache breakpoints: 'tools[i]', 'system[i]', 'messages[i].content[j]' */
  breakpoints: string[];
  usage: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
}

/**
 * A stand-in for Anthropic's Messages API on loopback: streams scripted replies as Anthropic's SSE
 * events, records every request with the cache_control breakpoints it set, and counts cache reads
 * and writes as the real API does — a prefix (tools, system, messages, in that order) up to a
 * breakpoint is written once and read back by a later request that repeats it byte for byte.
 */
export async function startFakeAnthropic(replies: (req: FakeAnthropicRequest, index: number) => FakeAnthropicReply) {
  const requests: FakeAnthropicRequest[] = [];
  const cache = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeAnthropicRequest['body'];
      // the prompt as one sequence of blocks, with the names of those that carry a breakpoint
      const blocks: { name: string; block: Block }[] = [];
      (body.tools ?? []).forEach((b, i) => blocks.push({ name: `tools[${i}]`, block: b }));
      const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
      system.forEach((b, i) => blocks.push({ name: `system[${i}]`, block: b }));
      body.messages.forEach((m, i) => {
        const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
        content.forEach((b, j) => blocks.push({ name: `messages[${i}].content[${j}]`, block: { role: m.role, ...b } }));
      });
      const tokensTo = (k: number) => countTokens(blocks.slice(0, k + 1).map((b) => JSON.stringify({ ...b.block, cache_control: undefined })).join('\n'));
      const keyTo = (k: number) => crypto.createHash('sha256').update(blocks.slice(0, k + 1).map((b) => JSON.stringify({ ...b.block, cache_control: undefined })).join('\n')).digest('hex');
      const marks = blocks.map((b, k) => (b.block.cache_control ? k : -1)).filter((k) => k !== -1);
      const total = blocks.length ? tokensTo(blocks.length - 1) : 0;
      let read = 0;
      for (const k of marks) if (cache.has(keyTo(k))) read = Math.max(read, cache.get(keyTo(k))!);
      let write = 0;
      const lastMark = marks.at(-1);
      if (lastMark !== undefined && !cache.has(keyTo(lastMark))) write = tokensTo(lastMark) - read;
      for (const k of marks) cache.set(keyTo(k), tokensTo(k));
      const usage = { input_tokens: Math.max(0, total - read - write), cache_read_input_tokens: read, cache_creation_input_tokens: write };
      const fr: FakeAnthropicRequest = { body, breakpoints: marks.map((k) => blocks[k].name), usage };
      requests.push(fr);
      const reply = replies(fr, requests.length - 1);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
      send('message_start', { message: { id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
      let index = 0;
      if (reply.text) {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index, delta: { type: 'text_delta', text: reply.text } });
        send('content_block_stop', { index });
        index++;
      }
      for (const c of reply.toolCalls ?? []) {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: c.id ?? `toolu_${requests.length}_${index}`, name: c.name, input: {} } });
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.args) } });
        send('content_block_stop', { index });
        index++;
      }
      send('message_delta', { delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } });
      send('message_stop', {});
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
