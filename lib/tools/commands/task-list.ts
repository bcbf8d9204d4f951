import { z } from 'zod';
import { defineTool, type ToolOutput, type ToolResult } from '../../contract/types';
import { clipLine, formatBytes, formatDuration } from '../../contract/text';
import { tasksFor, type TaskInfo } from '../../tasks/manager';

/** "running", "exited (exit code 0)", "timed out (killed: timed out after 2 s)". */
function statusWords(t: TaskInfo): string {
  return t.status === 'running' ? 'running' : `${t.status} (${t.statusText})`;
}

function unreadWords(t: TaskInfo): string {
  if (t.unreadBytes.stdout + t.unreadBytes.stderr === 0) return 'unread: none';
  return `unread: stdout ${formatBytes(t.unreadBytes.stdout)}, stderr ${formatBytes(t.unreadBytes.stderr)}`;
}

/** What task_list tells the page: every task, oldest first. */
export interface TaskListMeta {
  tasks: Pick<TaskInfo, 'id' | 'status' | 'exitCode' | 'startedAt' | 'durationMs' | 'unreadBytes' | 'command'>[];
}

export const taskListTool = defineTool({
  name: 'task_list',
  effect: 'read',
  traits: { deferRank: 12 },
  schema: z.strictObject({}),
  summary: (_input, r?: ToolResult<TaskListMeta>) => {
    const n = r?.meta?.tasks?.length;
    return n === undefined ? '' : `${n} task${n === 1 ? '' : 's'}`;
  },
  describe: (b) =>
    [
      'List the background tasks started with run_command(background: true), oldest first: one line each with its id, status (running, exited with its exit code, killed, timed out), when it started, how much output is unread, and its command.',
      `Finished tasks stay listed (at most ${b.TASK_MAX_KEPT}; the oldest finished ones are forgotten first) until Clamp restarts.`,
      'To read a task\'s output use task_output; to stop one use task_kill.',
    ].join('\n'),
  async run(_input, ctx): Promise<ToolOutput<TaskListMeta>> {
    const tasks = tasksFor(ctx).list(ctx.sessionId);
    if (tasks.length === 0) {
      return { output: 'No background tasks. Start one with run_command(background: true).', meta: { tasks: [] } };
    }
    const now = Date.now();
    const running = tasks.filter((t) => t.status === 'running').length;
    const lines = tasks.map(
      (t) =>
        `${t.id} · ${statusWords(t)} · started ${formatDuration(now - t.startedAt)} ago · ${unreadWords(t)}${t.ports?.length ? ` · listening: ${t.ports.map((p) => `${p.port} (${p.url})`).join(', ')}` : ''} · ${clipLine(t.command, ctx.budget.TASK_LIST_COMMAND_MAX_BYTES)}`,
    );
    const output = [
      `${tasks.length} background task${tasks.length === 1 ? '' : 's'} (${running} running):`,
      ...lines,
      'Read a task\'s new output with task_output(id); stop one with task_kill(id).',
    ].join('\n');
    return {
      output,
      meta: {
        tasks: tasks.map((t) => ({
          id: t.id,
          status: t.status,
          exitCode: t.exitCode,
          startedAt: t.startedAt,
          durationMs: t.durationMs,
          unreadBytes: t.unreadBytes,
          command: t.command,
        })),
      },
    };
  },
});
