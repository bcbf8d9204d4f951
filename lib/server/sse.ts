const PING_MS = 15_000;

/**
 * A server-sent events response: `start` gets a send function (each string goes out as it is; a closed stream
 * ends the feed) and returns its clean-up, called when the page goes (the request's abort) or the stream is
 * cancelled. A ping comment every 15 s keeps proxies and the browser from closing an idle stream.
 */
export function eventStream(signal: AbortSignal, start: (send: (text: string) => void) => () => void): Response {
  const enc = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (s: string) => {
        try {
          controller.enqueue(enc.encode(s));
        } catch {
          cleanup();
        }
      };
      send(': connected\n\n');
      const stop = start(send);
      const ping = setInterval(() => send(': ping\n\n'), PING_MS);
      cleanup = () => {
        stop();
        clearInterval(ping);
      };
      signal.addEventListener('abort', () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } });
}
