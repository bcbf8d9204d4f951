import type { ServerConfig } from './http';
import { boardOf } from './board';
import { eventStream } from './sse';

/** How often a board stream looks for a change (cheap: a session's stats are read again only when it changed). */
const BOARD_LOOK_MS = 1000;

/** The board as server-sent events: the whole BoardAnswer first, then again each time it changes (looked at every second), until the page goes. */
export function boardEventStream(cfg: ServerConfig, signal: AbortSignal): Response {
  return eventStream(signal, (send) => {
    let last = '';
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
    return () => clearInterval(timer);
  });
}
