import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { definitionText, toolCostReport } from '../../bench/tool-cost-count';
import { BUDGET } from '../../lib/contract/budget';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import { skillTool } from '../../lib/tools/skills/skills';
import { modelSchema } from '../../lib/dispatch/registry';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { webFetchMaxBytes, webFetchTool } from '../../lib/tools/web/web-fetch';

describe('tool definition cost (npm run tool-cost)', () => {
  const report = toolCostReport();

  it('counts every built-in tool and the new ones, each once; the skill tool is not always loaded', () => {
    const names = report.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of ALL_TOOLS) expect(names).toContain(t.name);
    for (const n of ['git_status', 'git_diff', 'git_log', 'git_commit', 'todo_write', 'todo_read', 'memory_save', 'memory_search', 'skill']) expect(names).toContain(n);
    expect(report.tools.find((t) => t.name === 'skill')?.alwaysLoaded).toBe(false);
    expect(report.tools.find((t) => t.name === 'read_file')?.alwaysLoaded).toBe(true);
  });

  it('a definition is its name, description and JSON schema, counted with o200k_base', () => {
    const text = definitionText(skillTool);
    expect(JSON.parse(text)).toMatchObject({ name: 'skill', parameters: { type: 'object', required: ['name'] } });
    expect(report.tools.find((t) => t.name === 'skill')?.tokens).toBe(countTokens(text));
    expect(countTokens('hello world')).toBe(2);
  });

  it('sends and counts the schema without $schema or the ±2^53 bounds of .int(); real bounds and strictness stay', () => {
    const run = modelSchema(runCommandTool);
    expect(run).not.toHaveProperty('$schema');
    expect(run).toMatchObject({ additionalProperties: false, properties: { timeout_ms: { type: 'integer' } } });
    expect((run.properties as Record<string, object>).timeout_ms).not.toHaveProperty('maximum');
    expect((run.properties as Record<string, object>).timeout_ms).not.toHaveProperty('minimum');
    expect(modelSchema(webFetchTool)).toMatchObject({ properties: { max_bytes: { minimum: 1, maximum: webFetchMaxBytes(BUDGET) } } });
    expect(JSON.parse(definitionText(runCommandTool)).parameters).toEqual(run);
  });

  it('converts a schema once and gives every caller its own copy of what zod writes', () => {
    const first = modelSchema(runCommandTool);
    const { $schema: _dialect, ...fresh } = z.toJSONSchema(runCommandTool.schema) as Record<string, unknown>;
    expect(Object.keys(first).sort()).toEqual(Object.keys(fresh).sort());
    expect(first.required).toEqual(fresh.required);
    (first.properties as Record<string, unknown>).command = 'changed by a caller';
    const second = modelSchema(runCommandTool);
    expect(second).not.toBe(first);
    expect((second.properties as Record<string, { type?: string }>).command.type).toBe('string');
  });

  it(`the always-loaded set fits TOOL_DEFINITIONS_MAX_TOKENS`, () => {
    const heaviest = report.tools
      .filter((t) => t.alwaysLoaded)
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, 5)
      .map((t) => `${t.name} ${t.tokens}`)
      .join(', ');
    expect(report.alwaysLoadedTokens, `always-loaded tools cost ${report.alwaysLoadedTokens} tokens; heaviest: ${heaviest}`).toBeLessThanOrEqual(BUDGET.TOOL_DEFINITIONS_MAX_TOKENS);
  });
});
