import type { LanguageModelUsage } from 'ai';
import type { ClampMessage, CompactionInfo, ContextInfo, LedgerStep, LedgerTotals, ModelPrices, PrunedItem, SessionLedger } from '../../contract/protocol';

/** Money for one step from the catalogue's prices (USD per million tokens); cache reads and writes at their own price when listed. */
export function costOf(prices: ModelPrices | null | undefined, input: LedgerStep['inputTokens'], outputTokens: number): number | null {
  if (!prices) return null;
  const usd =
    input.fresh * prices.inputPerMTokUsd +
    input.cacheRead * (prices.cacheReadPerMTokUsd ?? prices.inputPerMTokUsd) +
    input.cacheWrite * (prices.cacheWritePerMTokUsd ?? prices.inputPerMTokUsd) +
    outputTokens * prices.outputPerMTokUsd;
  return usd / 1e6;
}

/** The input tokens of a step split into fresh, cache read and cache write (the SDK's usage, or its provider metadata for Anthropic's writes). */
export function inputSplit(usage: LanguageModelUsage, providerMetadata?: Record<string, Record<string, unknown> | undefined>): LedgerStep['inputTokens'] {
  const total = usage.inputTokens ?? 0;
  const d = usage.inputTokenDetails;
  const cacheRead = d?.cacheReadTokens ?? usage.cachedInputTokens ?? 0;
  const anthropicWrite = providerMetadata?.anthropic?.cacheCreationInputTokens;
  const cacheWrite = d?.cacheWriteTokens ?? (typeof anthropicWrite === 'number' ? anthropicWrite : 0);
  const fresh = d?.noCacheTokens ?? Math.max(0, total - cacheRead - cacheWrite);
  return { fresh, cacheRead, cacheWrite };
}

/** Every data part of one type in a conversation, with the id of the message holding it, in order. */
export function partsOf<T>(messages: readonly ClampMessage[], type: 'data-ledger' | 'data-pruned' | 'data-compaction' | 'data-context'): { messageId: string; data: T }[] {
  const out: { messageId: string; data: T }[] = [];
  for (const m of messages) for (const p of m.parts) if (p.type === type) out.push({ messageId: m.id, data: (p as unknown as { data: T }).data });
  return out;
}

/** What the stored conversation says about its context: the pruned set, the latest compaction, the last step's count, what the meter last showed. */
export function contextState(messages: readonly ClampMessage[]): { pruned: Map<string, PrunedItem>; compaction: CompactionInfo | null; lastLedger: LedgerStep | null; lastContext: ContextInfo | null } {
  const pruned = new Map<string, PrunedItem>();
  for (const p of partsOf<{ items: PrunedItem[] }>(messages, 'data-pruned')) for (const it of p.data.items) pruned.set(it.toolCallId, it);
  const compactions = partsOf<CompactionInfo>(messages, 'data-compaction');
  const ledger = partsOf<LedgerStep>(messages, 'data-ledger');
  const context = partsOf<ContextInfo>(messages, 'data-context');
  return { pruned, compaction: compactions.at(-1)?.data ?? null, lastLedger: ledger.at(-1)?.data ?? null, lastContext: context.at(-1)?.data ?? null };
}

/** The tokens the next request starts from after a step: the request as the provider counted it, and its answer as it is sent back (reasoning aside). */
export function nextRequestFloor(reported: number, usage: LanguageModelUsage): number {
  const reasoning = usage.outputTokenDetails?.reasoningTokens ?? 0;
  return reported + Math.max(0, (usage.outputTokens ?? 0) - reasoning);
}

/** GET /api/sessions/[id]/ledger: every step stored in the conversation and the session's totals. */
export function sessionLedger(messages: readonly ClampMessage[]): SessionLedger {
  const steps = partsOf<LedgerStep>(messages, 'data-ledger').map(({ messageId, data }) => ({ ...data, messageId }));
  const totals: LedgerTotals = {
    steps: steps.length,
    inputTokens: { fresh: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: 0,
    toolBytesProduced: 0,
    toolBytesShown: 0,
    costUsd: null,
    compactions: partsOf(messages, 'data-compaction').length,
    pruned: partsOf<{ items: PrunedItem[] }>(messages, 'data-pruned').reduce((n, p) => n + p.data.items.length, 0),
  };
  for (const s of steps) {
    totals.inputTokens.fresh += s.inputTokens.fresh;
    totals.inputTokens.cacheRead += s.inputTokens.cacheRead;
    totals.inputTokens.cacheWrite += s.inputTokens.cacheWrite;
    totals.outputTokens += s.outputTokens;
    totals.toolBytesProduced += s.toolBytesProduced;
    totals.toolBytesShown += s.toolBytesShown;
    if (s.costUsd !== null) totals.costUsd = (totals.costUsd ?? 0) + s.costUsd;
  }
  return { steps, totals };
}
