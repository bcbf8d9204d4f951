import type { ServerConfig } from './http';
import { boardOf } from './board';

/** How often a board stream looks for a change (cheap: a session's stats are read again only when it changed). */
const BOARD_LOOK_MS = 1000;
const PING_MS = 15_000;

/**
 * The board as server-sent events: the whole BoardAnswer first, then again each time it changes (looked at every
 * second), with a ping comment every 15 s, until the page goes.
 */
export function boardEventStream(cfg: ServerConfig, signal: AbortSignal): Response {
  const enc = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let last = '';
      const send = (s: string) => {
        try {
          controller.enqueue(enc.encode(s));
        } catch {
          cleanup();
        }
      };
      const look = () => {
        let now: string;
        try {
          now = JSON.stringify(boardOf(cfg));
        } catch (err) {
          // the store is closing (shutdown) or failed: the page keeps what it has and the stream tries again
          console.error('clamp: the board could not be read:', err);
          return;
        }
        if (now !== last) send(`data: ${now}\n\n`);
        last = now;
      };
      look();
      const timer = setInterval(look, BOARD_LOOK_MS);
      const ping = setInterval(() => send(': ping\n\n'), PING_MS);
      cleanup = () => {
        clearInterval(timer);
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
