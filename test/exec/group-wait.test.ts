import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { groupAlive, liveGroupMembers, signalGroup, waitGroupGone } from '../../lib/exec/group';

/** A detached shell (its own process group) running `script`; its pid is the group's id. */
function group(script: string): number {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid!;
}

describe('waiting for process groups', () => {
  it('many waits at once (one shared poll) each resolve for their own group: gone, or outlived its timeout', async () => {
    // each group: a shell and a child of it, so the group outlives neither by accident
    const short = Array.from({ length: 6 }, (_, i) => group(`sleep 0.${2 + (i % 3)} & wait`));
    const long = group('sleep 30 & wait');
    expect(liveGroupMembers(long)!.length).toBeGreaterThanOrEqual(1);
    const t0 = Date.now();
    const results = await Promise.all([...short, long].map((g) => waitGroupGone(g, 1500)));
    expect(results).toEqual([true, true, true, true, true, true, false]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    for (const g of short) expect(groupAlive(g)).toBe(false);
    expect(groupAlive(long)).toBe(true);
    signalGroup(long, 'SIGKILL');
    expect(await waitGroupGone(long, 2000)).toBe(true);
    expect(liveGroupMembers(long)).toEqual([]);
  });

  it('a group that is already gone resolves at once; a timeout of 0 answers without waiting', async () => {
    const g = group('exit 0');
    expect(await waitGroupGone(g, 2000)).toBe(true);
    const long = group('sleep 30 & wait');
    const t0 = Date.now();
    expect(await waitGroupGone(long, 0)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(100);
    signalGroup(long, 'SIGKILL');
    expect(await waitGroupGone(long, 2000)).toBe(true);
  });
});
