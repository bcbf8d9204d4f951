import type { ToolContext, ToolResult } from '../../contract/types';
import { formatCount } from '../../contract/text';
import type { TodoItem } from '../../contract/protocol';

/**
 * The session's plan, which todo_write replaces and todo_read returns: where it is kept and how it reads.
 *
 * Both are 'read' tools: they touch only Clamp's own state (a row in its database), never the
 * workspace or the outside world. Planning is what plan mode is for, so plan mode must list them,
 * and asking the user before every plan update would be noise with nothing to protect.
 */

export const STATUS = ['pending', 'in_progress', 'completed', 'cancelled'] as const;

/** The key a list is kept under: the session, or one fixed key for the tool CLI (no session). */
export const CLI_TODO_KEY = 'cli';

const CACHE = Symbol.for('clamp.todos');

/** Lists by data dir + session, most recently written last (the oldest go first past the cap). */
export function cache(): Map<string, TodoItem[]> {
  const g = globalThis as unknown as Record<symbol, Map<string, TodoItem[]> | undefined>;
  return (g[CACHE] ??= new Map());
}

/** Where a context's list is kept: its key in the database and in this process's cache. */
export function keyOf(ctx: ToolContext): { db: string; mem: string } {
  const db = ctx.sessionId ?? CLI_TODO_KEY;
  return { db, mem: `${ctx.dataDir}\n${db}` };
}

/** Keep a list in the cache (most recent last), dropping the oldest past TODO_CACHE_MAX_SESSIONS. */
export function remember(ctx: ToolContext, key: string, items: TodoItem[]): void {
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

/** What the todo tools tell the page: the plan after the call (the plan panel follows it). */
export interface TodoMeta {
  todos: TodoItem[];
}

/** A result's progress for its summary: "2 of 5 done" (empty without a plan). */
export function progress(r?: ToolResult<TodoMeta>): string {
  const items = r?.meta?.todos;
  return items ? `${items.filter((i) => i.status === 'completed').length} of ${items.length} done` : '';
}

