import { z } from 'zod';
import { defineTool, type ToolOutput, type ToolResult } from '../../contract/types';
import { openDb } from '../../store/db';
import { loadTodos } from '../../store/todos';
import { cache, keyOf, progress, remember, renderTodos, type TodoMeta } from './plan';

export const todoReadTool = defineTool({
  name: 'todo_read',
  effect: 'read',
  // the plan's results are never pruned
  traits: { deferRank: 13, prune: 'never', activity: 'think' },
  schema: z.strictObject({}),
  summary: (_input, r?: ToolResult<TodoMeta>) => progress(r),
  describe: () => 'Return the current plan (the list last written with todo_write), with each item\'s status. To change it, call todo_write with the whole new list.',
  async run(_input, ctx): Promise<ToolOutput<TodoMeta>> {
    const key = keyOf(ctx);
    let items = cache().get(key.mem);
    if (!items) {
      items = loadTodos(openDb(ctx.dataDir), key.db) ?? [];
      remember(ctx, key.mem, items);
    }
    const output = items.length === 0 ? 'The plan is empty. Write one with todo_write when the task has three or more steps.' : renderTodos(items);
    return { output, meta: { todos: items } };
  },
});
