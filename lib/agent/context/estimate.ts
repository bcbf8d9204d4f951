import type { ModelMessage, ToolSet } from 'ai';
import { asSchema } from 'ai';
import type { Budget } from '../../contract/budget';
import type { ContextBreakdown } from '../../contract/protocol';
import { countTokens } from '../../dispatch/token-count';

/** Tokens a chat template adds around each message (role, separators), as the usual templates do. */
const MESSAGE_OVERHEAD_TOKENS = 4;
const COUNT_CACHE_MAX_ENTRIES = 20_000;
const counted = new Map<string, number>();

/** o200k_base tokens of a text, remembered (the same results are counted again at every step). */
export function tokensOf(text: string): number {
  if (text.length === 0) return 0;
  const hit = counted.get(text);
  if (hit !== undefined) return hit;
  const n = countTokens(text);
  if (counted.size >= COUNT_CACHE_MAX_ENTRIES) counted.delete(counted.keys().next().value as string);
  counted.set(text, n);
  return n;
}

/** The text of a tool result's output, as providers put it on the wire. */
export function resultText(output: unknown): string {
  const o = output as { type?: string; value?: unknown } | undefined;
  if (!o) return '';
  if ((o.type === 'text' || o.type === 'error-text') && typeof o.value === 'string') return o.value;
  return JSON.stringify(o.value ?? o);
}

/** How a text is counted: tokensOf exactly, or byteLength as an upper bound (an o200k_base token holds at least one byte). */
export type TextCount = (text: string) => number;

/** Tokens of one message, split into tool results and the rest. */
export function messageTokens(m: ModelMessage, count: TextCount = tokensOf): { conversation: number; toolResults: number } {
  let conversation = MESSAGE_OVERHEAD_TOKENS;
  let toolResults = 0;
  if (typeof m.content === 'string') return { conversation: conversation + count(m.content), toolResults };
  for (const p of m.content as Array<{ type: string; text?: string; toolName?: string; input?: unknown; output?: unknown }>) {
    if (p.type === 'text' || p.type === 'reasoning') conversation += count(p.text ?? '');
    else if (p.type === 'tool-call') conversation += count(`${p.toolName ?? ''} ${JSON.stringify(p.input ?? {})}`);
    else if (p.type === 'tool-result') toolResults += count(resultText(p.output)) + MESSAGE_OVERHEAD_TOKENS;
  }
  return { conversation, toolResults };
}

/** Per turn's tools (sessions running at once have their own, whose descriptions may differ under one name), per listed set. */
const toolsCounted = new WeakMap<ToolSet, Map<string, number>>();

/** One listed tool's definition as it is counted ('' for a name the set does not hold). */
export function toolDefinitionText(tools: ToolSet, name: string): string {
  const t = tools[name] as { description?: string; inputSchema?: unknown } | undefined;
  if (!t) return '';
  const schema = t.inputSchema ? asSchema(t.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema : {};
  return JSON.stringify({ type: 'function', function: { name, description: t.description ?? '', parameters: schema } });
}

/** Tokens of the tool definitions listed (name, description, JSON schema), remembered per set of a turn's tools. */
export function toolDefinitionTokens(tools: ToolSet, active: readonly string[], count: TextCount = tokensOf): number {
  if (count !== tokensOf) return active.reduce((n, name) => n + count(toolDefinitionText(tools, name)), 0);
  const key = active.join(',');
  let counted = toolsCounted.get(tools);
  if (!counted) toolsCounted.set(tools, (counted = new Map()));
  const hit = counted.get(key);
  if (hit !== undefined) return hit;
  let n = 0;
  for (const name of active) n += tokensOf(toolDefinitionText(tools, name));
  if (counted.size > 50) counted.clear();
  counted.set(key, n);
  return n;
}

/** What one request holds, in tokens (uncorrected), by kind. */
export interface RequestEstimate {
  raw: number;
  breakdown: ContextBreakdown;
}

/** Estimate a request: system prompt (its project docs apart), tool definitions and messages; with byteLength as `count`, an upper bound of it. */
export function estimateRequest(o: { system: string; projectDocs: string; toolTokens: number; messages: readonly ModelMessage[] }, count: TextCount = tokensOf): RequestEstimate {
  const docs = o.projectDocs ? count(o.projectDocs) : 0;
  const systemAndTools = Math.max(0, count(o.system) - docs) + o.toolTokens + MESSAGE_OVERHEAD_TOKENS;
  let conversation = 0;
  let toolResults = 0;
  for (const m of o.messages) {
    const t = messageTokens(m, count);
    conversation += t.conversation;
    toolResults += t.toolResults;
  }
  return { raw: systemAndTools + docs + conversation + toolResults, breakdown: { systemAndTools, projectDocs: docs, conversation, toolResults } };
}

/** The correction the provider's last count gives (its count over Clamp's estimate), within the table's bounds; 1 without one. */
export function correctionRatio(reported: number | undefined, estimated: number | undefined, budget: Budget): number {
  if (!reported || !estimated) return 1;
  return Math.min(budget.CONTEXT_ESTIMATE_CORRECTION_MAX_RATIO, Math.max(budget.CONTEXT_ESTIMATE_CORRECTION_MIN_RATIO, reported / estimated));
}

/** The window's limits in tokens: where pruning starts and what it aims for, where compaction starts, and the most a request may hold (window less the answer's reserve). */
export function contextLimits(windowTokens: number, budget: Budget): { pruneAt: number; pruneTo: number; compactAt: number; hardMax: number; summaryMax: number } {
  const reserve = Math.min(budget.CONTEXT_OUTPUT_RESERVE_MAX_TOKENS, Math.floor(windowTokens * budget.CONTEXT_OUTPUT_RESERVE_RATIO));
  const hardMax = windowTokens - reserve;
  return {
    pruneAt: Math.min(hardMax, Math.floor(windowTokens * budget.CONTEXT_PRUNE_AT_RATIO)),
    pruneTo: Math.min(hardMax, Math.floor(windowTokens * budget.CONTEXT_PRUNE_TO_RATIO)),
    compactAt: Math.min(hardMax, Math.floor(windowTokens * budget.CONTEXT_COMPACT_AT_RATIO)),
    hardMax,
    summaryMax: Math.max(200, Math.min(budget.COMPACTION_SUMMARY_MAX_TOKENS, Math.floor(windowTokens * budget.COMPACTION_SUMMARY_MAX_WINDOW_RATIO))),
  };
}
