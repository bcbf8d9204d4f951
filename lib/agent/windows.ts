import type { ContextWindowSource, ModelPrices, ModelStatus } from '../contract/protocol';
import { lookupCatalogue } from './context/catalogue';
import { providerRow } from '../contract/providers';
import { discoverServerWindow, type DiscoverOptions } from './context/discover';

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
 * For local servers (the providers whose table row names window probes): the window the server itself
 * reports, which beats the catalogue (a local server runs with the length it was started with). The
 * settings override still wins. Returns the status unchanged when the server does not say. With a data
 * dir the answer is remembered there for the next process. Never throws.
 */
export async function withServerWindow(status: ModelStatus, baseUrl: string | null, o: Pick<DiscoverOptions, 'fetch' | 'dataDir' | 'now'> = {}): Promise<ModelStatus> {
  if (!status.configured || !baseUrl || !status.model || status.windowSource.kind === 'settings') return status;
  if (!providerRow(status.provider)?.windowProbes.length) return status;
  const found = await discoverServerWindow(status.provider!, baseUrl, status.model, o);
  if (!found) return status;
  return { ...status, windowTokens: found.tokens, windowSource: { kind: 'server', detail: found.detail } };
}
