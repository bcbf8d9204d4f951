import path from 'node:path';
import type { LanguageModel } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelSettings, ModelStatus } from '../contract/protocol';
import { contextWindowFor } from './windows';
import { createScriptedModel, loadScript } from './scripted-model';
import { imageInputFor } from './vision';

export type ProviderName = NonNullable<ModelSettings['provider']>;
export const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai', 'openai-compatible', 'ollama', 'scripted'];
export const OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';
const SCRIPTED_WINDOW_TOKENS = 200_000;

export const DEFAULT_MODELS: Partial<Record<ProviderName, string>> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-5',
};

export const CONFIGURE_HELP =
  'No model is configured. Set one of these before `npm start`, or choose a provider on the settings page:\n' +
  '  ANTHROPIC_API_KEY=…                       (Anthropic; model with CLAMP_MODEL=anthropic:claude-sonnet-4-5)\n' +
  '  OPENAI_API_KEY=…                          (OpenAI; CLAMP_MODEL=openai:gpt-5)\n' +
  '  CLAMP_MODEL=ollama:qwen3-coder            (a local Ollama on port 11434)\n' +
  '  CLAMP_MODEL=openai-compatible:<model> CLAMP_BASE_URL=http://127.0.0.1:1234/v1   (LM Studio, vLLM, llama.cpp server …)\n' +
  '  CLAMP_MODEL=scripted:<file.json>          (a fixed script of turns, for a demo without a model)';

/** Keys from the environment or the 0600 secrets file. */
export interface ProviderKeys {
  anthropic?: string;
  openai?: string;
  openaiCompatible?: string;
}

export interface ResolvedModel {
  ok: true;
  model: LanguageModel;
  status: ModelStatus;
  /** the server's base URL (openai-compatible, ollama), asked for its window by withServerWindow */
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

/**
 * Decide which model to use: settings saved on the page, then CLAMP_MODEL, then the first key found.
 * Never throws: a missing or broken configuration comes back with the exact fix in status.help.
 */
export function resolveModel(env: Readonly<Record<string, string | undefined>>, settings: Partial<ModelSettings>, keys: ProviderKeys = {}): ResolvedModel | UnresolvedModel {
  let provider: ProviderName | null = settings.provider ?? null;
  let modelId: string | null = settings.model ?? null;
  let baseUrl: string | null = settings.baseUrl ?? null;
  // a provider chosen on the settings page gets its fixes in the page's words, not environment variables
  const onPage = !!settings.provider;
  if (!provider && env.CLAMP_MODEL) {
    const spec = parseModelSpec(env.CLAMP_MODEL);
    if ('error' in spec) return unresolved(spec.error);
    provider = spec.provider;
    modelId = spec.model;
  }
  const anthropicKey = keys.anthropic || env.ANTHROPIC_API_KEY;
  const openaiKey = keys.openai || env.OPENAI_API_KEY;
  if (!provider) {
    if (anthropicKey) provider = 'anthropic';
    else if (openaiKey) provider = 'openai';
    else return unresolved(CONFIGURE_HELP);
  }
  modelId ??= DEFAULT_MODELS[provider] ?? null;
  const win = contextWindowFor(provider, modelId, settings.contextWindow);
  const ok = (model: LanguageModel, label: string, scripted = false): ResolvedModel => ({
    ok: true,
    model,
    status: { configured: true, provider, model: modelId, label, windowTokens: win.tokens, windowSource: win.source, prices: win.prices, scripted, imageInput: imageInputFor(provider, modelId, settings.imageInput, env) },
    baseUrl: provider === 'openai-compatible' || provider === 'ollama' ? baseUrl : null,
  });
  switch (provider) {
    case 'anthropic':
      if (!anthropicKey) return unresolved(onPage ? 'The anthropic provider needs an API key: paste it in the settings.' : 'The anthropic provider needs ANTHROPIC_API_KEY (in the environment, or saved on the settings page).', provider, modelId);
      return ok(createAnthropic({ apiKey: anthropicKey })(modelId!), `anthropic · ${modelId}`);
    case 'openai':
      if (!openaiKey) return unresolved(onPage ? 'The openai provider needs an API key: paste it in the settings.' : 'The openai provider needs OPENAI_API_KEY (in the environment, or saved on the settings page).', provider, modelId);
      return ok(createOpenAI({ apiKey: openaiKey })(modelId!), `openai · ${modelId}`);
    case 'openai-compatible':
    case 'ollama': {
      baseUrl ??= provider === 'ollama' ? OLLAMA_BASE_URL : env.CLAMP_BASE_URL || env.OPENAI_BASE_URL || null;
      if (!baseUrl)
        return unresolved(onPage ? 'The openai-compatible provider needs a base URL: fill it in on the settings page (for example http://127.0.0.1:1234/v1).' : 'The openai-compatible provider needs a base URL: set CLAMP_BASE_URL (for example http://127.0.0.1:1234/v1) or fill it in on the settings page.', provider, modelId);
      if (!modelId) return unresolved(onPage ? `The ${provider} provider needs a model name: set it on the settings page (Test connection lists the server's models).` : `The ${provider} provider needs a model name: CLAMP_MODEL=${provider}:<model> (the name your server lists), or set it on the settings page.`, provider, null);
      // Ollama's own address (http://127.0.0.1:11434) serves the OpenAI-compatible API under /v1
      if (provider === 'ollama' && !/\/v1\/?$/.test(baseUrl)) baseUrl = `${baseUrl.replace(/\/+$/, '')}/v1`;
      const apiKey = keys.openaiCompatible || env.CLAMP_API_KEY || undefined;
      const p = createOpenAICompatible({ name: provider, baseURL: baseUrl, apiKey, includeUsage: true });
      return ok(p(modelId), `${provider} · ${modelId} · ${baseUrl}`);
    }
    case 'scripted': {
      if (!modelId) return unresolved(onPage ? 'The scripted provider needs the path of a script file: enter it as the model on the settings page.' : 'The scripted provider needs a script file: CLAMP_MODEL=scripted:<file.json>.', provider, null);
      const file = path.resolve(/*turbopackIgnore: true*/ modelId);
      try {
        const r = ok(createScriptedModel(loadScript(file), path.basename(file)), `scripted demo · ${path.basename(file)} (not a real model)`, true);
        // a script has no real window: size the meter like a large model unless the settings override it
        if (!settings.contextWindow) {
          r.status.windowTokens = SCRIPTED_WINDOW_TOKENS;
          r.status.windowSource = { kind: 'default', detail: 'a script has no window; sized like a large model' };
        }
        return r;
      } catch (err) {
        return unresolved((err as Error).message, provider, modelId);
      }
    }
  }
}
