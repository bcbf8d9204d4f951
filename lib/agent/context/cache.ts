import type { ModelMessage, SystemModelMessage } from 'ai';
import { providerRow } from '../../contract/providers';

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** Whether a provider caches a prompt's prefix only where a request marks it (the provider table says): then cachedSystem and withCacheBreakpoints apply. */
export function usesCacheBreakpoints(provider: string | null): boolean {
  return providerRow(provider)?.cacheBreakpoints ?? false;
}

/** The system prompt as a message that carries a cache breakpoint for Anthropic (it caches the tool definitions before it too). */
export function cachedSystem(system: string): SystemModelMessage {
  return { role: 'system', content: system, providerOptions: EPHEMERAL };
}

/**
 * Cache breakpoints on the newest messages for Anthropic: on the last message (this step's prefix is
 * written to the cache) and on the last message of the step before (read back from the cache). With the
 * system's breakpoint that is three of the four Anthropic allows. The messages are copied, never changed.
 */
export function withCacheBreakpoints(messages: readonly ModelMessage[]): ModelMessage[] {
  const out = [...messages];
  const mark = (i: number) => {
    if (i < 0 || i >= out.length) return;
    out[i] = { ...out[i], providerOptions: { ...out[i].providerOptions, ...EPHEMERAL } } as ModelMessage;
  };
  mark(out.length - 1);
  let lastAssistant = -1;
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].role === 'assistant') {
      lastAssistant = i;
      break;
    }
  }
  if (lastAssistant > 0) mark(lastAssistant - 1);
  return out;
}
