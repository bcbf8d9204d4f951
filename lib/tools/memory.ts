import { z } from 'zod';
import { defineTool } from '../contract/types';
import { ToolError, type ToolOutput, type ToolResult } from '../contract/types';
import { byteLength, clipLine, formatBytes, formatCount } from '../contract/text';
import { openDb } from '../store/db';
import { addMemory, listMemories, searchMemories, type Memory } from '../store/memories';

/**
 * Memories: facts about a workspace kept across sessions (Clamp's database, not the workspace).
 *
 * memory_save is a 'read' tool on purpose. It writes only Clamp's own data, never a file of the
 * workspace, a process or the network; remembering is part of planning, so plan mode must keep it;
 * and asking the user before every memory would be noise. What keeps it honest instead: each
 * memory is one short sentence, nothing loads memories into a prompt unasked (only memory_search
 * reads them), and the page lists every memory with a delete button.
 */

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What memory_save tells the page: the memory and whether this call added it. */
export interface MemorySaveMeta {
  memory: Memory;
  created: boolean;
}

/** What memory_search tells the page: how many matched and which were shown. */
export interface MemorySearchMeta {
  query: string;
  total: number;
  method?: ReturnType<typeof searchMemories>['method'];
  ids?: Memory['id'][];
}

export const memorySaveTool = defineTool({
  name: 'memory_save',
  effect: 'read',
  // explore leaves out what keeps state beyond the child
  traits: { deferRank: 4, subagents: ['general'] },
  schema: z.strictObject({
    text: z.string().describe('One sentence that makes sense without this conversation.'),
  }),
  nonEmpty: ['text'],
  summary: (input, r?: ToolResult<MemorySaveMeta>) => `${clipLine(input.text.trim(), 120)}${r?.meta?.memory ? ` → #${r.meta.memory.id}` : ''}`,
  describe: (b) =>
    [
      `Remember one fact about this workspace for later sessions (a convention, a working command, a user preference), at most ${formatBytes(b.MEMORY_MAX_BYTES)}; one fact per call. memory_search finds it.`,
      'For the current plan use todo_write.',
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<MemorySaveMeta>> {
    const b = ctx.budget;
    const raw = input.text.trim();
    if (/\n\s*\n/.test(raw)) {
      throw new ToolError('The memory has several paragraphs; a memory is one self-contained sentence. Save each fact with its own memory_save call.');
    }
    const text = raw.replace(/\s+/g, () => ' ');
    const bytes = byteLength(text);
    if (bytes > b.MEMORY_MAX_BYTES) {
      throw new ToolError(
        `The memory is ${formatBytes(bytes)}; a memory holds at most ${formatBytes(b.MEMORY_MAX_BYTES)}. Shorten it to one self-contained sentence (save separate facts separately) and call memory_save again.`,
      );
    }
    const { memory, created } = addMemory(openDb(ctx.dataDir), ctx.workspace, text);
    const output = created
      ? `Saved memory ${memory.id}: ${text}\nLater sessions in this workspace find it with memory_search.`
      : `Already remembered as memory ${memory.id} (saved ${day(memory.createdAt)}); nothing was added.`;
    return { output, meta: { memory, created } };
  },
});

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
