import { z } from 'zod';
import { defineTool } from '../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../contract/types';
import { byteLength, formatBytes, formatCount } from '../contract/text';
import type { TodoItem } from '../contract/protocol';
import { openDb } from '../store/db';
import { loadTodos, saveTodos } from '../store/todos';

/**
 * The session's plan: todo_write replaces the whole list, todo_read returns it.
 *
 * Both are 'read' tools: they touch only Clamp's own state (a row in its database), never the
 * workspace or the outside world. Planning is what plan mode is for, so plan mode must list them,
 * and asking the user before every plan update would be noise with nothing to protect.
 */

const STATUS = ['pending', 'in_progress', 'completed', 'cancelled'] as const;

const itemSchema = z.strictObject({
  content: z.string(),
  status: z.enum(STATUS),
}) satisfies z.ZodType<TodoItem>;

const writeSchema = z.strictObject({
  items: z.array(itemSchema),
});

/** The key a list is kept under: the session, or one fixed key for the tool CLI (no session). */
export const CLI_TODO_KEY = 'cli';

const CACHE = Symbol.for('clamp.todos');

/** Lists by data dir + session, most recently written last (the oldest go first past the cap). */
function cache(): Map<string, TodoItem[]> {
  const g = globalThis as unknown as Record<symbol, Map<string, TodoItem[]> | undefined>;
  return (g[CACHE] ??= new Map());
}

function keyOf(ctx: ToolContext): { db: string; mem: string } {
  const db = ctx.sessionId ?? CLI_TODO_KEY;
  return { db, mem: `${ctx.dataDir}\n${db}` };
}

function remember(ctx: ToolContext, key: string, items: TodoItem[]): void {
  const c = cache();
  c.delete(key);
  c.set(key, items);
  while (c.size > ctx.budget.TODO_CACHE_MAX_SESSIONS) c.delete(c.keys().next().value as string);
}

const MARK: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]', cancelled: '[-]' };

/** The list as the model reads it: a count by status, then one numbered line per item. */
export function renderTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'The plan is empty.';
  const by = (s: TodoItem['status']) => items.filter((i) => i.status === s).length;
  const counts = STATUS.filter((s) => by(s) > 0).map((s) => `${by(s)} ${s.replace('_', ' ')}`);
  return [
    `${formatCount(items.length)} item${items.length === 1 ? '' : 's'} (${counts.join(', ')}):`,
    ...items.map((i, n) => `${MARK[i.status]} ${n + 1}. ${i.content}`),
  ].join('\n');
}

/** The list's text without runs of whitespace a model may have left (each item is one line). */
function clean(items: readonly TodoItem[]): TodoItem[] {
  return items.map((i) => ({ content: i.content.trim().replace(/\s+/g, () => ' '), status: i.status }));
}

/** What the todo tools tell the page: the plan after the call (the plan panel follows it). */
export interface TodoMeta {
  todos: TodoItem[];
}

/** "2 of 5 done" */
function progress(r?: ToolResult<TodoMeta>): string {
  const items = r?.meta?.todos;
  return items ? `${items.filter((i) => i.status === 'completed').length} of ${items.length} done` : '';
}

export const todoWriteTool = defineTool({
  name: 'todo_write',
  effect: 'read',
  // explore leaves out what keeps state beyond the child; the plan's results are never pruned
  traits: { subagents: ['general'], prune: 'never' },
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

export const todoReadTool = defineTool({
  name: 'todo_read',
  effect: 'read',
  // the plan's results are never pruned
  traits: { deferRank: 13, prune: 'never' },
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
