import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../helpers';
import { TaskManager, getTaskManager, shutdownTasks, tasksFor } from '../../lib/tasks/manager';
import type { TaskEvent } from '../../lib/tasks/events';
import { liveGroupMembers } from '../../lib/exec/group';
import { budgetTable } from '../../lib/contract/budget';

let ws: ReturnType<typeof tempWorkspace>;
let mgr: TaskManager;
const budget = budgetTable({ COMMAND_KILL_GRACE_MS: 500 });

beforeAll(() => {
  ws = tempWorkspace();
  mgr = new TaskManager(ws.dataDir);
});
afterAll(async () => {
  await mgr.shutdown();
  ws.cleanup();
});

const start = (command: string, extra: { sessionId?: string; timeoutMs?: number } = {}) =>
  mgr.start({ command, cwd: ws.workspace, budget, ...extra });

/** Read until the task has finished, collecting everything. */
async function drain(m: TaskManager, id: string, maxBytes = 1 << 20) {
  let stdout = '';
  let stderr = '';
  let dropped = 0;
  for (;;) {
    const r = (await m.read(id, { maxBytes, waitMs: 2000 }))!;
    stdout += r.stdout.text;
    stderr += r.stderr.text;
    dropped += r.stdout.droppedBytes + r.stderr.droppedBytes;
    if (r.task.status !== 'running' && r.stdout.remainingBytes + r.stderr.remainingBytes === 0) return { task: r.task, stdout, stderr, dropped };
  }
}

function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

describe('TaskManager', () => {
  it('a task writing 1 MB to stderr finishes normally and its stderr is readable', async () => {
    const t = start('head -c 1048576 /dev/zero | tr "\\0" e >&2; echo finished');
    const r = await drain(mgr, t.id);
    expect(r.task.status).toBe('exited');
    expect(r.task.exitCode).toBe(0);
    expect(r.stdout).toBe('finished\n');
    // what was not read in time past TASK_CAPTURE_MAX_BYTES is counted, never silently lost
    expect(r.stderr.length + r.dropped).toBe(1024 * 1024);
    expect(r.stderr.length).toBeGreaterThanOrEqual(budget.TASK_CAPTURE_MAX_BYTES);
    expect(/^e+$/.test(r.stderr)).toBe(true);
    expect(r.task.totalBytes.stderr).toBe(1024 * 1024);
    expect(fs.statSync(r.task.logPaths.stderr).size).toBe(1024 * 1024);
  });

  it('wait_ms returns as soon as output arrives, or the task exits', async () => {
    const t = start('sleep 0.4; echo ready; sleep 30');
    const t0 = Date.now();
    const r = (await mgr.read(t.id, { maxBytes: 8000, waitMs: 10_000 }))!;
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(r.stdout.text).toBe('ready\n');
    expect(r.task.status).toBe('running');

    const quiet = start('sleep 0.3');
    const t1 = Date.now();
    const q = (await mgr.read(quiet.id, { maxBytes: 8000, waitMs: 10_000 }))!;
    expect(Date.now() - t1).toBeLessThan(1500);
    expect(q.task.status).toBe('exited');

    const silent = start('sleep 30');
    const s = (await mgr.read(silent.id, { maxBytes: 8000, waitMs: 300 }))!;
    expect(s.waitedMs).toBeGreaterThanOrEqual(290);
    expect(s.stdout.bytes + s.stderr.bytes).toBe(0);
    await mgr.kill(t.id);
    await mgr.kill(silent.id);
  });

  it('20 tasks at once stay independent', async () => {
    const ids = Array.from({ length: 20 }, (_, n) =>
      start(`for i in 1 2 3 4 5; do echo "task ${n} line $i"; sleep 0.02; done; echo "task ${n} err" >&2; exit ${n}`).id,
    );
    const results = await Promise.all(ids.map((id) => drain(mgr, id)));
    results.forEach((r, n) => {
      expect(r.task.status).toBe('exited');
      expect(r.task.exitCode).toBe(n);
      expect(r.stdout).toBe([1, 2, 3, 4, 5].map((i) => `task ${n} line ${i}\n`).join(''));
      expect(r.stderr).toBe(`task ${n} err\n`);
    });
  });

  it('killing a task whose child spawned grandchildren leaves none running', async () => {
    const t = start('sleep 300 & echo $!; (sleep 300 & echo $!); bash -c "sleep 300 & echo \\$!; wait" & sleep 300');
    const pids: number[] = [];
    while (pids.length < 3) {
      const r = (await mgr.read(t.id, { maxBytes: 8000, waitMs: 2000 }))!;
      pids.push(...r.stdout.text.split('\n').filter(Boolean).map(Number));
    }
    expect(pids.every(running)).toBe(true);
    const killed = (await mgr.kill(t.id))!;
    expect(killed.status).toBe('killed');
    expect(killed.statusText).toBe('killed by the user');
    expect(pids.some(running)).toBe(false);
    expect(liveGroupMembers(t.pid!)).toEqual([]);
  });

  it('publishes start, output and exit events with the task id and session', async () => {
    const events: TaskEvent[] = [];
    const off = mgr.on((e) => events.push(e));
    const t = start('echo out; echo err >&2; exit 4', { sessionId: 's-events' });
    await drain(mgr, t.id);
    off();
    const mine = events.filter((e) => e.taskId === t.id);
    expect(mine[0]).toMatchObject({ type: 'start', taskId: t.id, sessionId: 's-events', command: 'echo out; echo err >&2; exit 4', cwd: ws.workspace, pid: t.pid });
    expect(mine.filter((e) => e.type === 'output')).toEqual(
      expect.arrayContaining([
        { type: 'output', taskId: t.id, sessionId: 's-events', stream: 'stdout', text: 'out\n' },
        { type: 'output', taskId: t.id, sessionId: 's-events', stream: 'stderr', text: 'err\n' },
      ]),
    );
    expect(mine.at(-1)).toMatchObject({ type: 'exit', taskId: t.id, sessionId: 's-events', status: 'exited', exitCode: 4, statusText: 'exit code 4' });
  });

  it('a throwing listener does not break the task or the other listeners', async () => {
    const seen: string[] = [];
    const off1 = mgr.on(() => {
      throw new Error('broken subscriber');
    });
    const off2 = mgr.on((e) => seen.push(e.type));
    const t = start('echo x');
    const r = await drain(mgr, t.id);
    off1();
    off2();
    expect(r.task.exitCode).toBe(0);
    expect(seen).toContain('exit');
  });

  it('background tasks have no timeout unless given one', async () => {
    const t = start('sleep 1.2; echo slow');
    const withTimeout = start('sleep 30', { timeoutMs: 1000 });
    const [a, b] = await Promise.all([drain(mgr, t.id), drain(mgr, withTimeout.id)]);
    expect(a.task.status).toBe('exited');
    expect(a.stdout).toBe('slow\n');
    expect(b.task.status).toBe('timed out');
    expect(b.task.statusText).toBe('killed: timed out after 1 s');
  });

  it('memory per task is bounded: unread output past the cap is dropped and counted, the log keeps it', async () => {
    const small = new TaskManager(ws.dataDir);
    const t = small.start({ command: 'seq 1 20000', cwd: ws.workspace, budget: budgetTable({ TASK_CAPTURE_MAX_BYTES: 1000 }) });
    while (small.get(t.id)!.status === 'running') await new Promise((r) => setTimeout(r, 20));
    const r = (await small.read(t.id, { maxBytes: 8000 }))!;
    expect(r.stdout.bytes).toBe(1000);
    expect(r.stdout.droppedBytes).toBe(108_894 - 1000);
    expect(r.stdout.text.endsWith('19999\n20000\n')).toBe(true);
    const log = fs.readFileSync(r.task.logPaths.stdout, 'utf8');
    expect(log.split('\n').length).toBe(20_001);
    const droppedText = log.slice(0, r.stdout.droppedBytes);
    expect(r.stdout.text).toBe(log.slice(r.stdout.droppedBytes));
    // the dropped bytes end mid-line here: that line is both the last dropped and the first shown
    expect(droppedText.endsWith('\n')).toBe(false);
    expect(r.stdout.droppedLines).toEqual({ from: 1, to: droppedText.split('\n').length });
    expect(r.stdout.startLine).toBe(droppedText.split('\n').length);
  });

  it('limits how many tasks run at once, and shutdown kills every task and refuses new ones', async () => {
    const m = new TaskManager(ws.dataDir);
    const b = budgetTable({ TASK_MAX_RUNNING: 2, COMMAND_KILL_GRACE_MS: 500 });
    const a = m.start({ command: 'sleep 30', cwd: ws.workspace, budget: b });
    const c = m.start({ command: 'sleep 30 & sleep 30', cwd: ws.workspace, budget: b });
    expect(() => m.start({ command: 'sleep 30', cwd: ws.workspace, budget: b })).toThrow(
      '2 background tasks are already running (the limit is 2). Stop one with task_kill (see task_list), then start this one again.',
    );
    await m.shutdown();
    for (const t of [a, c]) {
      expect(m.get(t.id)).toMatchObject({ status: 'killed', statusText: 'killed: Clamp was shutting down' });
      expect(liveGroupMembers(t.pid!)).toEqual([]);
    }
    expect(() => m.start({ command: 'true', cwd: ws.workspace, budget: b })).toThrow('Clamp is shutting down; no new background task can start.');
  });

  it('keeps at most TASK_MAX_KEPT tasks, forgetting the oldest finished ones', async () => {
    const m = new TaskManager(ws.dataDir);
    const b = budgetTable({ TASK_MAX_KEPT: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const t = m.start({ command: 'true', cwd: ws.workspace, budget: b });
      ids.push(t.id);
      await drain(m, t.id);
    }
    expect(m.list().map((t) => t.id)).toEqual(ids.slice(2));
  });

  it('one process-wide manager on globalThis; tools fall back to it', async () => {
    const g = getTaskManager(ws.dataDir);
    expect(getTaskManager('/elsewhere')).toBe(g);
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('clamp.tasks')]).toBe(g);
    expect(tasksFor({ services: {}, dataDir: ws.dataDir })).toBe(g);
    expect(tasksFor({ services: { tasks: mgr }, dataDir: ws.dataDir })).toBe(mgr);
    const t = g.start({ command: 'sleep 30', cwd: ws.workspace, budget });
    await shutdownTasks();
    expect(g.get(t.id)!.status).toBe('killed');
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('clamp.tasks')];
  });
});
