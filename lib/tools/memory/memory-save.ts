import { z } from 'zod';
import { defineTool, ToolError, type ToolOutput, type ToolResult } from '../../contract/types';
import { byteLength, clipLine, formatBytes } from '../../contract/text';
import { openDb } from '../../store/db';
import { addMemory, type Memory } from '../../store/memories';

/**
 * Memories: facts about a workspace kept across sessions (Clamp's database, not the workspace).
 *
 * memory_save is a 'read' tool on purpose. It writes only Clamp's own data, never a file of the
 * workspace, a process or the network; remembering is part of planning, so plan mode must keep it;
 * and asking the user before every memory would be noise. What keeps it honest instead: each
 * memory is one short sentence, nothing loads memories into a prompt unasked (only memory_search
 * reads them), and the page lists every memory with a delete button.
 */

/** The day a memory was saved, as memory_save and memory_search write it. */
export const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What memory_save tells the page: the memory and whether this call added it. */
export interface MemorySaveMeta {
  memory: Memory;
  created: boolean;
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
