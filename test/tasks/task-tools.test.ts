import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, tempWorkspace } from '../helpers';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { taskOutputTool } from '../../lib/tools/commands/task-output';
import { taskListTool } from '../../lib/tools/commands/task-list';
import { taskKillTool } from '../../lib/tools/commands/task-kill';
import { TaskManager } from '../../lib/tasks/manager';
import { liveGroupMembers } from '../../lib/exec/group';
import { budgetTable } from '../../lib/contract/budget';

const TOOLS = [runCommandTool, taskOutputTool, taskListTool, taskKillTool];
let ws: ReturnType<typeof tempWorkspace>;

beforeAll(() => {
  ws = tempWorkspace();
});
afterAll(() => ws.cleanup());

/** A fresh manager and harness per test, so ids start at t1. */
function setup(budget: Parameters<typeof budgetTable>[0] = {}, sessionId?: string) {
  const tasks = new TaskManager(ws.dataDir);
  const h = harness(TOOLS, ws, { services: { tasks }, budget: { COMMAND_KILL_GRACE_MS: 500, ...budget }, sessionId });
  return { tasks, h, bg: async (command: string) => (await h.call('run_command', { command, background: true })).meta!.taskId as string };
}

const steady = (s: string) => s.replace(/ran \d+ ms|ran [\d.]+ s/, 'ran X').replace(/[\d.]+ (ms|s) so far/, 'X so far');

describe('task_output', () => {
  it('a finished task: status, exit code, both streams, nothing more to read', async () => {
    const { h, tasks, bg } = setup();
    const id = await bg('echo out; echo err >&2; exit 2');
    while (tasks.get(id)!.status === 'running') await new Promise((r) => setTimeout(r, 20));
    const r = await h.call('task_output', { id });
    expect(steady(r.output)).toBe(
      'task t1 · status: exited · exit code 2 · ran X\ncommand: echo out; echo err >&2; exit 2\n' +
        'stdout (new since the last read):\nout\nstderr (new since the last read):\nerr\n' +
        'It has finished and all its output has been read.',
    );
    expect(r.truncation).toBeNull();
    const again = await h.call('task_output', { id });
    expect(steady(again.output)).toBe(
      'task t1 · status: exited · exit code 2 · ran X\ncommand: echo out; echo err >&2; exit 2\n' +
        'stdout (new since the last read):\n(no new output)\nstderr (new since the last read):\n(no new output)\n' +
        'It has finished and all its output has been read.',
    );
    expect(again.status).toBe('ok');
    expect(again.meta).toMatchObject({ taskId: 't1', status: 'exited', exitCode: 2 });
  });

  it('a task writing 1 MB to stderr and exiting: exit code 0, stderr readable, what was dropped is counted', async () => {
    const { h, bg, tasks } = setup();
    const id = await bg('head -c 1048576 /dev/zero | tr "\\0" e >&2');
    while (tasks.get(id)!.status === 'running') await new Promise((r) => setTimeout(r, 20));
    const r = await h.call('task_output', { id });
    const lines = r.output.split('\n');
    expect(steady(lines[0])).toBe('task t1 · status: exited · exit code 0 · ran X');
    expect(r.output).toContain(
      'stderr (new since the last read):\n[524,288 bytes of stderr (lines 1–1) were dropped from memory before this read: more than 512.0 KB was unread. ' +
        `The log file has them: ${tasks.get(id)!.logPaths.stderr} — read them with read_file (offset 1) or search with grep.]\n` +
        'e'.repeat(8000) + '\n[516,288 more bytes of unread stderr; call task_output again to continue.]\nIt has finished; call task_output again to read the rest.',
    );
    expect(r.truncation).toEqual({ unit: 'bytes', shown: 8000, total: 1024 * 1024, spillPath: tasks.get(id)!.logPaths.stderr, by: 'tool' });
    expect(r.hint).toBe('516,288 bytes are still unread: call task_output(id: "t1") again to continue.');
  });

  it('past TASK_OUTPUT_MAX_BYTES it says how much is unread, and the next call continues', async () => {
    const { h, bg, tasks } = setup({ TASK_OUTPUT_MAX_BYTES: 300 });
    const id = await bg('seq 1 200');
    while (tasks.get(id)!.status === 'running') await new Promise((r) => setTimeout(r, 20));
    const first = await h.call('task_output', { id });
    const firstText = /stdout \(new since the last read\):\n([\s\S]*?)\n\[/.exec(first.output)![1];
    expect(firstText.startsWith('1\n2\n3\n')).toBe(true);
    const shown = Buffer.byteLength(firstText) + 1;
    expect(first.output).toContain(`\n[${692 - shown} more bytes of unread stdout; call task_output again to continue.]\n`);
    const rest: string[] = [firstText];
    for (let i = 0; i < 5; i++) {
      const r = await h.call('task_output', { id });
      const m = /stdout \(new since the last read\):\n([\s\S]*?)\n(\[|stderr)/.exec(r.output)!;
      if (m[1] === '(no new output)') break;
      rest.push(m[1]);
    }
    expect(rest.join('\n')).toBe(Array.from({ length: 200 }, (_, i) => i + 1).join('\n'));
  });

  it('wait_ms returns early when output arrives, and is capped at TASK_WAIT_MAX_MS', async () => {
    const { h, bg, tasks } = setup({ TASK_WAIT_MAX_MS: 1500 });
    const id = await bg('sleep 0.3; echo tick; sleep 30');
    const t0 = Date.now();
    const r = await h.call('task_output', { id, wait_ms: 1000 });
    expect(Date.now() - t0).toBeLessThan(900);
    expect(steady(r.output)).toBe(
      'task t1 · status: running · X so far\ncommand: sleep 0.3; echo tick; sleep 30\n' +
        'stdout (new since the last read):\ntick\nstderr (new since the last read):\n(no new output)\n' +
        'Still running: call task_output again for more (wait_ms up to 1,500 waits for it), or stop it with task_kill.',
    );
    const t1 = Date.now();
    const quiet = await h.call('task_output', { id, wait_ms: 90_000 });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(1400);
    expect(quiet.output).toContain('\nnote: wait_ms 90,000 is above the maximum of 1,500; it waited at most 1,500 ms.\nnote: no new output within ');
    await tasks.shutdown();
  });

  it('an unknown id lists the known ones', async () => {
    const { h, bg, tasks } = setup();
    const none = await h.call('task_output', { id: 't9' });
    expect(none.status).toBe('error');
    expect(none.output).toBe('Unknown task id "t9": there are no background tasks. Start one with run_command(background: true).');
    await bg('true');
    await bg('sleep 30');
    const r = await h.call('task_output', { id: 'nope' });
    expect(r.output).toMatch(/^Unknown task id "nope"\. Known tasks: t1 \((running|exited)\), t2 \(running\)\. Pass one of those ids; task_list shows them with their commands\.$/);
    const k = await h.call('task_kill', { id: 'nope' });
    expect(k.output).toBe(r.output.replace(/t1 \(\w+\)/, `t1 (${tasks.get('t1')!.status})`));
    const empty = await h.call('task_output', { id: '' });
    expect(empty.output).toBe('Invalid arguments for task_output:\n- `id`: must not be empty.\nPass a non-empty id and call task_output again.');
    await tasks.shutdown();
  });

  it('a session sees only its own tasks', async () => {
    const tasks = new TaskManager(ws.dataDir);
    const a = harness(TOOLS, ws, { services: { tasks }, sessionId: 'A' });
    const b = harness(TOOLS, ws, { services: { tasks }, sessionId: 'B' });
    const started = await a.call('run_command', { command: 'sleep 30', background: true });
    expect((await b.call('task_list', {})).output).toBe('No background tasks. Start one with run_command(background: true).');
    expect((await b.call('task_kill', { id: started.meta!.taskId })).status).toBe('error');
    expect((await a.call('task_list', {})).output).toContain('t1 · running');
    await tasks.shutdown();
  });
});

describe('task_list', () => {
  it('shows every task with status, age, unread bytes and command', async () => {
    const { h, bg, tasks } = setup();
    expect((await h.call('task_list', {})).output).toBe('No background tasks. Start one with run_command(background: true).');
    await bg('echo hello; exit 1');
    await bg('sleep 30');
    while (tasks.get('t1')!.status === 'running') await new Promise((r) => setTimeout(r, 20));
    const r = await h.call('task_list', {});
    expect(r.output.replace(/started [\d.]+ m?s ago/g, 'started X ago')).toBe(
      '2 background tasks (1 running):\n' +
        't1 · exited (exit code 1) · started X ago · unread: stdout 6 bytes, stderr 0 bytes · echo hello; exit 1\n' +
        't2 · running · started X ago · unread: none · sleep 30\n' +
        "Read a task's new output with task_output(id); stop one with task_kill(id).",
    );
    expect(r.meta!.tasks).toHaveLength(2);
    await tasks.shutdown();
  });
});

describe('task_kill', () => {
  it('kills the whole group, grandchildren included, and reports it', async () => {
    const { h, bg, tasks } = setup();
    const id = await bg('sleep 300 & (sleep 300 &); bash -c "sleep 300 & wait" & echo up; sleep 300');
    await h.call('task_output', { id, wait_ms: 3000 });
    const pid = tasks.get(id)!.pid!;
    expect(liveGroupMembers(pid)!.length).toBeGreaterThanOrEqual(4);
    const r = await h.call('task_kill', { id });
    expect(r.output).toMatch(/^Killed task t1 and its whole process group: killed by the user after [\d.]+ m?s\. Its logs stay on disk: stdout \S+\.stdout\.log, stderr \S+\.stderr\.log\.$/);
    expect(liveGroupMembers(pid)).toEqual([]);
    const again = await h.call('task_kill', { id });
    expect(again.output).toBe('Task t1 had already finished (killed: killed by the user); nothing was killed.');
    const status = await h.call('task_output', { id });
    expect(steady(status.output.split('\n')[0])).toBe('task t1 · status: killed · killed by the user · ran X');
  });

  it('mentions unread output left behind', async () => {
    const { h, bg, tasks } = setup();
    const id = await bg('echo left-behind; sleep 300');
    while (tasks.get(id)!.unreadBytes.stdout === 0) await new Promise((r) => setTimeout(r, 20));
    const r = await h.call('task_kill', { id });
    expect(r.output).toMatch(/^Killed task t1 and its whole process group: killed by the user after [\d.]+ m?s\. It left 12 bytes of unread output: read it with task_output\(id: "t1"\)\.$/);
  });
});

describe('schemas and descriptions', () => {
  it('are stable and quote the budget', () => {
    expect(z.toJSONSchema(taskOutputTool.schema)).toMatchSnapshot();
    expect(z.toJSONSchema(taskListTool.schema)).toMatchSnapshot();
    expect(z.toJSONSchema(taskKillTool.schema)).toMatchSnapshot();
    const b = budgetTable({ TASK_OUTPUT_MAX_BYTES: 4000, TASK_WAIT_MAX_MS: 30_000 });
    expect(taskOutputTool.describe(b)).toContain('at most 4,000 bytes of new stdout');
    expect(taskOutputTool.describe(b)).toContain('wait_ms (at most 30,000)');
    expect([taskOutputTool.effect, taskListTool.effect, taskKillTool.effect]).toEqual(['read', 'read', 'system']);
  });
});
