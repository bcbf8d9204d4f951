import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, tempWorkspace } from '../helpers';
import { CLI_TODO_KEY, renderTodos } from '../../lib/tools/todo/plan';
import { todoWriteTool } from '../../lib/tools/todo/todo-write';
import { todoReadTool } from '../../lib/tools/todo/todo-read';
import { closeDb, MIGRATIONS, openConnection, openDb } from '../../lib/store/db';
import { loadTodos, saveTodos } from '../../lib/store/todos';
import { createSession, deleteSession } from '../../lib/store/sessions';
import type { TodoItem } from '../../lib/contract/protocol';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-todo-');
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

const TOOLS = [todoWriteTool, todoReadTool];
const plan: TodoItem[] = [
  { content: 'Read the parser', status: 'completed' },
  { content: 'Fix the  off-by-one\n in tokens', status: 'in_progress' },
  { content: 'Add a test', status: 'pending' },
  { content: 'Rewrite everything', status: 'cancelled' },
];
const rendered =
  '4 items (1 pending, 1 in progress, 1 completed, 1 cancelled):\n[x] 1. Read the parser\n[>] 2. Fix the off-by-one in tokens\n[ ] 3. Add a test\n[-] 4. Rewrite everything';

describe('todo_write / todo_read', () => {
  it('replaces the whole list and returns it; meta carries the items for the plan panel', async () => {
    const h = harness(TOOLS, ws, { sessionId: 's1' });
    const w = await h.call('todo_write', { items: plan });
    expect(w).toMatchObject({ status: 'ok', output: `Plan updated. ${rendered}`, truncation: null });
    expect(w.meta).toEqual({
      todos: [plan[0], { content: 'Fix the off-by-one in tokens', status: 'in_progress' }, plan[2], plan[3]],
    });
    expect((await h.call('todo_read', {})).output).toBe(rendered);
    const again = await h.call('todo_write', { items: [{ content: 'Only this', status: 'pending' }] });
    expect(again.output).toBe('Plan updated. 1 item (1 pending):\n[ ] 1. Only this');
    expect((await h.call('todo_read', {})).output).toBe('1 item (1 pending):\n[ ] 1. Only this');
  });

  it('an empty list clears the plan; reading an empty plan says what to do', async () => {
    const h = harness(TOOLS, ws, { sessionId: 's1' });
    expect((await h.call('todo_read', {})).output).toBe('The plan is empty. Write one with todo_write when the task has three or more steps.');
    await h.call('todo_write', { items: plan });
    expect((await h.call('todo_write', { items: [] })).output).toBe('Plan updated. The plan is empty.');
    expect((await h.call('todo_read', {})).meta).toEqual({ todos: [] });
  });

  it('lists are kept per session, and under a fixed key without one (the tool CLI)', async () => {
    await harness(TOOLS, ws, { sessionId: 'a' }).call('todo_write', { items: [{ content: 'A', status: 'pending' }] });
    await harness(TOOLS, ws).call('todo_write', { items: [{ content: 'cli', status: 'completed' }] });
    expect((await harness(TOOLS, ws, { sessionId: 'b' }).call('todo_read', {})).meta).toEqual({ todos: [] });
    expect((await harness(TOOLS, ws, { sessionId: 'a' }).call('todo_read', {})).meta).toEqual({ todos: [{ content: 'A', status: 'pending' }] });
    expect(loadTodos(openDb(ws.dataDir), CLI_TODO_KEY)).toEqual([{ content: 'cli', status: 'completed' }]);
  });

  it('persists across reopening the database and a cold process cache', async () => {
    await harness(TOOLS, ws, { sessionId: 'keep' }).call('todo_write', { items: plan });
    closeDb(ws.dataDir);
    // a new process has an empty cache: the list must come back from the database
    (globalThis as unknown as Record<symbol, Map<string, unknown>>)[Symbol.for('clamp.todos')].clear();
    expect((await harness(TOOLS, ws, { sessionId: 'keep' }).call('todo_read', {})).output).toBe(rendered);
  });

  it(`past TODO_MAX_ITEMS: an error naming the count and the maximum`, async () => {
    const h = harness(TOOLS, ws, { budget: { TODO_MAX_ITEMS: 3 } });
    const items = Array.from({ length: 4 }, (_, i) => ({ content: `step ${i}`, status: 'pending' }));
    const r = await h.call('todo_write', { items });
    expect(r).toMatchObject({
      status: 'error',
      output: 'todo_write got 4 items; at most 3 are allowed. Merge small steps or drop finished ones, then call todo_write again with the whole list.',
    });
    expect((await h.call('todo_write', { items: items.slice(0, 3) })).status).toBe('ok');
  });

  it('an empty item, or one over TODO_ITEM_MAX_BYTES, is refused with the next step', async () => {
    const h = harness(TOOLS, ws, { budget: { TODO_ITEM_MAX_BYTES: 10 } });
    expect((await h.call('todo_write', { items: [{ content: 'ok', status: 'pending' }, { content: '  ', status: 'pending' }] })).output).toBe(
      'Item 2 has empty content. Describe the step in a few words (or leave the item out) and call todo_write again with the whole list.',
    );
    expect((await h.call('todo_write', { items: [{ content: 'x'.repeat(11), status: 'pending' }] })).output).toBe(
      'Item 1 is 11 bytes; an item holds at most 10 bytes. Shorten it to one step (split it into several items if needed) and call todo_write again.',
    );
    // nothing was written by the refused calls
    expect((await h.call('todo_read', {})).meta).toEqual({ todos: [] });
  });

  it('an unknown status is refused by the schema', async () => {
    const r = await harness(TOOLS, ws).call('todo_write', { items: [{ content: 'x', status: 'done' }] });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^Invalid arguments for todo_write:\n- `items.0.status`: /);
  });

  it('both run in plan mode without asking (they touch only Clamp\'s own state)', async () => {
    const h = harness(TOOLS, ws);
    expect((await h.call('todo_write', { items: plan }, { mode: 'plan' }, {})).status).toBe('ok');
    expect((await h.call('todo_read', {}, { mode: 'plan' }, {})).status).toBe('ok');
  });

  it('when the database cannot be opened the plan still works for this process, and says it will not survive a restart', async () => {
    const notADir = ws.write('data-is-a-file', 'x');
    const h = harness(TOOLS, { workspace: ws.workspace, dataDir: notADir }, { sessionId: 'nodb' });
    const w = await h.call('todo_write', { items: [{ content: 'A', status: 'pending' }] });
    expect(w.status).toBe('ok');
    expect(w.output).toMatch(/^Plan updated\. 1 item \(1 pending\):\n\[ \] 1\. A\nnote: the plan could not be saved to disk \(.+\); it lasts until Clamp restarts\.$/);
    expect((await h.call('todo_read', {})).output).toBe('1 item (1 pending):\n[ ] 1. A');
  });

  it('renderTodos of an empty list', () => {
    expect(renderTodos([])).toBe('The plan is empty.');
  });

  it('schemas', () => {
    expect(z.toJSONSchema(todoWriteTool.schema)).toMatchSnapshot();
    expect(z.toJSONSchema(todoReadTool.schema)).toMatchSnapshot();
  });
});

describe('todos store', () => {
  it('saveTodos replaces; a deleted session takes its list along', () => {
    const db = openDb(ws.dataDir);
    const s = createSession(db, { workspace: ws.workspace });
    saveTodos(db, s.id, plan);
    saveTodos(db, s.id, plan.slice(0, 1));
    expect(loadTodos(db, s.id)).toEqual(plan.slice(0, 1));
    deleteSession(db, ws.workspace, s.id);
    expect(loadTodos(db, s.id)).toBeUndefined();
  });

  it('a database from before the todos migration is upgraded in place, its data kept', () => {
    const file = path.join(ws.dataDir, 'v1.db');
    const raw = new Database(file);
    raw.exec(MIGRATIONS[0].sql);
    raw.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    raw.prepare('INSERT INTO schema_version VALUES (1, ?, 0)').run(MIGRATIONS[0].name);
    raw.prepare("INSERT INTO memories (workspace, content, created_at) VALUES ('/w', 'kept', 1)").run();
    raw.close();
    const db = openConnection(file);
    try {
      expect((db.prepare('SELECT version FROM schema_version ORDER BY version').all() as { version: number }[]).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      saveTodos(db, 'x', plan);
      expect(loadTodos(db, 'x')).toEqual(plan);
      expect(db.prepare('SELECT content FROM memories').all()).toEqual([{ content: 'kept' }]);
    } finally {
      db.close();
    }
  });

  it('a damaged row reads as no list', () => {
    const db = openDb(ws.dataDir);
    db.prepare('INSERT INTO todos (session_id, json, updated_at) VALUES (?, ?, ?)').run('bad', '{not json', 1);
    db.prepare('INSERT INTO todos (session_id, json, updated_at) VALUES (?, ?, ?)').run('odd', '[{"content":1}]', 1);
    expect(loadTodos(db, 'bad')).toBeUndefined();
    expect(loadTodos(db, 'odd')).toBeUndefined();
  });
});
