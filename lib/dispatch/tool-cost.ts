import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { BUDGET, type Budget } from '../contract/budget';
import type { ToolDefinition } from '../contract/types';
import { describeTool, modelSchema } from './registry';

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

/** The sum of definitionTokens over tools. */
export function definitionsTokens(tools: readonly ToolDefinition[], budget: Budget = BUDGET): number {
  return tools.reduce((n, t) => n + definitionTokens(t, budget), 0);
}
