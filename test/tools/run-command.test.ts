import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, tempWorkspace } from '../helpers';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { taskOutputTool } from '../../lib/tools/commands/task-output';
import { TaskManager } from '../../lib/tasks/manager';
import { liveGroupMembers } from '../../lib/exec/group';
import { budgetTable } from '../../lib/contract/budget';
import type { ToolProgress } from '../../lib/contract/types';

let ws: ReturnType<typeof tempWorkspace>;
let tasks: TaskManager;
let h: ReturnType<typeof harness>;

beforeAll(() => {
  ws = tempWorkspace();
  fs.mkdirSync(`${ws.workspace}/sub`);
  ws.write('file.txt', 'x');
  tasks = new TaskManager(ws.dataDir);
  h = harness([runCommandTool, taskOutputTool], ws, { services: { tasks }, budget: { COMMAND_KILL_GRACE_MS: 500 } });
});
afterAll(async () => {
  await tasks.shutdown();
  ws.cleanup();
});

/** the duration varies; everything else is asserted exactly */
const steady = (s: string) => s.replace(/^duration: .*$/m, 'duration: X');

async function expectGroupGone(pgid: number) {
  expect(liveGroupMembers(pgid)).toEqual([]);
  const until = Date.now() + 5000;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ESRCH');
      return;
    }
    if (Date.now() > until) throw new Error(`process group ${pgid} still exists`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('run_command', () => {
  it('runs in the workspace and reports exit code, duration, stdout and stderr', async () => {
    const r = await h.call('run_command', { command: 'pwd; echo oops >&2' });
    expect(r.status).toBe('ok');
    expect(steady(r.output)).toBe(`exit code 0\nduration: X\nstdout:\n${ws.workspace}\nstderr:\noops`);
    expect(r.truncation).toBeNull();
    expect(r.meta).toMatchObject({ exitCode: 0, signal: null, timedOut: false, killedByUser: false, cwd: '.', command: 'pwd; echo oops >&2', stdoutBytes: ws.workspace.length + 1, stderrBytes: 5 });
    expect(fs.readFileSync(r.meta!.logPath as string, 'utf8')).toBe(`${ws.workspace}\n`);
  });

  it('a failing command is an error result with its exit code', async () => {
    const r = await h.call('run_command', { command: 'echo "no such thing" >&2; exit 3', cwd: 'sub' });
    expect(r.status).toBe('error');
    expect(steady(r.output)).toBe('exit code 3\nduration: X\nstdout:\n(empty)\nstderr:\nno such thing');
    expect(r.meta).toMatchObject({ exitCode: 3, cwd: 'sub' });
  });

  it('a line every 10 ms for 5 minutes with timeout_ms 2000 is killed after about 2 s, as a timeout, with its group gone', async () => {
    const t0 = Date.now();
    const r = await h.call('run_command', { command: 'for i in $(seq 1 30000); do echo "tick $i"; sleep 0.01; done', timeout_ms: 2000 });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(2000);
    // far from the 5 minutes it would run; loose enough for a loaded 2-core machine
    expect(took).toBeLessThan(6000);
    expect(r.status).toBe('error');
    expect(r.output).toMatch(
      /^killed: timed out after 2 s\nIt did not finish within 2 s; its whole process group was stopped\. If it needs longer, pass a larger timeout_ms \(at most 600,000\), or run it with background: true and follow it with task_output\.\nduration: [2-5](\.\d)? s\nstdout:\ntick 1\n/,
    );
    expect(r.meta).toMatchObject({ timedOut: true, killedByUser: false, exitCode: null, timeoutMs: 2000 });
    await expectGroupGone(r.meta!.pid as number);
  });

  it('a timeout past the range is clamped and the result says so', async () => {
    const over = await h.call('run_command', { command: 'echo hi', timeout_ms: 900_000 });
    expect(steady(over.output)).toBe('exit code 0\nduration: X\nnote: timeout_ms 900,000 is above the maximum of 600,000; it was clamped to 600,000 ms.\nstdout:\nhi\nstderr:\n(empty)');
    expect(over.meta).toMatchObject({ timeoutMs: 600_000 });
    const under = await h.call('run_command', { command: 'echo hi', timeout_ms: 5 });
    expect(steady(under.output)).toBe('exit code 0\nduration: X\nnote: timeout_ms 5 is below the minimum of 1,000; it was raised to 1,000 ms.\nstdout:\nhi\nstderr:\n(empty)');
  });

  it('a stop by the user (abort) reads "killed by the user"', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const r = await h.call('run_command', { command: 'echo started; sleep 60' }, { signal: ac.signal });
    expect(steady(r.output)).toBe('killed by the user\nThe user stopped it. Do not run it again unless the user asks.\nduration: X\nstdout:\nstarted\nstderr:\n(empty)');
    expect(r.meta).toMatchObject({ killedByUser: true, timedOut: false });
    await expectGroupGone(r.meta!.pid as number);
  });

  it('1,000,000 lines give a bounded result with the note, and the log holds every line', async () => {
    const r = await h.call('run_command', { command: 'seq 1 1000000' });
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(budgetTable().TOOL_OUTPUT_MAX_BYTES);
    const logPath = r.meta!.logPath as string;
    expect(r.output).toMatch(/^exit code 0\nduration: [^\n]+\nstdout:\n… \[lines 1–99\d,\d{3} omitted: 6\.\d MB\] …\n99\d{4}\n/);
    expect(r.output).toContain(`999999\n1000000\n[stdout cut: `);
    expect(r.output).toMatch(/ of 6\.6 MB shown \(the end\); [\d,]+ bytes and 99\d,\d{3} lines omitted\. Full stdout: \S+ — read it with read_file \(offset\/limit\) or search it with grep\.\]\nstderr:\n\(empty\)$/);
    expect(r.output).toContain(`Full stdout: ${logPath} — `);
    expect(r.truncation).toMatchObject({ unit: 'bytes', total: 6_888_896, spillPath: logPath, by: 'tool' });
    const lines = fs.readFileSync(logPath, 'utf8').split('\n');
    expect(lines.length).toBe(1_000_001);
    expect(lines[0]).toBe('1');
    expect(lines[999_999]).toBe('1000000');
    expect(r.hint).toContain(logPath);
  });

  it('a command that fails with output in the tail shows its head and its tail', async () => {
    const r = await h.call('run_command', { command: 'for i in $(seq 1 20000); do echo "test $i ok"; done; echo "AssertionError: expected 2 to be 3"; exit 1' });
    expect(r.status).toBe('error');
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(20_000);
    expect(r.output).toContain('stdout:\ntest 1 ok\ntest 2 ok\n');
    expect(r.output).toMatch(/\ntest (\d+) ok\n… \[lines \d+–[\d,]+ omitted: [\d.]+ KB\] …\ntest \d+ ok\n/);
    expect(r.output).toContain('test 20000 ok\nAssertionError: expected 2 to be 3\n[stdout cut: ');
    expect(r.output).toContain('shown (the start and the end)');
  });

  it('fits a lowered per-step budget', async () => {
    const r = await h.call('run_command', { command: 'seq 1 100000; seq 1 100000 >&2' }, { budget: { TOOL_OUTPUT_MAX_BYTES: 3000 } });
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(3000);
    expect(r.truncation?.by).toBe('tool');
    expect(r.output).toContain('[stdout cut: ');
    expect(r.output).toContain('[stderr cut: ');
  });

  it('publishes live output while it runs', async () => {
    const events: { at: number; p: ToolProgress }[] = [];
    const t0 = Date.now();
    const r = await h.call('run_command', { command: 'echo first; sleep 0.6; echo second >&2' }, { onProgress: (p) => events.push({ at: Date.now() - t0, p }) });
    expect(r.status).toBe('ok');
    expect(events.map((e) => e.p)).toEqual([
      { kind: 'output', stream: 'stdout', text: 'first\n' },
      { kind: 'output', stream: 'stderr', text: 'second\n' },
    ]);
    expect(events[1].at - events[0].at).toBeGreaterThan(400);
  });

  it('refuses a cwd outside the workspace before running anything', async () => {
    const r = await h.call('run_command', { command: 'touch escaped', cwd: '..' });
    expect(r.status).toBe('denied');
    expect(r.output).toBe(`Path is outside the workspace: ... Only paths inside ${ws.workspace} can be used; pass a path relative to the workspace root.`);
    expect(fs.existsSync(`${ws.root}/escaped`)).toBe(false);
  });

  it('explains a missing or non-directory cwd and an empty command', async () => {
    const missing = await h.call('run_command', { command: 'ls', cwd: 'nope' });
    expect(missing.status).toBe('error');
    expect(missing.output).toBe('Working directory not found: nope. Pass an existing directory relative to the workspace root (check with list_dir), or leave cwd out to run in the root.');
    const file = await h.call('run_command', { command: 'ls', cwd: 'file.txt' });
    expect(file.output).toBe('cwd is not a directory: file.txt. Pass a directory relative to the workspace root, or leave cwd out to run in the root.');
    const empty = await h.call('run_command', { command: '  ' });
    expect(empty.output).toBe('Invalid arguments for run_command:\n- `command`: must not be empty.\nPass a non-empty command and call run_command again.');
  });

  it('background: true returns a task id at once, read with task_output', async () => {
    const r = await h.call('run_command', { command: 'sleep 1; echo from-task', background: true });
    const id = r.meta!.taskId as string;
    expect(tasks.get(id)!.status).toBe('running');
    const logs = r.meta!.logPaths as { stdout: string; stderr: string };
    expect(r.output).toBe(
      `Started background task ${id} (pid ${r.meta!.pid}) in .: sleep 1; echo from-task\n` +
        'It has no timeout: it runs until it exits, is stopped with task_kill, or Clamp shuts down.\n' +
        `Read its output with task_output(id: "${id}"); pass wait_ms (at most 60,000) to wait for new output or its exit instead of polling. task_list shows every task; task_kill(id: "${id}") stops it.\n` +
        `Logs (everything it prints): stdout ${logs.stdout}, stderr ${logs.stderr}.\n` +
        'A port it listens on is forwarded to this machine\'s 127.0.0.1 (the same number when free there); task_output and task_list give the address, and the person sees it as a link.',
    );
    const out = await h.call('task_output', { id, wait_ms: 5000 });
    expect(out.output).toContain('stdout (new since the last read):\nfrom-task\n');
  });

  it('a background task with timeout_ms is clamped the same way and killed on time', async () => {
    const r = await h.call('run_command', { command: 'sleep 30', background: true, timeout_ms: 10 });
    expect(r.output).toContain('\nnote: timeout_ms 10 is below the minimum of 1,000; it was raised to 1,000 ms.\nIt runs until it exits, is stopped with task_kill, Clamp shuts down, or 1 s pass (timeout_ms).\n');
    const out = await h.call('task_output', { id: r.meta!.taskId, wait_ms: 5000 });
    expect(out.output.split('\n')[0]).toMatch(/^task t\d+ · status: timed out · killed: timed out after 1 s · ran 1(\.\d)? s$/);
  });

  it('has a stable JSON schema and a description built from the budget', () => {
    expect(z.toJSONSchema(runCommandTool.schema)).toMatchSnapshot();
    const d = runCommandTool.describe(budgetTable({ COMMAND_TIMEOUT_DEFAULT_MS: 30_000, COMMAND_TIMEOUT_MAX_MS: 300_000 }));
    expect(d).toContain('Timeout: 30 s by default, at most 5 m');
    expect(d).toContain('For files use read_file, glob, grep (the tool) and edit_file, not cat, find, shell grep or sed.');
    expect(runCommandTool.effect).toBe('system');
    expect(runCommandTool.policy).toBeTypeOf('function');
  });
});
