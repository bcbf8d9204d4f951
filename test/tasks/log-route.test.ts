import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as logRoute from '../../app/api/tasks/[id]/log/route';
import { serverConfig } from '../../lib/server/http';
import { getTaskManager, shutdownTasks, type TaskInfo } from '../../lib/tasks/manager';
import { budgetTable } from '../../lib/contract/budget';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let task: TaskInfo;
const saved = { ...process.env };

beforeAll(async () => {
  ws = tempWorkspace('clamp-log-route-');
  process.env.CLAMP_WORKSPACE = ws.workspace;
  process.env.CLAMP_DATA_DIR = ws.dataDir;
  delete process.env.CLAMP_MODE;
  const mgr = getTaskManager(serverConfig().dataDir);
  const started = mgr.start({ command: 'echo out1; sleep 0.05; echo err1 >&2; sleep 0.05; echo out2', cwd: ws.workspace, budget: budgetTable({ COMMAND_KILL_GRACE_MS: 500 }) });
  for (;;) {
    const r = (await mgr.read(started.id, { maxBytes: 1 << 20, waitMs: 2000 }))!;
    if (r.task.status !== 'running') break;
  }
  task = mgr.get(started.id)!;
});
afterAll(async () => {
  await shutdownTasks();
  ws.cleanup();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

async function get(query: string, id = task.id): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await logRoute.GET(new Request(`http://127.0.0.1/api/tasks/${id}/log${query}`), { params: Promise.resolve({ id }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('GET /api/tasks/:id/log', () => {
  it('answers the combined log by default: both streams in arrival order', async () => {
    expect(task.combinedLogPath.endsWith('.log')).toBe(true);
    const r = await get('');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ path: task.combinedLogPath, text: 'out1\nerr1\nout2\n', eof: true });
    expect((await get('?stream=combined')).body).toEqual(r.body);
  });

  it('answers one stream when asked', async () => {
    expect((await get('?stream=stdout')).body).toMatchObject({ path: task.logPaths.stdout, text: 'out1\nout2\n' });
    expect((await get('?stream=stderr&offset=0&limit=100')).body).toMatchObject({ path: task.logPaths.stderr, text: 'err1\n' });
  });

  it('refuses a stream it does not know, including names every object has', async () => {
    for (const q of ['?stream=both', '?stream=constructor', '?stream=']) {
      expect(await get(q)).toEqual({ status: 400, body: { error: '?stream= is one of combined, stdout, stderr.' } });
    }
  });

  it('falls back to stdout when the combined log is missing, and says when an asked log is', async () => {
    fs.renameSync(task.combinedLogPath, `${task.combinedLogPath}.moved`);
    try {
      expect((await get('')).body).toMatchObject({ path: task.logPaths.stdout, text: 'out1\nout2\n' });
      expect(await get('?stream=combined')).toEqual({ status: 404, body: { error: `Task ${task.id} has no combined log on disk (it could not be written).` } });
    } finally {
      fs.renameSync(`${task.combinedLogPath}.moved`, task.combinedLogPath);
    }
  });

  it('a task that does not exist is a 404', async () => {
    expect(await get('', 't999')).toEqual({ status: 404, body: { error: 'Task t999 not found.' } });
  });
});
