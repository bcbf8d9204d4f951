import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { liveDescendants } from '../../lib/exec/group';
import { FIXTURE, hubBed } from './hub-bed';

/** Pids of the running processes whose command line holds text. */
function running(text: string): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'latin1');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) continue;
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').includes(text)) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('stopping an MCP server', () => {
  it('ends what ran below it too, a child in a session of its own included, before stop returns', async () => {
    const marker = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const bed = hubBed({ left: { command: 'bash', args: ['-c', `setsid sleep ${marker} </dev/null >/dev/null 2>&1 & exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FIXTURE)}`] } });
    try {
      await bed.hub.prepare();
      expect(bed.hub.states().map((s) => s.status)).toEqual(['running']);
      const [sleeper] = running(marker);
      expect(sleeper, 'the server started its child').toBeDefined();
      await bed.hub.shutdown();
      expect(running(marker), 'processes of the server left after stop').toEqual([]);
    } finally {
      for (const pid of running(marker)) process.kill(pid, 'SIGKILL');
      await bed.close();
    }
  }, 30_000);

  it('liveDescendants lists children and theirs, a setsid one too, and not the process itself', async () => {
    const { spawn } = await import('node:child_process');
    const sh = spawn('bash', ['-c', 'sleep 30 & setsid bash -c "sleep 31 & wait" & wait'], { stdio: 'ignore' });
    try {
      let below: number[] = [];
      for (let i = 0; i < 100 && below.length < 4; i++) {
        await new Promise((r) => setTimeout(r, 20));
        below = liveDescendants(sh.pid!);
      }
      // sleep 30, the setsid bash, and its sleep 31 (the setsid bash's own fork may show too)
      expect(below.length).toBeGreaterThanOrEqual(3);
      expect(below).not.toContain(sh.pid);
      const cmds = below.map((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' '));
      expect(cmds).toEqual(expect.arrayContaining(['sleep 30 ', 'sleep 31 ']));
      for (const p of below) process.kill(p, 'SIGKILL');
    } finally {
      sh.kill('SIGKILL');
    }
    await expect.poll(() => liveDescendants(process.pid).includes(sh.pid!), { timeout: 5_000 }).toBe(false);
  });
});
