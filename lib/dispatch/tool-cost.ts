import { BUDGET, type Budget } from '../contract/budget';
import type { ToolDefinition } from '../contract/types';
import { describeTool, modelSchema } from './registry';
import { byteLength } from '../contract/text';
import { countTokens } from './token-count';

/** One tool's definition as a model receives it (the provider wraps it a little more; that part is the same for every tool). */
export function definitionText(t: ToolDefinition, budget: Budget = BUDGET): string {
  return JSON.stringify({ name: t.name, description: describeTool(t, budget), parameters: modelSchema(t) });
}

const cache = new WeakMap<ToolDefinition, { budget: Budget; tokens: number }>();

/** What one tool's definition costs on every request it is listed in, in o200k_base tokens (remembered per tool object). */
export function definitionTokens(t: ToolDefinition, budget: Budget = BUDGET): number {
  const c = cache.get(t);
  if (c && c.budget === budget) return c.tokens;
  const tokens = countTokens(definitionText(t, budget));
  cache.set(t, { budget, tokens });
  return tokens;
}

const textCache = new WeakMap<ToolDefinition, { budget: Budget; bytes: number }>();

/**
 * An upper bound of definitionTokens without the tokenizer: the definition's UTF-8 bytes (an o200k_base
 * token holds at least one byte). Remembered per tool object.
 */
export function definitionTokensBound(t: ToolDefinition, budget: Budget = BUDGET): number {
  const c = textCache.get(t);
  if (c && c.budget === budget) return c.bytes;
  const bytes = byteLength(definitionText(t, budget));
  textCache.set(t, { budget, bytes });
  return bytes;
}

/** The sum of definitionTokens over tools. */
export function definitionsTokens(tools: readonly ToolDefinition[], budget: Budget = BUDGET): number {
  return tools.reduce((n, t) => n + definitionTokens(t, budget), 0);
}
