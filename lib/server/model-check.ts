import path from 'node:path';
import { BUDGET } from '../contract/budget';
import type { ModelCheck, ModelCheckRequest, SecretName } from '../contract/protocol';
import { resolveModel, type ProviderName } from '../agent/providers';
import { loadScript } from '../agent/scripted-model';
import { providerRow, type ProviderRow } from '../contract/providers';
import { readSecrets, SECRET_ENV } from '../store/secrets';

/**
 * Settings "Test connection" (and the test on Save): reach the provider with the settings as the dialog
 * holds them, list its models, and say in the dialog's words what is wrong. Every answer names what the
 * person did (the file they gave, the URL they typed), never an environment variable they did not use.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface CheckOptions {
  dataDir: string;
  env?: Env;
  timeoutMs?: number;
}

interface Key {
  value: string;
  /** where it came from, as the person would say it */
  from: string;
}

const fail = (message: string): ModelCheck => ({ ok: false, message, models: [], reached: false, pick: null });

/** The key to try: the one typed in the dialog, the stored one, then the environment's (named: the person set it). */
function keyFor(name: SecretName, typed: string | null | undefined, dataDir: string, env: Env): Key | undefined | { error: string } {
  if (typed) return { value: typed, from: 'the key you typed' };
  let stored: string | undefined;
  try {
    stored = readSecrets(dataDir)[name];
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (stored) return { value: stored, from: 'the stored key' };
  const v = env[SECRET_ENV[name]];
  return v ? { value: v, from: `the key in ${SECRET_ENV[name]}` } : undefined;
}

/** What a failed connection means, in the words of the URL the person gave. */
function connectionError(err: unknown, url: URL, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `${url.origin} did not answer within ${timeoutMs / 1000} s. Is the server there busy or behind a firewall?`;
  const code = e.cause?.code ?? (e as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return `Nothing listens at ${url.origin} (connection refused). Start the server there, or correct the URL.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `The host ${url.hostname} is not known (DNS lookup failed). Correct the URL.`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `${url.origin} closed the connection without answering. Is it an HTTP server? (https:// where it speaks http://, or the reverse?)`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${url.hostname} cannot be reached from this machine (${code}).`;
  return `${url.href} could not be reached: ${e.cause?.message ?? e.message}.`;
}

/** GET a JSON document within the time and size limits; an error result says what went wrong. */
async function getJson(href: string, headers: Record<string, string>, timeoutMs: number, keyFrom: string | undefined): Promise<{ body: unknown } | { error: string }> {
  const url = new URL(href);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    const reader = res.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > BUDGET.MODEL_LIST_MAX_BYTES) {
        await reader.cancel().catch(() => undefined);
        return { error: `${url.href} answered with more than ${BUDGET.MODEL_LIST_MAX_BYTES / (1024 * 1024)} MB: that is not a model list. Check the URL.` };
      }
      chunks.push(value);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    return { error: connectionError(err, url, timeoutMs) };
  }
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (res.status === 401 || res.status === 403) {
    return { error: keyFrom ? `${url.origin} refused ${keyFrom} (HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}). Paste a valid key.` : `${url.origin} asks for an API key (HTTP ${res.status}). Paste it in the API key field.` };
  }
  if (res.status === 404) return { error: `${url.href} is not there (HTTP 404): the server at ${url.origin} answers, but not with a model list. Check the URL (OpenAI-compatible servers usually end in /v1).` };
  if (!res.ok) return { error: `${url.href} answered HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}.` };
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { error: `${url.href} answered, but not with JSON (${excerpt ? `it begins “${excerpt.slice(0, 80)}”` : 'an empty body'}). Is this the right server?` };
  }
}

/** Model ids from an OpenAI-style `{ data: [{ id }] }` or Ollama's `{ models: [{ name }] }`; undefined when neither. */
function modelIds(body: unknown): string[] | undefined {
  const b = body as { data?: unknown; models?: unknown } | null;
  const list = Array.isArray(b?.data) ? b.data : Array.isArray(b?.models) ? b.models : undefined;
  if (!list) return undefined;
  const ids = list.map((m: { id?: unknown; name?: unknown; model?: unknown }) => m?.id ?? m?.name ?? m?.model).filter((x): x is string => typeof x === 'string');
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b)).slice(0, BUDGET.MODEL_LIST_MAX_ITEMS);
}

/** The listed id that is the model, or the model with a suffix (claude-sonnet-4-5 → …-20250929, qwen3 → qwen3:latest); null when none is. */
function listedAs(models: string[], model: string): string | null {
  return models.find((m) => m === model) ?? models.find((m) => m.startsWith(`${model}-`) || m.startsWith(`${model}:`)) ?? null;
}

function checkScript(model: string | null): ModelCheck {
  if (!model) return fail('Enter the path of a script file as the model: a JSON list of model turns (docs/scripted-model.md).');
  const file = path.resolve(/*turbopackIgnore: true*/ model);
  try {
    const turns = loadScript(file);
    return { ok: true, message: `The script ${file} has ${turns.length} turn${turns.length === 1 ? '' : 's'}. It replays them; it is not a real model.`, models: [], reached: false, pick: null };
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** How each way of sending a key is written in a request's headers. */
const AUTH: Record<NonNullable<ProviderRow['listing']>['auth'], (key: string | undefined) => Record<string, string>> = {
  'x-api-key': (key) => ({ 'x-api-key': key!, 'anthropic-version': '2023-06-01' }),
  bearer: (key): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {}),
  none: () => ({}),
};

/**
 * Where a provider lists its models, and how to ask: its row's listing at the base URL typed (for a
 * server the person names), else the environment's, else the API's own (the same base URL the
 * provider's client uses).
 */
export function listRequest(row: ProviderRow, baseUrl: string | null, key: Key | undefined, env: Env): { url: string; headers: Record<string, string>; what: string } | { error: string } {
  const listing = row.listing!;
  const e = row.endpoint;
  const u = (e.setting ? baseUrl : null) || e.env.map((k) => env[k]).find(Boolean) || e.default;
  if (!u) return { error: row.fields.baseUrl?.missing ?? `Enter the base URL of the ${row.name} server.` };
  let base = u.replace(/\/+$/, '');
  if (listing.root && e.apiPath && base.endsWith(e.apiPath)) base = base.slice(0, -e.apiPath.length);
  return { url: `${base}${listing.path}`, headers: AUTH[listing.auth](key?.value), what: listing.what };
}

/** What the list says of the model asked for: the default, the only one listed, a listed one, or a choice left. */
function judgeModel(row: ProviderRow, models: string[], model: string | null, answer: (ok: boolean, message: string, pick?: string | null) => ModelCheck): ModelCheck {
  if (row.listing?.empty && models.length === 0) return answer(false, row.listing.empty);
  if (!model) {
    if (row.defaultModel) return answer(true, `With Model empty, Clamp uses ${row.defaultModel}.`);
    // the only model there is: the dialog fills it in, so Save saves it
    if (models.length === 1) return answer(true, `Clamp uses ${models[0]}, the only one listed; it is filled in as the Model.`, models[0]);
    return answer(false, 'Pick the model to use from the list.');
  }
  const pick = listedAs(models, model);
  if (models.length > 0 && !pick) return answer(false, `“${model}” is not one of them: pick a listed model, or check the name.`);
  return answer(true, `${model} ${models.length ? 'is one of them' : 'could not be checked against the list'}.`, pick);
}

/** Reach a provider that lists its models, with the key it needs, and judge the model against the list. */
async function checkListed(row: ProviderRow, req: ModelCheckRequest, opts: CheckOptions, env: Env): Promise<ModelCheck> {
  const model = req.model?.trim() || null;
  const baseUrl = req.baseUrl?.trim() || null;
  if (baseUrl && !(/^https?:\/\//i.test(baseUrl) && URL.canParse(baseUrl))) return fail(`${baseUrl} is not a URL. Write it as http://host:port${row.endpoint.apiPath ? '' : '/v1'}.`);
  const key = row.secret?.onPage ? keyFor(row.secret.name as SecretName, req.key, opts.dataDir, env) : undefined;
  if (key && 'error' in key) return fail(key.error);
  if (!key && row.secret?.required) return fail(`The ${row.name} provider needs an API key: paste it in the API key field.`);
  const ask = listRequest(row, baseUrl, key, env);
  if ('error' in ask) return fail(ask.error);
  const got = await getJson(ask.url, ask.headers, opts.timeoutMs ?? BUDGET.MODEL_LIST_TIMEOUT_MS, key?.from);
  if ('error' in got) return fail(got.error);
  const models = modelIds(got.body);
  if (!models) return fail(`${ask.url} answered, but not with a model list. Is this ${row.listing!.kind}?`);
  const reached = `Reached ${ask.what} at ${new URL(ask.url).origin}: ${models.length} model${models.length === 1 ? '' : 's'} listed.`;
  // the connection worked from here on: what is left to say is about the model
  return judgeModel(row, models, model, (ok, message, pick = null) => ({ ok, message: `${reached} ${message}`, models, reached: true, pick }));
}

/** Check model settings as the dialog holds them. Never throws; bounded by timeoutMs. */
export async function checkModel(req: ModelCheckRequest, opts: CheckOptions): Promise<ModelCheck> {
  const env = opts.env ?? process.env;
  const row = providerRow(req.provider);
  if (row) return row.listing ? checkListed(row, req, opts, env) : checkScript(req.model?.trim() || null);
  // "first one found configured": what the environment gives
  let keys: ReturnType<typeof readSecrets> = {};
  try {
    keys = readSecrets(opts.dataDir);
  } catch (err) {
    return fail((err as Error).message);
  }
  const r = resolveModel(env, {}, keys);
  if (!r.ok) return fail(r.status.help ?? 'No model is configured. Choose a provider.');
  const inner = await checkModel({ provider: r.status.provider as ProviderName, model: r.status.model, baseUrl: null, key: null }, opts);
  return { ...inner, message: `No provider chosen, so Clamp uses ${r.status.label}. ${inner.message}` };
}
