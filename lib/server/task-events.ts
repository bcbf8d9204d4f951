import type { TaskStreamEvent } from '../contract/protocol';
import { getTaskManager } from '../tasks/manager';

const PING_MS = 15_000;

/** The task manager's events as server-sent events, one JSON object each, with a ping comment every 15 s. */
export function taskEventStream(dataDir: string, signal: AbortSignal): Response {
  const tasks = getTaskManager(dataDir);
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
      const off = tasks.on((event) => {
        const task = tasks.get(event.taskId);
        if (!task) return;
        const e: TaskStreamEvent = { ...event, task };
        send(`data: ${JSON.stringify(e)}\n\n`);
      });
      const ping = setInterval(() => send(': ping\n\n'), PING_MS);
      cleanup = () => {
        off();
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
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
}
