import { describe, expect, it } from 'vitest';
import type { TaskSummary } from '../../lib/contract/protocol';
import {
  appendTail,
  clipTailLine,
  elapsedMs,
  endedBadly,
  outputBytes,
  parseTaskEvent,
  readTaskList,
  statusWords,
  tailLines,
  TAIL_LINE_CHARS,
  TAIL_MAX_CHARS,
  upsertTask,
} from '../../lib/ui/task-events';

function task(over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id: 't1',
    command: 'npm run dev',
    cwd: '/ws',
    status: 'running',
    statusText: 'running for 1.0 s',
    exitCode: null,
    signal: null,
    startedAt: 1_000,
    durationMs: 1_000,
    unreadBytes: { stdout: 0, stderr: 0 },
    totalBytes: { stdout: 10, stderr: 5 },
    logPaths: { stdout: '/d/logs/t1.out', stderr: '/d/logs/t1.err' },
    combinedLogPath: '/d/logs/t1.log',
    ...over,
  };
}

describe('task events', () => {
  it('parses the events the server sends and rejects anything else', () => {
    const out = { type: 'output', taskId: 't1', stream: 'stdout', text: 'hi\n', task: task() };
    expect(parseTaskEvent(JSON.stringify(out))).toEqual(out);
    expect(parseTaskEvent(JSON.stringify({ ...out, type: 'exit' }))?.type).toBe('exit');
    expect(parseTaskEvent('not json')).toBeNull();
    expect(parseTaskEvent(JSON.stringify({ type: 'output', task: task() }))).toBeNull(); // no text
    expect(parseTaskEvent(JSON.stringify({ type: 'other', task: task() }))).toBeNull();
    expect(parseTaskEvent(JSON.stringify({ type: 'start', task: { id: 1 } }))).toBeNull();
  });

  it('reads the list as an array or as { tasks }, newest first', () => {
    const a = task({ id: 't1', startedAt: 1 });
    const b = task({ id: 't2', startedAt: 2 });
    expect(readTaskList({ tasks: [a, b] }).map((t) => t.id)).toEqual(['t2', 't1']);
    // one shape per route: a bare list is not GET /api/tasks's answer
    expect(() => readTaskList([a, b])).toThrow('not a list of tasks');
    expect(() => readTaskList({ nope: 1 })).toThrow('not a list of tasks');
  });

  it('upserts by id, keeping the order newest first and the other tasks untouched', () => {
    const a = task({ id: 't1', startedAt: 1 });
    const b = task({ id: 't2', startedAt: 2 });
    const list = upsertTask([a], b);
    expect(list.map((t) => t.id)).toEqual(['t2', 't1']);
    const ended = task({ id: 't1', startedAt: 1, status: 'exited', exitCode: 0 });
    const next = upsertTask(list, ended);
    expect(next.map((t) => t.status)).toEqual(['running', 'exited']);
    expect(next[0]).toBe(b);
    expect(upsertTask(undefined, a)).toEqual([a]);
  });

  it('keeps the last lines of a tail, counting a partial last line', () => {
    const text = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    expect(tailLines(appendTail('', text))).toEqual(Array.from({ length: 20 }, (_, i) => `l${i + 11}`));
    expect(appendTail('a\nb\n', 'c', 2)).toBe('b\nc');
    expect(appendTail('a\nb', 'c\nd\n', 2)).toBe('bc\nd\n');
    expect(appendTail('', '', 2)).toBe('');
    expect(tailLines('x\ny\n')).toEqual(['x', 'y']);
  });

  it('bounds a tail that never sees a newline', () => {
    const t = appendTail('x'.repeat(TAIL_MAX_CHARS), 'yz');
    expect(t.length).toBe(TAIL_MAX_CHARS);
    expect(t.endsWith('yz')).toBe(true);
    expect(clipTailLine('a'.repeat(TAIL_LINE_CHARS + 5))).toBe(`${'a'.repeat(TAIL_LINE_CHARS)} … (5 more characters: open the log)`);
  });

  it('words for status, elapsed time and bytes', () => {
    expect(statusWords(task())).toBe('running');
    expect(statusWords(task({ status: 'exited', exitCode: 0 }))).toBe('exit 0');
    expect(statusWords(task({ status: 'exited', exitCode: 2 }))).toBe('exit 2');
    expect(statusWords(task({ status: 'killed' }))).toBe('killed');
    expect(statusWords(task({ status: 'timed out' }))).toBe('timed out');
    expect(statusWords(task({ status: 'failed' }))).toBe('failed to start');
    expect(endedBadly(task({ status: 'exited', exitCode: 1 }))).toBe(true);
    expect(endedBadly(task({ status: 'exited', exitCode: 0 }))).toBe(false);
    expect(endedBadly(task({ status: 'killed' }))).toBe(false);
    expect(elapsedMs(task({ startedAt: 1_000, durationMs: 500 }), 61_000)).toBe(60_000);
    expect(elapsedMs(task({ status: 'exited', durationMs: 1234 }), 99_000)).toBe(1234);
    expect(outputBytes(task())).toBe(15);
  });
});
