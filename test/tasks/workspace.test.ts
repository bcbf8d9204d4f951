import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { getTaskManager } from '../../lib/tasks/manager';
import { taskList, taskOfWorkspace } from '../../lib/server/tasks';
import type { ServerConfig } from '../../lib/server/http';
import { tempWorkspace } from '../helpers';

/** The task panel lists the tasks of the workspace asked for (or of one session), not every task of the server. */

let ws: ReturnType<typeof tempWorkspace>;
let main: ServerConfig;
let other: ServerConfig;
beforeEach(() => {
  ws = tempWorkspace('clamp-tasks-ws-');
  const second = path.join(ws.root, 'second');
  fs.mkdirSync(second);
  main = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  other = { ...main, workspace: fs.realpathSync(second) };
});
afterEach(async () => {
  const tasks = getTaskManager(ws.dataDir);
  for (const t of tasks.list()) if (t.status === 'running') await tasks.kill(t.id, 'user');
  ws.cleanup();
});

describe('tasks by workspace', () => {
  it("lists a workspace's tasks (its sessions', wherever they run, and sessionless ones in its folders), and one session's", async () => {
    const db = openDb(ws.dataDir);
    const a = createSession(db, { workspace: main.workspace }).id;
    const b = createSession(db, { workspace: other.workspace }).id;
    const tasks = getTaskManager(ws.dataDir);
    const inMain = tasks.start({ command: 'sleep 30', cwd: main.workspace, sessionId: a });
    // a session of the main workspace working in a worktree elsewhere: still the main workspace's
    const inTree = tasks.start({ command: 'sleep 30', cwd: ws.root, sessionId: a });
    const inOther = tasks.start({ command: 'sleep 30', cwd: other.workspace, sessionId: b });
    const loose = tasks.start({ command: 'sleep 30', cwd: other.workspace });
    const ids = (l: { id: string }[]) => l.map((t) => t.id).sort();
    expect(ids(taskList(main))).toEqual([inMain.id, inTree.id].sort());
    expect(ids(taskList(other))).toEqual([inOther.id, loose.id].sort());
    expect(ids(taskList(other, b))).toEqual([inOther.id]);
    expect(taskList(main, b)).toEqual([]);
    expect(taskOfWorkspace(main)({ sessionId: undefined, cwd: path.join(main.workspace, 'sub') })).toBe(true);
    expect(taskOfWorkspace(main)({ sessionId: undefined, cwd: main.workspace + '-not' })).toBe(false);
  });
});
