import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { ALL_TOOLS } from '../lib/dispatch/all-tools';
import { createRegistry, describeTool, listedTools, modelSchema } from '../lib/dispatch/registry';
import { BUDGET, type Budget } from '../lib/contract/budget';
import type { ToolDefinition } from '../lib/contract/types';
import { definitionText } from '../lib/dispatch/tool-cost';

/**
 * What tool definitions cost in context: every tool's name + description + JSON schema, as the
 * agent sends them (lib/agent/agent-tools.ts: describeTool and modelSchema), counted with the
 * o200k_base tokenizer (gpt-tokenizer).
 */


export interface ToolCost {
  name: string;
  effect: string;
  tokens: number;
  descriptionTokens: number;
  schemaTokens: number;
  /** listed in default mode with no skills or search provider configured */
  alwaysLoaded: boolean;
}

export interface ToolCostReport {
  tools: ToolCost[];
  alwaysLoadedTokens: number;
  allTokens: number;
}

export { definitionText };

/** Every built-in tool. */
export function allTools(): ToolDefinition[] {
  return [...ALL_TOOLS];
}

/** The token cost of every tool, and of the set listed on every request (default mode, empty workspace and data dir). */
export function toolCostReport(budget: Budget = BUDGET): ToolCostReport {
  const tools = allTools();
  const reg = createRegistry(tools);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-tool-cost-'));
  let listed: Set<string>;
  try {
    listed = new Set(listedTools(reg, 'default', { workspace: empty, dataDir: empty, services: {} }).map((t) => t.name));
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
  const costs = tools.map((t) => ({
    name: t.name,
    effect: t.effect,
    tokens: countTokens(definitionText(t, budget)),
    descriptionTokens: countTokens(describeTool(t, budget)),
    schemaTokens: countTokens(JSON.stringify(modelSchema(t))),
    alwaysLoaded: listed.has(t.name),
  }));
  const sum = (xs: ToolCost[]) => xs.reduce((n, c) => n + c.tokens, 0);
  return { tools: costs, alwaysLoadedTokens: sum(costs.filter((c) => c.alwaysLoaded)), allTokens: sum(costs) };
}
