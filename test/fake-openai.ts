import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted reply of the fake model: text, tool calls, or an HTTP failure. */
export interface FakeReply {
  text?: string;
  toolCalls?: { name: string; args: unknown; id?: string }[];
  /** reply with this HTTP status and error body instead */
  failStatus?: number;
  failMessage?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** delay before the first chunk */
  delayMs?: number;
}

export interface FakeRequest {
  body: {
    model: string;
    messages: Array<{ role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
    tools?: Array<{ function: { name: string } }>;
    stream?: boolean;
  };
  headers: http.IncomingHttpHeaders;
}

export interface FakeOptions {
  /** the model ids GET /v1/models lists (OpenAI's shape, which Anthropic's list shares) */
  models?: string[];
  /** when set, /v1/models answers 401 unless this key comes as a Bearer token or x-api-key */
  apiKey?: string;
}

/**
 * A small OpenAI-compatible chat server on loopback: streams scripted replies as SSE chunks
 * (text deltas, tool-call argument deltas split in pieces, usage in the last chunk) and records
 * every request. Replies are chosen by a function of the request, or taken from a queue.
 * GET /v1/models lists opts.models, as OpenAI, vLLM, LM Studio and Anthropic do.
 */
export async function startFakeOpenAI(replies: FakeReply[] | ((req: FakeRequest, index: number) => FakeReply), opts: FakeOptions = {}) {
  const requests: FakeRequest[] = [];
  const modelListRequests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'GET' && /^\/v1\/models(\?|$)/.test(req.url ?? '')) {
        modelListRequests.push(req.headers);
        const given = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
        if (opts.apiKey !== undefined && given !== opts.apiKey) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: (opts.models ?? ['fake']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) }));
        return;
      }
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequest['body'];
      const fr: FakeRequest = { body, headers: req.headers };
      requests.push(fr);
      const index = requests.length - 1;
      const reply = typeof replies === 'function' ? replies(fr, index) : (replies[index] ?? { text: '(the fake model has no more replies)' });
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.failStatus) {
        res.writeHead(reply.failStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: reply.failMessage ?? 'failure', type: 'invalid_request_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const id = `chatcmpl-${index}`;
      const send = (delta: unknown, finish: string | null = null, usage?: unknown) =>
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`);
      send({ role: 'assistant', content: '' });
      if (reply.text) {
        for (let i = 0; i < reply.text.length; i += 12) send({ content: reply.text.slice(i, i + 12) });
      }
      (reply.toolCalls ?? []).forEach((c, k) => {
        const args = JSON.stringify(c.args);
        const callId = c.id ?? `call_${index}_${k}`;
        send({ tool_calls: [{ index: k, id: callId, type: 'function', function: { name: c.name, arguments: '' } }] });
        // argument deltas in small pieces, as real servers send them
        for (let i = 0; i < args.length; i += 7) send({ tool_calls: [{ index: k, function: { arguments: args.slice(i, i + 7) } }] });
      });
      const usage = reply.usage ?? { prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4), completion_tokens: 20 };
      send({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: body.model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
      res.write('data: [DONE]\n\n');
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    modelListRequests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
