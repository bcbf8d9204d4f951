import { z } from 'zod';
import { defineTool, type ToolOutput, type ToolResult } from '../../contract/types';
import { byteLength, clipLine, formatBytes, formatCount } from '../../contract/text';
import { openDb } from '../../store/db';
import { listMemories, searchMemories, type Memory } from '../../store/memories';
import { day } from './memory-save';

/** What memory_search tells the page: how many matched and which were shown. */
export interface MemorySearchMeta {
  query: string;
  total: number;
  method?: ReturnType<typeof searchMemories>['method'];
  ids?: Memory['id'][];
}

/** The memories that fit the byte cap, and how many did not. */
function fit(memories: Memory[], maxBytes: number): { lines: string[]; shown: number } {
  const lines: string[] = [];
  let used = 0;
  for (const m of memories) {
    const line = `- [${m.id}] ${m.content} (${day(m.createdAt)})`;
    const n = byteLength(line) + 1;
    if (used + n > maxBytes && lines.length > 0) break;
    lines.push(clipLine(line, maxBytes));
    used += n;
  }
  return { lines, shown: lines.length };
}

export const memorySearchTool = defineTool({
  name: 'memory_search',
  effect: 'read',
  traits: { deferRank: 5 },
  schema: z.strictObject({
    query: z.string().describe('Words to look for; any may match.'),
  }),
  nonEmpty: ['query'],
  summary: (input, r?: ToolResult<MemorySearchMeta>) =>
    `${JSON.stringify(clipLine(input.query.trim(), 120))}${r?.meta?.total !== undefined ? ` (${formatCount(r.meta.total)} found)` : ''}`,
  describe: (b) =>
    `Search the facts saved with memory_save in this workspace (earlier sessions included): best matches first, at most ${b.MEMORY_SEARCH_MAX_RESULTS}. Search it before asking the user something they may have told you before. To search project files use grep.`,
  async run(input, ctx): Promise<ToolOutput<MemorySearchMeta>> {
    const b = ctx.budget;
    const db = openDb(ctx.dataDir);
    const query = input.query.trim();
    const found = searchMemories(db, ctx.workspace, query, b.MEMORY_SEARCH_MAX_RESULTS);
    const shownQuery = JSON.stringify(clipLine(query, ctx.budget.QUERY_SHOWN_MAX_BYTES));
    if (found.total === 0) {
      const { total } = listMemories(db, ctx.workspace, 0);
      const output =
        total === 0
          ? 'No memories are saved for this workspace yet. memory_save keeps one.'
          : `No memory matches ${shownQuery} (${formatCount(total)} saved in this workspace). Try other or fewer words.`;
      return { output, meta: { query, total: 0 } };
    }
    const { lines, shown } = fit(found.memories, b.MEMORY_SEARCH_MAX_BYTES);
    const head = `${formatCount(found.total)} memor${found.total === 1 ? 'y matches' : 'ies match'} ${shownQuery}${found.method === 'like' ? ' (as a substring)' : ''}, best first:`;
    const meta = { query, total: found.total, method: found.method, ids: found.memories.slice(0, shown).map((m) => m.id) };
    if (shown === found.total) return { output: [head, ...lines].join('\n'), meta };
    const capped =
      shown < found.memories.length
        ? `${formatBytes(b.MEMORY_SEARCH_MAX_BYTES)} of results`
        : `${formatCount(b.MEMORY_SEARCH_MAX_RESULTS)} results`;
    const hint = 'Use more specific words to bring the memories you need to the top (best matches come first).';
    const note = `[${formatCount(shown)} of ${formatCount(found.total)} shown (at most ${capped} per search). ${hint}]`;
    return {
      output: [head, ...lines, note].join('\n'),
      truncation: { unit: 'entries', shown, total: found.total, by: 'tool' },
      hint,
      meta,
    };
  },
});
