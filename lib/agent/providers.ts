import type { LanguageModel } from 'ai';
import type { ModelSettings, ModelStatus } from '../contract/protocol';
import { PROVIDER_TABLE, PROVIDERS, providerRow, type Provider, type ProviderRow, type SecretName } from '../contract/providers';
import { CLIENTS, type Client } from './provider-clients';
import { contextWindowFor } from './windows';
import { imageInputFor } from './vision';

export type ProviderName = Provider;
export { PROVIDERS };

export const CONFIGURE_HELP =
  'No model is configured. Set one of these before `npm start`, or choose a provider on the settings page:\n' + PROVIDER_TABLE.map((r) => r.configure).join('\n');

/** Keys from the 0600 secrets file, by their name there (the environment's come from `env`). */
export type ProviderKeys = Partial<Record<SecretName, string>>;
type Env = Readonly<Record<string, string | undefined>>;

export interface ResolvedModel {
  ok: true;
  model: LanguageModel;
  status: ModelStatus;
  /** the server's base URL (providers whose endpoint is a setting), asked for its window by withServerWindow */
  baseUrl: string | null;
}
export interface UnresolvedModel {
  ok: false;
  status: ModelStatus;
}

function unresolved(help: string, provider: string | null = null, model: string | null = null): UnresolvedModel {
  return { ok: false, status: { configured: false, provider, model, label: 'no model', windowTokens: 0, windowSource: { kind: 'default', detail: 'no model' }, help, scripted: false } };
}

/** Parse CLAMP_MODEL (`provider:model`); the model part of `scripted:` is a file path. */
export function parseModelSpec(spec: string): { provider: ProviderName; model: string | null } | { error: string } {
  const colon = spec.indexOf(':');
  const provider = (colon === -1 ? spec : spec.slice(0, colon)) as ProviderName;
  const model = colon === -1 ? null : spec.slice(colon + 1) || null;
  if (!PROVIDERS.includes(provider)) {
    return { error: `CLAMP_MODEL=${spec} names an unknown provider "${provider}". Use provider:model with one of: ${PROVIDERS.join(', ')}.` };
  }
  return { provider, model };
}

/** The key a provider is called with: the stored one, else its environment variable's. */
function keyOf(row: ProviderRow, keys: ProviderKeys, env: Env): string | undefined {
  return row.secret ? keys[row.secret.name as SecretName] || env[row.secret.env] || undefined : undefined;
}

/** The base URL of a provider whose endpoint is a setting: the settings', the environment's, else its default, with its API path. */
function baseUrlOf(row: ProviderRow, given: string | null | undefined, env: Env): string | null {
  const e = row.endpoint;
  if (!e.setting) return null;
  const url = given ?? (e.env.map((k) => env[k]).find(Boolean) || e.default || null);
  if (!url || !e.apiPath || url.endsWith(e.apiPath) || url.endsWith(`${e.apiPath}/`)) return url;
  return `${url.replace(/\/+$/, '')}${e.apiPath}`;
}

/** What a provider still needs before it can be called, in the words of where it was configured; null when nothing. */
function missingPart(row: ProviderRow, modelId: string | null, baseUrl: string | null, apiKey: string | undefined, onPage: boolean): string | null {
  const p = row.name;
  if (row.secret?.required && !apiKey) {
    return onPage ? `The ${p} provider needs an API key: paste it in the settings.` : `The ${p} provider needs ${row.secret.env} (in the environment, or saved on the settings page).`;
  }
  if (row.endpoint.setting && !baseUrl) {
    const example = row.fields.baseUrl?.placeholder;
    return onPage
      ? `The ${p} provider needs a base URL: fill it in on the settings page (for example ${example}).`
      : `The ${p} provider needs a base URL: set ${row.endpoint.env[0]} (for example ${example}) or fill it in on the settings page.`;
  }
  if (modelId) return null;
  if (row.modelMissing) return onPage ? row.modelMissing.page : row.modelMissing.env;
  return onPage
    ? `The ${p} provider needs a model name: set it on the settings page (Test connection lists the server's models).`
    : `The ${p} provider needs a model name: CLAMP_MODEL=${p}:<model> (the name your server lists), or set it on the settings page.`;
}

/** What resolveProvider reads besides the row. */
export interface ResolveInput {
  env: Env;
  settings: Partial<ModelSettings>;
  keys: ProviderKeys;
  /** the model named (settings or spec); the row's default when null */
  modelId: string | null;
  /** the provider was chosen on the settings page: its fixes are said in the page's words, not environment variables */
  onPage: boolean;
}

/** The status of a built client: its window (settings, catalogue, or the client's own) and whether it takes images. */
function statusOf(row: ProviderRow, client: Client, modelId: string, i: ResolveInput): ModelStatus {
  const win = contextWindowFor(row.name, modelId, i.settings.contextWindow);
  const own = client.window && !i.settings.contextWindow ? client.window : null;
  return {
    configured: true,
    provider: row.name,
    model: modelId,
    label: client.label,
    windowTokens: own ? own.tokens : win.tokens,
    windowSource: own ? { kind: 'default', detail: own.detail } : win.source,
    prices: win.prices,
    scripted: !!client.scripted,
    imageInput: imageInputFor(row.name, modelId, i.settings.imageInput, i.env),
  };
}

/** One provider's model from its row: the key, base URL and model it needs, then its client. Never throws. */
export function resolveProvider(row: ProviderRow, i: ResolveInput): ResolvedModel | UnresolvedModel {
  const modelId = i.modelId ?? row.defaultModel ?? null;
  const baseUrl = baseUrlOf(row, i.settings.baseUrl, i.env);
  const apiKey = keyOf(row, i.keys, i.env);
  const missing = missingPart(row, modelId, baseUrl, apiKey, i.onPage);
  if (missing || !modelId) return unresolved(missing ?? '', row.name, modelId);
  let client: Client;
  try {
    client = CLIENTS[row.api]({ row, modelId, baseUrl, apiKey });
  } catch (err) {
    return unresolved((err as Error).message, row.name, modelId);
  }
  return { ok: true, model: client.model, status: statusOf(row, client, modelId, i), baseUrl };
}

/**
 * Decide which model to use: settings saved on the page, then CLAMP_MODEL, then the first provider whose
 * key is found. Never throws: a missing or broken configuration comes back with the exact fix in status.help.
 */
export function resolveModel(env: Env, settings: Partial<ModelSettings>, keys: ProviderKeys = {}): ResolvedModel | UnresolvedModel {
  let name: string | null = settings.provider ?? null;
  let modelId: string | null = settings.model ?? null;
  if (!name && env.CLAMP_MODEL) {
    const spec = parseModelSpec(env.CLAMP_MODEL);
    if ('error' in spec) return unresolved(spec.error);
    name = spec.provider;
    modelId = spec.model;
  }
  const row = name ? providerRow(name) : PROVIDER_TABLE.find((r: ProviderRow) => r.secret?.required && keyOf(r, keys, env));
  if (!row) return unresolved(CONFIGURE_HELP);
  return resolveProvider(row, { env, settings, keys, modelId, onPage: !!settings.provider });
}
