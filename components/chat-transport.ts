import { HttpChatTransport, jsonSchema, parseJsonEventStream, type UIMessage, type UIMessageChunk } from 'ai';

/** Every chunk as parsed: a schema with no check (the SDK skips validation when a schema has no validate). */
const unchecked = jsonSchema<UIMessageChunk>({});

/**
 * The SDK's DefaultChatTransport, less its check of each chunk against its zod schema: the chunks are Clamp's own
 * server's (the AI SDK wrote them there), and that check is what would load zod into the page (lib/ui/zod-inert.ts).
 * A chunk that is not JSON still fails the stream, as before.
 */
export class ClampChatTransport<M extends UIMessage> extends HttpChatTransport<M> {
  protected processResponseStream(stream: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> {
    return parseJsonEventStream({ stream, schema: unchecked }).pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          if (!chunk.success) throw chunk.error;
          controller.enqueue(chunk.value);
        },
      }),
    );
  }
}
