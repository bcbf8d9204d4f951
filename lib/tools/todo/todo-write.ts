import { z } from 'zod';
import { defineTool, ToolError, type ToolOutput, type ToolResult } from '../../contract/types';
import { byteLength, formatBytes, formatCount } from '../../contract/text';
import type { TodoItem } from '../../contract/protocol';
import { openDb } from '../../store/db';
import { saveTodos } from '../../store/todos';
import { keyOf, progress, remember, renderTodos, STATUS, type TodoMeta } from './plan';

const itemSchema = z.strictObject({
  content: z.string(),
  status: z.enum(STATUS),
}) satisfies z.ZodType<TodoItem>;

const writeSchema = z.strictObject({
  items: z.array(itemSchema),
});

/** The list's text without runs of whitespace a model may have left (each item is one line). */
function clean(items: readonly TodoItem[]): TodoItem[] {
  return items.map((i) => ({ content: i.content.trim().replace(/\s+/g, () => ' '), status: i.status }));
}

export const todoWriteTool = defineTool({
  name: 'todo_write',
  effect: 'read',
  // explore leaves out what keeps state beyond the child; the plan's results are never pruned
  traits: { subagents: ['general'], prune: 'never', activity: 'think' },
  schema: writeSchema,
  summary: (input, r?: ToolResult<TodoMeta>) => progress(r) || `${input.items.length} item${input.items.length === 1 ? '' : 's'}`,
  describe: (b) =>
    [
      'Replace your plan, a checklist the user sees live, with this whole list (send every item each time). Use it for tasks of 3+ steps and update statuses as you go; keep one item in_progress.',
      `At most ${b.TODO_MAX_ITEMS} items of ${formatBytes(b.TODO_ITEM_MAX_BYTES)} each. todo_read returns the list.`,
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<TodoMeta>> {
    const b = ctx.budget;
    if (input.items.length > b.TODO_MAX_ITEMS) {
      throw new ToolError(
        `todo_write got ${formatCount(input.items.length)} items; at most ${b.TODO_MAX_ITEMS} are allowed. Merge small steps or drop finished ones, then call todo_write again with the whole list.`,
      );
    }
    const items = clean(input.items);
    items.forEach((item, n) => {
      if (item.content === '') {
        throw new ToolError(`Item ${n + 1} has empty content. Describe the step in a few words (or leave the item out) and call todo_write again with the whole list.`);
      }
      const bytes = byteLength(item.content);
      if (bytes > b.TODO_ITEM_MAX_BYTES) {
        throw new ToolError(
          `Item ${n + 1} is ${formatBytes(bytes)}; an item holds at most ${formatBytes(b.TODO_ITEM_MAX_BYTES)}. Shorten it to one step (split it into several items if needed) and call todo_write again.`,
        );
      }
    });
    const key = keyOf(ctx);
    remember(ctx, key.mem, items);
    let note = '';
    try {
      saveTodos(openDb(ctx.dataDir), key.db, items);
    } catch (err) {
      // the plan still works for this process; say it will not survive a restart
      note = `\nnote: the plan could not be saved to disk (${err instanceof Error ? err.message : String(err)}); it lasts until Clamp restarts.`;
    }
    return { output: `Plan updated. ${renderTodos(items)}${note}`, meta: { todos: items } };
  },
});
