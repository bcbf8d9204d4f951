import { BUDGET } from '../../contract/budget';
import { providerRow, type WindowProbe } from '../../contract/providers';
import { readServerWindows, rememberServerWindow, type RememberedWindow } from '../../store/server-windows';

/** A context window a server reported, and where in its answer. */
export interface ServerWindow {
  tokens: number;
  detail: string;
}

/** What servers said in this process, by `provider baseUrl model`. */
const CACHE = new Map<string, RememberedWindow>();

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

/** What a probe asks with: the fetch, the base URL and its root, the model, the time limit per request. */
interface ProbeQuery {
  f: Fetch;
  baseUrl: string;
  root: string;
  model: string;
  t: number;
}

/** vLLM (and servers like it) list `max_model_len` on each model of GET /v1/models. */
async function vllm({ f, baseUrl, model, t }: ProbeQuery): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${baseUrl.replace(/\/+$/, '')}/models`, t)) as { data?: Array<{ id?: string; max_model_len?: unknown }> } | undefined;
  const m = body?.data?.find((x) => x.id === model) ?? (body?.data?.length === 1 ? body.data[0] : undefined);
  const n = positive(m?.max_model_len);
  return n ? { tokens: n, detail: 'the server\'s /v1/models (max_model_len)' } : null;
}

/** LM Studio: GET /api/v0/models has `loaded_context_length` (what is loaded) and `max_context_length`. */
async function lmStudio({ f, root, model, t }: ProbeQuery): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${root}/api/v0/models`, t)) as { data?: Array<{ id?: string; loaded_context_length?: unknown; max_context_length?: unknown }> } | undefined;
  const m = body?.data?.find((x) => x.id === model);
  const loaded = positive(m?.loaded_context_length);
  if (loaded) return { tokens: loaded, detail: 'LM Studio /api/v0/models (loaded_context_length)' };
  const max = positive(m?.max_context_length);
  return max ? { tokens: max, detail: 'LM Studio /api/v0/models (max_context_length)' } : null;
}

/** llama.cpp's server: GET /props has `default_generation_settings.n_ctx` (older builds: `n_ctx` at the top). */
async function llamaCpp({ f, root, t }: ProbeQuery): Promise<ServerWindow | null> {
  const body = (await getJson(f, `${root}/props`, t)) as { n_ctx?: unknown; default_generation_settings?: { n_ctx?: unknown } } | undefined;
  const n = positive(body?.default_generation_settings?.n_ctx) ?? positive(body?.n_ctx);
  return n ? { tokens: n, detail: 'llama.cpp /props (n_ctx)' } : null;
}

/**
 * Ollama: POST /api/show gives the model's trained length (`model_info["<arch>.context_length"]`) and
 * any `num_ctx` in its parameters; Ollama serves at most num_ctx when it is set.
 */
async function ollama({ f, root, model, t }: ProbeQuery): Promise<ServerWindow | null> {
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

/** Each way a server says its window (the provider table names which to ask, in order of trust). */
const PROBES: Readonly<Record<WindowProbe, (q: ProbeQuery) => Promise<ServerWindow | null>>> = { vllm, 'lm-studio': lmStudio, 'llama.cpp': llamaCpp, ollama };

/** An answer is trusted for WINDOW_DISCOVERY_CACHE_MS after it was given (one dated later than now is not trusted: the clock moved). */
const fresh = (e: RememberedWindow | undefined, now: number): e is RememberedWindow => !!e && e.at <= now && now - e.at < BUDGET.WINDOW_DISCOVERY_CACHE_MS;

export interface DiscoverOptions {
  fetch?: Fetch;
  timeoutMs?: number;
  now?: number;
  /** where answers are remembered for the next Clamp process (none: this process only) */
  dataDir?: string;
  /** the probes to ask (default: the provider table's for the provider) */
  probes?: readonly WindowProbe[];
}

/** Ask every probe at once, each within t; the most trusted answer wins. */
async function probeAll(probes: readonly WindowProbe[], baseUrl: string, model: string, f: Fetch, t: number): Promise<ServerWindow | null> {
  const q: ProbeQuery = { f, baseUrl, root: rootOf(baseUrl), model, t };
  const answers = await Promise.all(probes.map((p) => PROBES[p](q)));
  return answers.find((a) => a !== null) ?? null;
}

/**
 * Ask an OpenAI-compatible or Ollama server for the model's context window: vLLM's /v1/models,
 * LM Studio's /api/v0/models, llama.cpp's /props, Ollama's /api/show — all at once, each within
 * WINDOW_DISCOVERY_TIMEOUT_MS. The answer (or its absence) is remembered per provider, server and model
 * for WINDOW_DISCOVERY_CACHE_MS, in this process and, with a data dir, in it for the next process.
 * Never throws; null when no server said.
 */
export async function discoverServerWindow(provider: string, baseUrl: string, model: string, o: DiscoverOptions = {}): Promise<ServerWindow | null> {
  const key = `${provider} ${baseUrl} ${model}`;
  const now = o.now ?? Date.now();
  const mine = CACHE.get(key);
  if (fresh(mine, now)) return mine.value;
  const theirs = o.dataDir ? readServerWindows(o.dataDir)[key] : undefined;
  if (fresh(theirs, now)) {
    CACHE.set(key, theirs);
    return theirs.value;
  }
  const probes = o.probes ?? providerRow(provider)?.windowProbes ?? [];
  const entry: RememberedWindow = { at: now, value: await probeAll(probes, baseUrl, model, o.fetch ?? fetch, o.timeoutMs ?? BUDGET.WINDOW_DISCOVERY_TIMEOUT_MS) };
  CACHE.set(key, entry);
  if (o.dataDir) rememberServerWindow(o.dataDir, key, entry);
  return entry.value;
}

/** Forget what servers said in this process (tests, and a changed setting); what the data dir remembers stays. */
export function clearWindowCache(): void {
  CACHE.clear();
}
