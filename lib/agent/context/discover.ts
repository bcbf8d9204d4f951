import { BUDGET } from '../../contract/budget';

/** A context window a server reported, and where in its answer. */
export interface ServerWindow {
  tokens: number;
  detail: string;
}

interface Cached {
  at: number;
  value: ServerWindow | null;
}
const CACHE = new Map<string, Cached>();

type Fetch = typeof fetch;

async function getJson(fetchFn: Fetch, url: string, timeoutMs: number, init?: RequestInit): Promise<unknown> {
  try {
    const res = await fetchFn(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    return await res.json();
  } catch {
    return undefined;
  }
}

const positive = (n: unknown): number | undefined => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined);

/** The server's root: `http://host:port/v1` → `http://host:port`. */
function rootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** vLLM (and servers like it) list `max_model_len` on each model of GET /v1/models. */
async function vllm(f: Fetch, base: string, model: string, t: number): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${base.replace(/\/+$/, '')}/models`, t)) as { data?: Array<{ id?: string; max_model_len?: unknown }> } | undefined;
  const m = body?.data?.find((x) => x.id === model) ?? (body?.data?.length === 1 ? body.data[0] : undefined);
  const n = positive(m?.max_model_len);
  return n ? { tokens: n, detail: 'the server\'s /v1/models (max_model_len)' } : null;
}

/** LM Studio: GET /api/v0/models has `loaded_context_length` (what is loaded) and `max_context_length`. */
async function lmStudio(f: Fetch, root: string, model: string, t: number): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${root}/api/v0/models`, t)) as { data?: Array<{ id?: string; loaded_context_length?: unknown; max_context_length?: unknown }> } | undefined;
  const m = body?.data?.find((x) => x.id === model);
  const loaded = positive(m?.loaded_context_length);
  if (loaded) return { tokens: loaded, detail: 'LM Studio /api/v0/models (loaded_context_length)' };
  const max = positive(m?.max_context_length);
  return max ? { tokens: max, detail: 'LM Studio /api/v0/models (max_context_length)' } : null;
}

/** llama.cpp's server: GET /props has `default_generation_settings.n_ctx` (older builds: `n_ctx` at the top). */
async function llamaCpp(f: Fetch, root: string, t: number): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${root}/props`, t)) as { n_ctx?: unknown; default_generation_settings?: { n_ctx?: unknown } } | undefined;
  const n = positive(body?.default_generation_settings?.n_ctx) ?? positive(body?.n_ctx);
  return n ? { tokens: n, detail: 'llama.cpp /props (n_ctx)' } : null;
}

/**
 * Ollama: POST /api/show gives the model's trained length (`model_info["<arch>.context_length"]`) and
 * any `num_ctx` in its parameters; Ollama serves at most num_ctx when it is set.
 */
async function ollama(f: Fetch, root: string, model: string, t: number): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${root}/api/show`, t, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }) })) as
    | { parameters?: unknown; model_info?: Record<string, unknown> }
    | undefined;
  if (!body) return null;
  const numCtx = typeof body.parameters === 'string' ? positive(Number(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(body.parameters)?.[1])) : undefined;
  if (numCtx) return { tokens: numCtx, detail: 'Ollama /api/show (num_ctx)' };
  const key = Object.keys(body.model_info ?? {}).find((k) => k.endsWith('.context_length'));
  const n = key ? positive(body.model_info![key]) : undefined;
  return n ? { tokens: n, detail: `Ollama /api/show (${key})` } : null;
}

/**
 * Ask an OpenAI-compatible or Ollama server for the model's context window: vLLM's /v1/models,
 * LM Studio's /api/v0/models, llama.cpp's /props, Ollama's /api/show — each within
 * WINDOW_DISCOVERY_TIMEOUT_MS, the answer (or its absence) remembered per server and model for
 * WINDOW_DISCOVERY_CACHE_MS. Never throws; null when no server said.
 */
export async function discoverServerWindow(
  provider: string,
  baseUrl: string,
  model: string,
  o: { fetch?: Fetch; timeoutMs?: number; now?: number } = {},
): Promise<ServerWindow | null> {
  const key = `${provider} ${baseUrl} ${model}`;
  const now = o.now ?? Date.now();
  const hit = CACHE.get(key);
  if (hit && now - hit.at < BUDGET.WINDOW_DISCOVERY_CACHE_MS) return hit.value;
  const f = o.fetch ?? fetch;
  const t = o.timeoutMs ?? BUDGET.WINDOW_DISCOVERY_TIMEOUT_MS;
  const root = rootOf(baseUrl);
  const tries =
    provider === 'ollama'
      ? [() => ollama(f, root, model, t), () => vllm(f, baseUrl, model, t)]
      : [() => vllm(f, baseUrl, model, t), () => lmStudio(f, root, model, t), () => llamaCpp(f, root, t), () => ollama(f, root, model, t)];
  let value: ServerWindow | null = null;
  for (const ask of tries) {
    value = await ask();
    if (value) break;
  }
  CACHE.set(key, { at: now, value });
  return value;
}

/** Forget what servers said (tests, and a changed setting). */
export function clearWindowCache(): void {
  CACHE.clear();
}
