/**
 * The provider table: one row per model provider Clamp knows, read by every layer — the settings page
 * (its fields), the REST schemas (the names and keys they accept), the secrets file (which keys), the
 * agent (how to reach the model, its window, images, caching) and the settings' connection test (where
 * the models are listed). A provider that speaks an API Clamp already has a client for is one row here;
 * a new API adds its client in lib/agent/provider-clients.ts.
 */

/** The client a provider is reached with (lib/agent/provider-clients.ts builds each). */
export type ProviderApi = 'anthropic' | 'openai' | 'openai-compatible' | 'scripted';

/** The ways a local server says its context window (lib/agent/context/discover.ts asks each). */
export type WindowProbe = 'vllm' | 'lm-studio' | 'llama.cpp' | 'ollama';

/** What the settings page shows for a provider. */
export interface ProviderFields {
  /** the label of the Model field, and its placeholder */
  modelLabel: string;
  modelPlaceholder: string;
  modelHelp?: string;
  /** the Base URL field, for providers the person points at a server */
  baseUrl?: {
    placeholder: string;
    help: string;
    /** Test connection's answer when no base URL is given anywhere (a provider with a default never needs it) */
    missing?: string;
  };
  /** said after "API key" (the key is optional for this provider) */
  keyNote?: string;
  /** who lists the models, in "Models … lists" */
  listedBy: string;
}

/** The API key a provider is called with. */
export interface ProviderSecret {
  /** its name in the secrets file and in PUT /api/settings' keys */
  name: string;
  /** the environment variable it also comes from (the stored key wins) */
  env: string;
  /** without it the provider cannot be called; a key found picks the provider when none is named */
  required: boolean;
  /** the settings page asks for it with this provider (else it is only sent when set) */
  onPage: boolean;
}

/** Where a provider's API answers. */
export interface ProviderEndpoint {
  /** the base URL when none is given (the API's own address) */
  default?: string;
  /** environment variables that give the base URL, the first set one wins */
  env: readonly string[];
  /** the person gives the base URL on the settings page, and the client is built with it */
  setting: boolean;
  /** the API's path under the address the person gives, added when missing (Ollama's own address serves it under /v1) */
  apiPath?: string;
}

/** Where the settings' connection test (and the model picker) lists the provider's models. */
export interface ProviderListing {
  /** appended to the base URL (`root`: to the address without its apiPath) */
  path: string;
  root: boolean;
  /** how the key is sent */
  auth: 'x-api-key' | 'bearer' | 'none';
  /** in "Reached … at <origin>" */
  what: string;
  /** in "… answered, but not with a model list. Is this …?" */
  kind: string;
  /** said when the list is empty */
  empty?: string;
}

/** One provider: everything Clamp knows of it, in one place. */
export interface ProviderRow {
  name: string;
  api: ProviderApi;
  fields: ProviderFields;
  secret?: ProviderSecret;
  /** the model used when none is named */
  defaultModel?: string;
  endpoint: ProviderEndpoint;
  /** null: it lists no models (a script) */
  listing: ProviderListing | null;
  /** how a server of this provider is asked for its window, in order of trust (none: the catalogue's) */
  windowProbes: readonly WindowProbe[];
  /** the models.dev catalogue's providers searched first, with their prices; null: every provider, without prices */
  catalogue: readonly string[] | null;
  /** when set, the model takes no images, for this reason */
  noImages?: string;
  /** the provider caches a prompt's prefix only where a request marks it (Anthropic's cache breakpoints) */
  cacheBreakpoints: boolean;
  /** a tool result can carry images to the model (Anthropic, OpenAI's Responses API; Chat Completions carry only text) */
  toolResultImages: boolean;
  /** its line in the help shown when no model is configured */
  configure: string;
  /** what resolving says when the model is missing, on the settings page and in the environment (default: "needs a model name") */
  modelMissing?: { page: string; env: string };
}

export const PROVIDER_TABLE = [
  {
    name: 'anthropic',
    api: 'anthropic',
    fields: { modelLabel: 'Model', modelPlaceholder: 'e.g. claude-sonnet-4-5', listedBy: 'the provider' },
    secret: { name: 'anthropic', env: 'ANTHROPIC_API_KEY', required: true, onPage: true },
    defaultModel: 'claude-sonnet-4-5',
    endpoint: { default: 'https://api.anthropic.com/v1', env: ['ANTHROPIC_BASE_URL'], setting: false },
    listing: { path: '/models?limit=1000', root: false, auth: 'x-api-key', what: 'Anthropic', kind: 'an OpenAI-compatible server' },
    windowProbes: [],
    catalogue: ['anthropic'],
    cacheBreakpoints: true,
    toolResultImages: true,
    configure: '  ANTHROPIC_API_KEY=…                       (Anthropic; model with CLAMP_MODEL=anthropic:claude-sonnet-4-5)',
  },
  {
    name: 'openai',
    api: 'openai',
    fields: { modelLabel: 'Model', modelPlaceholder: 'e.g. gpt-5', listedBy: 'the provider' },
    secret: { name: 'openai', env: 'OPENAI_API_KEY', required: true, onPage: true },
    defaultModel: 'gpt-5',
    endpoint: { default: 'https://api.openai.com/v1', env: ['OPENAI_BASE_URL'], setting: false },
    listing: { path: '/models', root: false, auth: 'bearer', what: 'OpenAI', kind: 'an OpenAI-compatible server' },
    windowProbes: [],
    catalogue: ['openai'],
    cacheBreakpoints: false,
    toolResultImages: true,
    configure: '  OPENAI_API_KEY=…                          (OpenAI; CLAMP_MODEL=openai:gpt-5)',
  },
  {
    name: 'openai-compatible',
    api: 'openai-compatible',
    fields: {
      modelLabel: 'Model',
      modelPlaceholder: 'as the server lists it, e.g. qwen2.5-coder-7b-instruct',
      baseUrl: {
        placeholder: 'http://127.0.0.1:1234/v1',
        help: 'LM Studio http://127.0.0.1:1234/v1 · vLLM http://127.0.0.1:8000/v1 · llama.cpp http://127.0.0.1:8080/v1',
        missing: 'Enter the base URL of your server (LM Studio http://127.0.0.1:1234/v1, vLLM http://127.0.0.1:8000/v1, llama.cpp http://127.0.0.1:8080/v1 …).',
      },
      keyNote: ' (only if your server asks for one)',
      listedBy: 'the provider',
    },
    secret: { name: 'openai-compatible', env: 'CLAMP_API_KEY', required: false, onPage: true },
    endpoint: { env: ['CLAMP_BASE_URL', 'OPENAI_BASE_URL'], setting: true },
    listing: { path: '/models', root: false, auth: 'bearer', what: 'the server', kind: 'an OpenAI-compatible server' },
    windowProbes: ['vllm', 'lm-studio', 'llama.cpp', 'ollama'],
    catalogue: null,
    cacheBreakpoints: false,
    toolResultImages: false,
    configure: '  CLAMP_MODEL=openai-compatible:<model> CLAMP_BASE_URL=http://127.0.0.1:1234/v1   (LM Studio, vLLM, llama.cpp server …)',
  },
  {
    name: 'ollama',
    api: 'openai-compatible',
    fields: {
      modelLabel: 'Model',
      modelPlaceholder: 'e.g. qwen3-coder',
      baseUrl: { placeholder: 'http://127.0.0.1:11434', help: 'Ollama’s own address; left empty, http://127.0.0.1:11434.' },
      listedBy: 'Ollama',
    },
    // Ollama asks for no key; one set for OpenAI-compatible servers is still sent
    secret: { name: 'openai-compatible', env: 'CLAMP_API_KEY', required: false, onPage: false },
    endpoint: { default: 'http://127.0.0.1:11434', env: [], setting: true, apiPath: '/v1' },
    listing: { path: '/api/tags', root: true, auth: 'none', what: 'Ollama', kind: 'Ollama', empty: 'Pull one first (ollama pull qwen3-coder), then test again.' },
    windowProbes: ['ollama', 'vllm'],
    catalogue: null,
    cacheBreakpoints: false,
    toolResultImages: false,
    configure: '  CLAMP_MODEL=ollama:qwen3-coder            (a local Ollama on port 11434)',
  },
  {
    name: 'scripted',
    api: 'scripted',
    fields: {
      modelLabel: 'Script file (a path, not a model name)',
      modelPlaceholder: '/path/to/script.json',
      modelHelp: 'A JSON file of model turns to replay, for a demo or a test; no real model runs. The format: docs/scripted-model.md.',
      listedBy: 'the provider',
    },
    endpoint: { env: [], setting: false },
    listing: null,
    windowProbes: [],
    catalogue: null,
    noImages: 'a scripted model reads no images',
    cacheBreakpoints: false,
    toolResultImages: true,
    configure: '  CLAMP_MODEL=scripted:<file.json>          (a fixed script of turns, for a demo without a model)',
    modelMissing: {
      page: 'The scripted provider needs the path of a script file: enter it as the model on the settings page.',
      env: 'The scripted provider needs a script file: CLAMP_MODEL=scripted:<file.json>.',
    },
  },
] as const satisfies readonly ProviderRow[];

type Row = (typeof PROVIDER_TABLE)[number];
/** A provider's name, as settings, `provider:model` specs and the picker spell it. */
export type Provider = Row['name'];
/** The API keys the settings page can store (in a 0600 file in the data dir, never in the database). */
export type SecretName = Extract<Row, { secret: unknown }>['secret']['name'];

/** The providers' names, in the table's order. */
export const PROVIDERS = PROVIDER_TABLE.map((r) => r.name) as readonly Provider[] as readonly [Provider, ...Provider[]];

/** The row of a provider named by a string (a spec, a stored setting); undefined for a name the table does not hold. */
export function providerRow(name: string | null | undefined): ProviderRow | undefined {
  return PROVIDER_TABLE.find((r) => r.name === name);
}

/** Each stored key's environment variable, in the table's order. */
export const SECRET_ENV = Object.fromEntries(PROVIDER_TABLE.flatMap((r: ProviderRow) => (r.secret ? [[r.secret.name, r.secret.env]] : []))) as Readonly<Record<SecretName, string>>;
export const SECRET_NAMES = Object.keys(SECRET_ENV) as SecretName[];
