import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import { callSummary } from '../../lib/agent/tool-summaries';
import { toolBed } from '../helpers';

const bed = toolBed([...ALL_TOOLS]);

/** The line a card shows for a call: before it runs (input only) and after (with its real result). */
async function lines(name: string, input: Record<string, unknown>): Promise<[string | undefined, string | undefined]> {
  const before = callSummary(bed.h.reg, name, input);
  const result = await bed.h.call(name, input);
  return [before, callSummary(bed.h.reg, name, input, result)];
}

describe('each tool summarises its call in one line for the page', () => {
  it('file tools: the path and window, then what was read, found or changed', async () => {
    bed.ws.write('a.txt', 'one\ntwo\nthree\n');
    expect(await lines('read_file', { path: 'a.txt' })).toEqual(['a.txt', 'a.txt 1–3 of 3']);
    expect(await lines('read_file', { path: 'a.txt', offset: 2, limit: 1 })).toEqual(['a.txt 2–2', 'a.txt 2–2 of 3']);
    expect(await lines('glob', { pattern: '*.txt' })).toEqual(['*.txt', '*.txt (1 file)']);
    expect(await lines('grep', { pattern: 'two', include: '*.txt' })).toEqual(['two --include *.txt', 'two --include *.txt · 1 match in 1 file']);
    expect(await lines('grep', { pattern: 'a b', ignore_case: true })).toEqual(['"a b" -i', '"a b" -i · 0 matches in 0 files']);
    expect(await lines('list_dir', {})).toEqual(['.', '. (1 entry)']);
    expect(await lines('edit_file', { path: 'a.txt', old_string: 'two', new_string: '2' })).toEqual(['a.txt', 'a.txt (+1 −1 lines)']);
    expect(await lines('write_file', { path: 'b.txt', content: 'x\n' })).toEqual(['b.txt', 'b.txt (new, +1 −0 lines)']);
  });

  it('commands and the plan: the command as typed, the plan as progress', async () => {
    expect(await lines('run_command', { command: 'echo hi', cwd: '.' })).toEqual(['echo hi', 'echo hi']);
    const items = [
      { content: 'look', status: 'completed' },
      { content: 'fix', status: 'pending' },
    ];
    expect(await lines('todo_write', { items })).toEqual(['2 items', '1 of 2 done']);
    expect(await lines('todo_read', {})).toEqual(['', '1 of 2 done']);
  });

  it('a failed call keeps its input line; invalid input has no summary (dispatch says what is wrong)', async () => {
    expect(await lines('read_file', { path: 'missing.txt' })).toEqual(['missing.txt', 'missing.txt']);
    expect(callSummary(bed.h.reg, 'read_file', { path: 3 })).toBeUndefined();
    expect(callSummary(bed.h.reg, 'no_such_tool', {})).toBeUndefined();
  });

  it('never throws and stays on one line for any tool, whatever result it is handed', () => {
    const odd = { status: 'error' as const, output: 'x', truncation: null, meta: { policy: { action: 'deny' as const, reason: 'no' } } };
    const sample: Record<string, unknown> = {
      path: 'p', pattern: 'p', command: 'c', id: 't1', message: 'm', text: 't', query: 'q', name: 'n', url: 'https://x.test',
      patch: '*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch', items: [], old_string: 'a', new_string: 'b', content: 'c',
      type: 'explore', description: 'd', prompt: 'p', question: 'q?',
    };
    for (const t of ALL_TOOLS) {
      // each tool's required fields from the sample (its schema is strict: nothing else)
      const keys = Object.keys((t.schema as unknown as { shape: Record<string, unknown> }).shape);
      const input = Object.fromEntries(keys.filter((k) => k in sample).map((k) => [k, sample[k]]));
      for (const r of [undefined, odd]) {
        const line = callSummary(bed.h.reg, t.name, input, r);
        expect(line, t.name).toBeTypeOf('string');
        expect(line, t.name).not.toContain('\n');
      }
    }
  });
});
