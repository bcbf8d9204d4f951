import { createUIMessageStream, createUIMessageStreamResponse, DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { ClampChatTransport } from '../../components/chat-transport';
import { z } from '../../lib/ui/zod-inert';

const CHUNKS: UIMessageChunk[] = [
  { type: 'start', messageId: 'm1' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Hello ' },
  { type: 'text-delta', id: 't1', delta: 'there' },
  { type: 'text-end', id: 't1' },
  { type: 'tool-input-available', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.txt' } },
  { type: 'tool-output-available', toolCallId: 'c1', output: { text: 'hi' } },
  { type: 'data-tool-progress', data: { toolCallId: 'c1', text: 'line' }, transient: true },
  { type: 'finish' },
];

/** The SDK's own server-side stream of CHUNKS, as the chat route sends it. */
function serverResponse(): Response {
  return createUIMessageStreamResponse({ stream: createUIMessageStream({ execute: ({ writer }) => CHUNKS.forEach((c) => writer.write(c)) }) });
}

async function chunksThrough(transport: DefaultChatTransport<UIMessage> | ClampChatTransport<UIMessage>): Promise<UIMessageChunk[]> {
  const stream = await transport.sendMessages({ trigger: 'submit-message', chatId: 's1', messageId: undefined, messages: [], abortSignal: undefined });
  const out: UIMessageChunk[] = [];
  for await (const c of stream as unknown as AsyncIterable<UIMessageChunk>) out.push(c);
  return out;
}

/** The page's chat transport: the SDK's default one less its zod check of each chunk (zod is not in the page). */
describe('ClampChatTransport', () => {
  it('gives the chunks of the server\'s stream exactly as the SDK\'s DefaultChatTransport does', async () => {
    const fetch = async () => serverResponse();
    const ours = await chunksThrough(new ClampChatTransport<UIMessage>({ api: 'http://127.0.0.1/api/chat', fetch }));
    const sdk = await chunksThrough(new DefaultChatTransport<UIMessage>({ api: 'http://127.0.0.1/api/chat', fetch }));
    expect(ours).toEqual(sdk);
    expect(ours).toEqual(CHUNKS);
  });

  it('a chunk that is not JSON fails the stream', async () => {
    const fetch = async () => new Response('data: {"type":"start"}\n\ndata: {not json\n\n', { headers: { 'content-type': 'text/event-stream' } });
    await expect(chunksThrough(new ClampChatTransport<UIMessage>({ api: 'http://127.0.0.1/api/chat', fetch }))).rejects.toThrow(/JSON/);
  });
});

/** What zod resolves to in the page's bundle: the SDK can build its schemas at load, and nothing can check with one. */
describe('the page\'s inert zod', () => {
  it('builds any schema chain, and a check against one throws, saying why', () => {
    const schema = (z as any).object({ a: (z as any).string().min(1).optional() }).refine(() => true); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(typeof schema).toBe('function');
    expect(schema.then).toBeUndefined();
    expect(() => schema.safeParse({})).toThrow(/zod is not loaded in Clamp's page \(safeParse/);
    expect(() => schema['~standard']).toThrow(/check the value on the server/);
  });
});
