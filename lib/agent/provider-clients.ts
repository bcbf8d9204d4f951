import path from 'node:path';
import type { LanguageModel } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ProviderApi, ProviderRow } from '../contract/providers';
import { createScriptedModel, loadScript } from './scripted-model';

/** What a provider's client is built from, once resolveModel has found every part. */
export interface ClientInput {
  row: ProviderRow;
  modelId: string;
  /** the server's base URL (providers whose endpoint is a setting), else null: the SDK's own */
  baseUrl: string | null;
  apiKey: string | undefined;
}

/** A built client: the model, its label for the page, and whether it is a script rather than a model. */
export interface Client {
  model: LanguageModel;
  label: string;
  scripted?: boolean;
  /** the window to show when the settings give none and the model has no real one */
  window?: { tokens: number; detail: string };
}

const SCRIPTED_WINDOW_TOKENS = 200_000;

/** `name · model` (and `· base URL` for a server the person named), as the page labels a model. */
function labelOf(i: ClientInput): string {
  return [i.row.name, i.modelId, i.baseUrl].filter(Boolean).join(' · ');
}

/** A replayed script: the model is the path of its file (relative to where Clamp runs). Throws with the fix for a missing or broken file. */
function scriptedClient(i: ClientInput): Client {
  const file = path.resolve(/*turbopackIgnore: true*/ i.modelId);
  return {
    model: createScriptedModel(loadScript(file), path.basename(file)),
    label: `scripted demo · ${path.basename(file)} (not a real model)`,
    scripted: true,
    // a script has no real window: size the meter like a large model
    window: { tokens: SCRIPTED_WINDOW_TOKENS, detail: 'a script has no window; sized like a large model' },
  };
}

/**
 * The process's fetch without Next.js's instrumentation: in the server, Next wraps the global fetch (request
 * dedupe, caching, tracing) at a cost on every request, none of which a model request uses.
 */
const plainFetch: typeof fetch = (input, init) => {
  const f = globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch };
  return (f._nextOriginalFetch ?? f)(input, init);
};

/**
 * A model whose provider package is imported at its first request: a run loads only the SDK of the
 * provider it uses, and only when it asks it something. `provider` is the name the SDK's model reports.
 */
function lazyModel(provider: string, modelId: string, load: () => Promise<LanguageModelV3>): LanguageModelV3 {
  let model: Promise<LanguageModelV3> | null = null;
  const get = () => (model ??= load());
  return {
    specificationVersion: 'v3',
    provider,
    modelId,
    get supportedUrls() {
      return get().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await get()).doGenerate(options),
    doStream: async (options) => (await get()).doStream(options),
  };
}

/** How each API's client is built. May throw (a script that cannot be read); resolveModel turns that into its help. */
export const CLIENTS: Readonly<Record<ProviderApi, (i: ClientInput) => Client>> = {
  anthropic: (i) => ({
    model: lazyModel('anthropic.messages', i.modelId, async () => (await import('@ai-sdk/anthropic')).createAnthropic({ apiKey: i.apiKey, fetch: plainFetch })(i.modelId)),
    label: labelOf(i),
  }),
  openai: (i) => ({
    model: lazyModel('openai.responses', i.modelId, async () => (await import('@ai-sdk/openai')).createOpenAI({ apiKey: i.apiKey, fetch: plainFetch })(i.modelId)),
    label: labelOf(i),
  }),
  'openai-compatible': (i) => ({
    model: lazyModel(`${i.row.name}.chat`, i.modelId, async () =>
      (await import('@ai-sdk/openai-compatible')).createOpenAICompatible({ name: i.row.name, baseURL: i.baseUrl!, apiKey: i.apiKey, includeUsage: true, fetch: plainFetch })(i.modelId),
    ),
    label: labelOf(i),
  }),
  scripted: scriptedClient,
};
