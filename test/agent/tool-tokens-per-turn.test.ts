import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { toolDefinitionTokens } from '../../lib/agent/context/estimate';

const set = (description: string): ToolSet => ({ lookup: tool({ description, inputSchema: z.object({ q: z.string() }) }) });

describe('tool definition tokens', () => {
  it("are counted per turn's tools: two sessions' sets with one name and different descriptions are not mixed up", () => {
    const short = toolDefinitionTokens(set('Look it up.'), ['lookup']);
    const long = toolDefinitionTokens(set('Look it up in the server of this workspace, which answers with every match it has, one a line, in full.'), ['lookup']);
    expect(long).toBeGreaterThan(short + 10);
  });
});
