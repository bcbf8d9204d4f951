import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../contract/types';
import { formatBytes, formatDuration } from '../../contract/text';
import { tasksFor, type TaskInfo } from '../../tasks/manager';
import { findTask } from './task-output';

/** What task_kill tells the page: the task's state after the call and whether this call killed it. */
export interface TaskKillMeta {
  taskId: string;
  status: TaskInfo['status'];
  exitCode: number | null;
  killed: boolean;
  signal?: string | null;
  durationMs?: number;
  logPaths?: TaskInfo['logPaths'];
}

export const taskKillTool = defineTool({
  name: 'task_kill',
  effect: 'system',
  traits: { deferRank: 11 },
  schema: z.strictObject({
    id: z.string().describe('The id of the background task to stop, e.g. "t1".'),
  }),
  nonEmpty: ['id'],
  summary: (input) => input.id,
  describe: (b) =>
    [
      `Stop a background task: its whole process group (the command and everything it started) gets SIGTERM, then SIGKILL after ${formatDuration(b.COMMAND_KILL_GRACE_MS)}, and the result comes once all of it has exited.`,
      'Output it printed stays readable with task_output, and its log files stay on disk.',
      'To see task ids use task_list; a foreground run_command is stopped by its timeout instead.',
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<TaskKillMeta>> {
    const mgr = tasksFor(ctx);
    const before = findTask(mgr, input.id, ctx);
    if (before.status !== 'running') {
      return {
        output: `Task ${before.id} had already finished (${before.status}: ${before.statusText}); nothing was killed.`,
        meta: { taskId: before.id, status: before.status, exitCode: before.exitCode, killed: false },
      };
    }
    const t = (await mgr.kill(input.id, 'user'))!;
    if (t.status !== 'killed') {
      return {
        output: `Task ${t.id} finished on its own before it could be killed (${t.status}: ${t.statusText}).`,
        meta: { taskId: t.id, status: t.status, exitCode: t.exitCode, killed: false },
      };
    }
    const unread = t.unreadBytes.stdout + t.unreadBytes.stderr;
    const rest =
      unread > 0
        ? ` It left ${formatBytes(unread)} of unread output: read it with task_output(id: "${t.id}").`
        : ' Its logs stay on disk: stdout ' + t.logPaths.stdout + ', stderr ' + t.logPaths.stderr + '.';
    return {
      output: `Killed task ${t.id} and its whole process group: ${t.statusText} after ${formatDuration(t.durationMs)}.${rest}`,
      meta: { taskId: t.id, status: t.status, exitCode: t.exitCode, signal: t.signal, durationMs: t.durationMs, killed: true, logPaths: t.logPaths },
    };
  },
});
