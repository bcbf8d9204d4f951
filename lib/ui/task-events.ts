import type { TaskStreamEvent, TaskSummary } from '@/lib/contract/protocol';
import type { TaskListAnswer } from '@/lib/contract/rest';

/**
 * The task panel's pure parts: reading an event from GET /api/tasks/events, folding it into the
 * ['tasks'] list, keeping a short live tail per task, and the words the panel shows.
 */

/** lines a live tail keeps */
export const TAIL_LINES = 20;
/** characters a tail line shows: the tail is a glance, the viewer shows everything */
export const TAIL_LINE_CHARS = 2000;
/** characters a tail keeps in memory */
export const TAIL_MAX_CHARS = 64 * 1024;

/** Parse one SSE data payload; null for anything that is not a task event. Never throws. */
export function parseTaskEvent(data: string): TaskStreamEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object') return null;
  const e = v as Record<string, unknown>;
  if (e.type !== 'start' && e.type !== 'output' && e.type !== 'exit' && e.type !== 'ports') return null;
  if (!isTaskSummary(e.task)) return null;
  if (e.type === 'output' && (typeof e.text !== 'string' || (e.stream !== 'stdout' && e.stream !== 'stderr'))) return null;
  return v as TaskStreamEvent;
}

/** GET /api/tasks's answer ({ tasks }, TaskListAnswer), checked: the tasks newest first. Throws on another shape. */
export function readTaskList(body: unknown): TaskSummary[] {
  const list = body && typeof body === 'object' && !Array.isArray(body) ? (body as Partial<TaskListAnswer>).tasks : undefined;
  if (!Array.isArray(list)) throw new Error('The server answered /api/tasks with something that is not a list of tasks.');
  return sortTasks(list.filter(isTaskSummary));
}

function isTaskSummary(v: unknown): v is TaskSummary {
  if (!v || typeof v !== 'object') return false;
  const t = v as Record<string, unknown>;
  return typeof t.id === 'string' && typeof t.command === 'string' && typeof t.status === 'string' && Number.isFinite(t.startedAt);
}

/** The list with task put in its place (replacing the one with its id), newest first. */
export function upsertTask(list: readonly TaskSummary[] | undefined, task: TaskSummary): TaskSummary[] {
  const rest = (list ?? []).filter((t) => t.id !== task.id);
  return sortTasks([...rest, task]);
}

/** Newest first; ties by id so the order never flickers. */
export function sortTasks(list: readonly TaskSummary[]): TaskSummary[] {
  return [...list].sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** prev with text appended, cut to the last maxLines lines (a trailing partial line counts as one) and TAIL_MAX_CHARS characters. */
export function appendTail(prev: string, text: string, maxLines = TAIL_LINES): string {
  let all = prev + text;
  // a progress bar that never prints a newline must not grow the tail without end
  if (all.length > TAIL_MAX_CHARS) all = all.slice(all.length - TAIL_MAX_CHARS);
  let i = all.endsWith('\n') ? all.length - 1 : all.length;
  for (let seen = 0; i > 0; ) {
    const nl = all.lastIndexOf('\n', i - 1);
    if (nl < 0) break;
    if (++seen >= maxLines) return all.slice(nl + 1);
    i = nl;
  }
  return all;
}

/** A tail line cut for display, saying how much is left for the viewer. */
export function clipTailLine(line: string): string {
  if (line.length <= TAIL_LINE_CHARS) return line;
  return `${line.slice(0, TAIL_LINE_CHARS)} … (${(line.length - TAIL_LINE_CHARS).toLocaleString('en-US')} more characters: open the log)`;
}

/** The lines of a tail to render (no empty last line for a trailing newline). */
export function tailLines(tail: string): string[] {
  if (!tail) return [];
  const lines = tail.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Bytes of output a task has produced so far (what "new output" compares against). */
export function outputBytes(t: Pick<TaskSummary, 'totalBytes'>): number {
  return (t.totalBytes?.stdout ?? 0) + (t.totalBytes?.stderr ?? 0);
}

/** How long the task has run: to now while running, its duration once it ended. */
export function elapsedMs(t: Pick<TaskSummary, 'status' | 'startedAt' | 'durationMs'>, now: number): number {
  return t.status === 'running' ? Math.max(t.durationMs ?? 0, now - t.startedAt) : t.durationMs;
}

/** The status in a word or two: "running", "exit 0", "exit 2", "killed", "timed out", "failed to start". */
export function statusWords(t: Pick<TaskSummary, 'status' | 'exitCode'>): string {
  switch (t.status) {
    case 'running':
      return 'running';
    case 'exited':
      return `exit ${t.exitCode ?? '?'}`;
    case 'killed':
      return 'killed';
    case 'timed out':
      return 'timed out';
    case 'failed':
      return 'failed to start';
  }
}

/** The task ended badly: a non-zero exit, a timeout or a failure to start (a kill is the person's own doing). */
export function endedBadly(t: Pick<TaskSummary, 'status' | 'exitCode'>): boolean {
  return t.status === 'failed' || t.status === 'timed out' || (t.status === 'exited' && t.exitCode !== 0);
}
