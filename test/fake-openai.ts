import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** One scripted reply of the fake model: text, tool calls, or an HTTP failure. */
export interface FakeReply {
  text?: string;
  /** tool calls; `rawArgs` sends that text as the arguments instead of JSON of `args` (malformed JSON) */
  toolCalls?: { name: string; args?: unknown; rawArgs?: string; id?: string }[];
  /** size of each tool-call argument delta (default 7, as small as real servers send) */
  argChunkChars?: number;
  /** reply with this HTTP status and error body instead */
  failStatus?: number;
  failMessage?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** delay before the first chunk */
  delayMs?: number;
  /** hold the reply until this settles (e.g. until other requests have arrived), then send it */
  hold?: Promise<unknown>;
}

export interface FakeRequest {
  body: {
    model: string;
    messages: Array<{ role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
    tools?: Array<{ function: { name: string } }>;
    stream?: boolean;
  };
  headers: http.IncomingHttpHeaders;
  /** the request's prompt tokens as this server counts them (o200k_base over the wire messages and tools) */
  promptTokens: number;
  /** answered with a context-length error */
  overWindow: boolean;
  /** performance.now() in this process when the request's first byte (its headers) arrived */
  arrivedAtMs: number;
  /** performance.now() when the reply was fully sent (undefined until then) */
  answeredAtMs?: number;
}

/** A context window the server enforces, and how it says a request is over it. */
export interface FakeWindow {
  tokens: number;
  /** the error body of the server imitated: OpenAI/vLLM (`context_length_exceeded`) or llama.cpp (`exceed_context_size_error`) */
  style?: 'openai' | 'llamacpp';
}

const MESSAGE_OVERHEAD_TOKENS = 4;
const counted = new Map<string, number>();
/** countTokens, remembered: long sessions send the same texts at every step. */
function tokens(text: string): number {
  let n = counted.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (counted.size > 50_000) counted.clear();
    counted.set(text, n);
  }
  return n;
}

/** Prompt tokens of a chat request: every message's text (tool calls as their JSON) plus a few per message, and the tool definitions. */
export function promptTokensOf(body: FakeRequest['body']): number {
  let n = body.tools ? tokens(JSON.stringify(body.tools)) : 0;
  for (const m of body.messages) {
    const content = typeof m.content === 'string' ? m.content : m.content == null ? '' : JSON.stringify(m.content);
    n += MESSAGE_OVERHEAD_TOKENS + tokens(content) + (m.tool_calls ? tokens(JSON.stringify(m.tool_calls)) : 0);
  }
  return n;
}

/** The error body a real server sends for an over-window request. */
function overWindowBody(w: FakeWindow, prompt: number): unknown {
  if (w.style === 'llamacpp') {
    return { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: prompt, n_ctx: w.tokens } };
  }
  return {
    error: {
      message: `This model's maximum context length is ${w.tokens} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}

export interface FakeOptions {
  /** a context window the server enforces (and reports as max_model_len in its model list, as vLLM does) */
  window?: FakeWindow;
  /** the model ids GET /v1/models lists (OpenAI's shape, which Anthropic's list shares); default fake-coder with a window, else none */
  models?: string[];
  /** when set, /v1/models answers 401 unless this key comes as a Bearer token or x-api-key */
  apiKey?: string;
}

/**
 * A small OpenAI-compatible chat server on loopback: streams scripted replies as SSE chunks
 * (text deltas, tool-call argument deltas split in pieces, usage in the last chunk) and records
 * every request. Replies are chosen by a function of the request, or taken from a queue.
 * GET /v1/models lists o.models, as OpenAI, vLLM, LM Studio and Anthropic do.
 */
export async function startFakeOpenAI(replies: FakeReply[] | ((req: FakeRequest, index: number) => FakeReply), o: FakeOptions = {}) {
  const requests: FakeRequest[] = [];
  const modelListRequests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    const arrivedAtMs = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'GET' && /\/models(\?|$)/.test(req.url ?? '')) {
        modelListRequests.push(req.headers);
        const given = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
        if (o.apiKey !== undefined && given !== o.apiKey) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } }));
          return;
        }
        // as vLLM lists its models: max_model_len is the window it was started with
        const ids = o.models ?? (o.window ? ['fake-coder'] : []);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: o.window ? 'vllm' : 'fake', ...(o.window ? { max_model_len: o.window.tokens } : {}) })) }));
        return;
      }
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequest['body'];
      const promptTokens = promptTokensOf(body);
      const fr: FakeRequest = { body, headers: req.headers, promptTokens, overWindow: !!o.window && promptTokens > o.window.tokens, arrivedAtMs };
      res.on('finish', () => (fr.answeredAtMs = performance.now()));
      requests.push(fr);
      const index = requests.length - 1;
      if (fr.overWindow && o.window) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(overWindowBody(o.window, promptTokens)));
        return;
      }
      const reply = typeof replies === 'function' ? replies(fr, index) : (replies[index] ?? { text: '(the fake model has no more replies)' });
      if (reply.hold) await reply.hold;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.failStatus) {
        res.writeHead(reply.failStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: reply.failMessage ?? 'failure', type: 'invalid_request_error' } }));
        return;
      }
      if (body.stream === false || body.stream === undefined) {
        // a plain (non-streaming) completion, as generateText asks for
        const usage = reply.usage ?? { prompt_tokens: promptTokens, completion_tokens: 20 };
        const toolCalls = (reply.toolCalls ?? []).map((c, k) => ({ id: c.id ?? `call_${index}_${k}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${index}`,
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: reply.text ?? '', ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          }),
        );
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
        const args = c.rawArgs ?? JSON.stringify(c.args ?? {});
        const step = reply.argChunkChars ?? 7;
        const callId = c.id ?? `call_${index}_${k}`;
        send({ tool_calls: [{ index: k, id: callId, type: 'function', function: { name: c.name, arguments: '' } }] });
        // argument deltas in small pieces, as real servers send them
        for (let i = 0; i < args.length; i += step) send({ tool_calls: [{ index: k, function: { arguments: args.slice(i, i + step) } }] });
      });
      const usage = reply.usage ?? { prompt_tokens: promptTokens, completion_tokens: 20 };
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

/** The text of a request's newest user message and how many tool results follow it: where a scripted turn stands. */
export function turnPosition(req: FakeRequest): { text: string; results: number } {
  const msgs = req.body.messages;
  let i = msgs.length - 1;
  let results = 0;
  for (; i >= 0 && msgs[i].role !== 'user'; i--) if (msgs[i].role === 'tool') results++;
  const c = i >= 0 ? msgs[i].content : '';
  return { text: typeof c === 'string' ? c : JSON.stringify(c), results };
}
