import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boardRefresh, boardStates, REFRESH_GATHER_MS, refreshSessionList, refreshSessions } from '../../components/session-refresh';

const s = (id: string, state: 'new' | 'working' | 'waiting' | 'done' | 'failed', waiting = 0) => ({ id, state, waiting });

describe('boardRefresh', () => {
  it('reads nothing again on the first message or when no state changed', () => {
    expect(boardRefresh('', [s('a', 'working')])).toBe('none');
    expect(boardRefresh(boardStates([s('a', 'working')]), [s('a', 'working')])).toBe('none');
  });

  it('reads the list alone when a turn starts or a session leaves: no file changed', () => {
    expect(boardRefresh(boardStates([s('a', 'done'), s('b', 'done')]), [s('a', 'working'), s('b', 'done')])).toBe('list');
    expect(boardRefresh(boardStates([s('a', 'done'), s('b', 'done')]), [s('b', 'done')])).toBe('list');
  });

  it('reads the changes too when a session stops working: done, failed, or waiting for the person', () => {
    const working = boardStates([s('a', 'working')]);
    expect(boardRefresh(working, [s('a', 'done')])).toBe('all');
    expect(boardRefresh(working, [s('a', 'failed')])).toBe('all');
    expect(boardRefresh(working, [s('a', 'waiting', 1)])).toBe('all');
    expect(boardRefresh(boardStates([s('a', 'waiting', 1)]), [s('a', 'waiting', 2)])).toBe('all');
    expect(boardRefresh(working, [s('a', 'working'), s('n', 'new')])).toBe('all');
  });
});

describe('refreshSessions', () => {
  afterEach(() => void vi.useRealTimers());

  it('reads the list at once for every trigger, and what hangs under it once for a burst, after the last trigger', async () => {
    vi.useFakeTimers();
    const qc = new QueryClient();
    const spy = vi.spyOn(qc, 'invalidateQueries').mockResolvedValue();
    const under = () => spy.mock.calls.filter(([f]) => f && 'predicate' in f);
    refreshSessions(qc);
    await vi.advanceTimersByTimeAsync(REFRESH_GATHER_MS - 10);
    refreshSessions(qc); // the turn's end, heard a second time
    expect(spy.mock.calls.filter(([f]) => f && 'exact' in f)).toEqual([[{ queryKey: ['sessions'], exact: true }], [{ queryKey: ['sessions'], exact: true }]]);
    await vi.advanceTimersByTimeAsync(REFRESH_GATHER_MS - 10);
    expect(under()).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(under()).toHaveLength(1);
    const f = under()[0]![0] as unknown as { queryKey: unknown; predicate: (q: { queryKey: unknown[] }) => boolean };
    expect(f.queryKey).toEqual(['sessions']);
    // the changes view, branches and worktree of a session; not the list itself
    expect(f.predicate({ queryKey: ['sessions', 's1', 'changes'] })).toBe(true);
    expect(f.predicate({ queryKey: ['sessions'] })).toBe(false);
    refreshSessions(qc);
    await vi.advanceTimersByTimeAsync(REFRESH_GATHER_MS);
    expect(under()).toHaveLength(2);
  });

  it('refreshSessionList reads the list alone, at once', () => {
    const qc = new QueryClient();
    const spy = vi.spyOn(qc, 'invalidateQueries').mockResolvedValue();
    refreshSessionList(qc);
    expect(spy.mock.calls).toEqual([[{ queryKey: ['sessions'], exact: true }]]);
  });
});
