import type { TodoItem } from '../contract/protocol';
import { stamp, type Db } from './db';

const STATUSES: readonly TodoItem['status'][] = ['pending', 'in_progress', 'completed', 'cancelled'];

function isItem(v: unknown): v is TodoItem {
  const o = v as Partial<TodoItem> | null;
  return typeof o === 'object' && o !== null && typeof o.content === 'string' && STATUSES.includes(o.status as TodoItem['status']);
}

/** A session's saved list, or undefined when none was ever written (a damaged row reads as undefined too). */
export function loadTodos(db: Db, key: string): TodoItem[] | undefined {
  const row = db.prepare('SELECT json FROM todos WHERE session_id = ?').get(key) as { json: string } | undefined;
  if (!row) return undefined;
  try {
    const data: unknown = JSON.parse(row.json);
    return Array.isArray(data) && data.every(isItem) ? data.map((i) => ({ content: i.content, status: i.status })) : undefined;
  } catch {
    return undefined;
  }
}

/** Replace a session's whole list (key: a session id, or a fixed key for the tool CLI). */
export function saveTodos(db: Db, key: string, items: readonly TodoItem[]): void {
  db.prepare(
    'INSERT INTO todos (session_id, json, updated_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at',
  ).run(key, JSON.stringify(items.map((i) => ({ content: i.content, status: i.status }))), stamp());
}
