/**
 * One server-sent event stream shared by every tab of the page. A browser opens at most six connections to one
 * host over HTTP/1.1, and a tab holds its streams open the whole time: with each tab opening its own, a third tab's
 * requests (and a turn's stream) would wait for a connection that never frees. So the tab holding a Web Lock named
 * after the stream's URL opens the EventSource and passes what it hears to the other tabs on a BroadcastChannel;
 * when that tab closes, its lock goes to the next tab waiting, which opens the stream itself. A tab that joins asks
 * the holder how the stream stands and, with `replay`, for its last message (a stream whose every message is the
 * whole state, as the board's is). Without Web Locks or BroadcastChannel each tab opens its own stream.
 */

export interface SharedStreamHandlers {
  onMessage: (data: string) => void;
  /** the stream (re)opened: events may have been missed before */
  onOpen?: () => void;
  /** the stream dropped (the browser reconnects it, or this retries after a delay) */
  onError?: () => void;
}

export interface SharedStreamOptions {
  /** a tab that joins is given the stream's last message */
  replay?: boolean;
  /** the longest wait between two attempts after the server refused the stream */
  retryMaxMs?: number;
}

type Note = { kind: 'message'; data: string } | { kind: 'open' } | { kind: 'error' } | { kind: 'hello' };

const RETRY_MAX_MS = 15_000;

/** An EventSource that reopens after the server refused it (EventSource gives up then), with a growing delay. */
function ownStream(url: string, h: SharedStreamHandlers, retryMaxMs: number): () => void {
  let es: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempts = 0;
  let stopped = false;
  const connect = () => {
    es = new EventSource(url);
    es.onopen = () => {
      attempts = 0;
      h.onOpen?.();
    };
    es.onmessage = (m: MessageEvent<string>) => h.onMessage(m.data);
    es.onerror = () => {
      h.onError?.();
      if (es?.readyState !== EventSource.CLOSED || stopped) return;
      es.close();
      timer = setTimeout(connect, Math.min(retryMaxMs, 1000 * 2 ** attempts++));
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    es?.close();
  };
}

/** Follow the event stream at `url` together with the page's other tabs; returns the function that stops following. */
export function sharedEventSource(url: string, h: SharedStreamHandlers, o: SharedStreamOptions = {}): () => void {
  const retryMaxMs = o.retryMaxMs ?? RETRY_MAX_MS;
  if (typeof BroadcastChannel === 'undefined' || typeof navigator === 'undefined' || !navigator.locks) return ownStream(url, h, retryMaxMs);
  const channel = new BroadcastChannel(`clamp-stream:${url}`);
  const gone = new AbortController();
  let holding = false;
  let open = false;
  let last: string | null = null;
  const tell = (n: Note) => channel.postMessage(n);
  channel.onmessage = (e: MessageEvent<Note>) => {
    const n = e.data;
    if (n.kind === 'hello') {
      if (holding && open) tell({ kind: 'open' });
      if (holding && o.replay && last !== null) tell({ kind: 'message', data: last });
    } else if (!holding) {
      if (n.kind === 'message') h.onMessage(n.data);
      else if (n.kind === 'open') h.onOpen?.();
      else h.onError?.();
    }
  };
  tell({ kind: 'hello' });
  navigator.locks
    .request(`clamp-stream:${url}`, { signal: gone.signal }, async () => {
      holding = true;
      const stop = ownStream(
        url,
        {
          onMessage: (data) => {
            last = data;
            tell({ kind: 'message', data });
            h.onMessage(data);
          },
          onOpen: () => {
            open = true;
            tell({ kind: 'open' });
            h.onOpen?.();
          },
          onError: () => {
            open = false;
            tell({ kind: 'error' });
            h.onError?.();
          },
        },
        retryMaxMs,
      );
      // held until this tab stops following; then the next tab waiting takes the stream over
      await new Promise<void>((resolve) => gone.signal.addEventListener('abort', () => resolve()));
      stop();
    })
    .catch(() => {
      // aborted while waiting for the lock: this tab stopped following before it held the stream
    });
  return () => {
    gone.abort();
    channel.close();
  };
}
