import type { ContextWindowSource, ModelPrices, ModelStatus } from '../contract/protocol';
import { lookupCatalogue } from './context/catalogue';
import { discoverServerWindow } from './context/discover';

/** When a model is unknown: a conservative window, so budgets err on the small side. */
export const DEFAULT_WINDOW_TOKENS = 32_768;

export interface ModelWindow {
  tokens: number;
  source: ContextWindowSource;
  prices: ModelPrices | null;
}

/** The context window for a model: the settings override, else the models.dev catalogue, else DEFAULT_WINDOW_TOKENS. Prices from the catalogue. */
export function contextWindowFor(provider: string | null, modelId: string | null | undefined, override?: number | null): ModelWindow {
  const c = lookupCatalogue(provider, modelId);
  const prices = c?.prices ?? null;
  if (override && override > 0) return { tokens: override, source: { kind: 'settings', detail: 'the settings override' }, prices };
  if (c) return { tokens: c.windowTokens, source: { kind: 'catalogue', detail: `the models.dev catalogue (${c.id})` }, prices };
  return { tokens: DEFAULT_WINDOW_TOKENS, source: { kind: 'default', detail: `not in the catalogue; a conservative ${DEFAULT_WINDOW_TOKENS}` }, prices };
}

/**
 * For local servers (openai-compatible, ollama): the window the server itself reports, which beats
 * the catalogue (a local server runs with the length it was started with). The settings override
 * still wins. Returns the status unchanged when the server does not say. Never throws.
 */
export async function withServerWindow(status: ModelStatus, baseUrl: string | null, o: { fetch?: typeof fetch } = {}): Promise<ModelStatus> {
  if (!status.configured || !baseUrl || !status.model || status.windowSource.kind === 'settings') return status;
  if (status.provider !== 'openai-compatible' && status.provider !== 'ollama') return status;
  const found = await discoverServerWindow(status.provider, baseUrl, status.model, o);
  if (!found) return status;
  return { ...status, windowTokens: found.tokens, windowSource: { kind: 'server', detail: found.detail } };
}
