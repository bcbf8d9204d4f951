import { spawnSync } from 'node:child_process';
import http from 'node:http';

/** A raw response: status, headers and the whole body as text. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with full control of its headers (fetch cannot set Host and may add Origin).
 * `chunks` sends the body in pieces with chunked encoding and no Content-Length.
 */
export function raw(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunks?: Array<string | Buffer> },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...o.headers };
    // an empty Host means none at all (Node would otherwise put in its own)
    const setHost = headers.host !== '';
    if (!setHost) delete headers.host;
    let answered = false;
    const req = http.request({ host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers, setHost, agent: false, timeout: 20_000 }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    // the server may answer (413) and close before the whole body is sent: that is not a failure here
    req.on('timeout', () => req.destroy(new Error(`${o.method ?? 'GET'} ${o.path}: no answer in 20 s`)));
    // once the answer is in, the server may close while the rest of a refused body is still being sent
    req.on('error', (err: NodeJS.ErrnoException) => (answered && (err.code === 'EPIPE' || err.code === 'ECONNRESET') ? undefined : reject(err)));
    if (o.chunks) {
      for (const c of o.chunks) req.write(c);
      req.end();
    } else req.end(o.body);
  });
}

/** Response headers that would let another origin read or call the API. */
export function corsHeaders(h: Headers | http.IncomingHttpHeaders): string[] {
  const names = h instanceof Headers ? [...h.keys()] : Object.keys(h);
  return names.filter((n) => n.toLowerCase().startsWith('access-control-'));
}

/** Pids of running processes whose command line contains the marker (pgrep -f; the marker must be regex-safe). */
export function pidsMatching(marker: string): number[] {
  const out = spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

/** Poll until no process matches the marker; returns what is still running after timeoutMs. */
export async function waitNoProcess(marker: string, timeoutMs: number): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const pids = pidsMatching(marker);
    if (pids.length === 0 || Date.now() >= until) return pids;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Kill what the test started and left behind (only pids matching our own unique marker). */
export function killMatching(marker: string): void {
  for (const pid of pidsMatching(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * Read a streamed response until its text satisfies `until` (or it ends); returns the text so far
 * and a promise of the rest of it (which rejects quietly when the server dies).
 */
export async function readUntil(res: Response, until: (text: string) => boolean, timeoutMs: number): Promise<{ text: string; rest: Promise<string> }> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!until(text)) {
    if (Date.now() > deadline) throw new Error(`the stream did not show what was awaited in ${timeoutMs} ms; so far:\n${text.slice(-2000)}`);
    const { done, value } = await reader.read();
    if (done) return { text, rest: Promise.resolve(text) };
    text += dec.decode(value, { stream: true });
  }
  const rest = (async () => {
    let more = text;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return more;
        more += dec.decode(value, { stream: true });
      }
    } catch {
      return more;
    }
  })();
  return { text, rest };
}

/** The SSE data lines of a UI message stream's text, parsed. */
export function chunksOf(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** A user message for POST /api/chat. */
export function userMessage(sessionId: string, id: string, text: string) {
  return { sessionId, message: { id, text } };
}
