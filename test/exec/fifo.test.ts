import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { closeFd, FIFO_BATCH, openPipe, readerOf } from '../../lib/exec/fifo';

describe('command pipes (fifo.ts)', () => {
  it('a pipe carries what is written to its end, ends when the writer closes, and has no name left', async () => {
    const p = openPipe();
    expect(p).not.toBeNull();
    expect(fs.fstatSync(p!.write).isFIFO()).toBe(true);
    const got: Buffer[] = [];
    const r = readerOf(p!.read);
    const ended = new Promise<void>((resolve) => r.on('close', () => resolve()));
    r.on('data', (b: Buffer) => got.push(b));
    fs.writeSync(p!.write, 'hello through a pipe\n');
    closeFd(p!.write);
    await ended;
    expect(Buffer.concat(got).toString()).toBe('hello through a pipe\n');
    const dirs = fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(`clamp-pipes-${process.pid}-`));
    expect(dirs).toHaveLength(1);
    // the batch's unused pipes wait there; none is open by anyone but this test's, whose name is gone
    const left = fs.readdirSync(path.join(os.tmpdir(), dirs[0]));
    expect(left.length).toBeLessThan(FIFO_BATCH);
    expect(fs.statSync(path.join(os.tmpdir(), dirs[0])).mode & 0o777).toBe(0o700);
  });

  it('the folder of pipes goes when the process exits, and a killed process\'s folder goes at the next start', () => {
    // a pid that is not running: the highest possible one is never given out here
    const stale = path.join(os.tmpdir(), 'clamp-pipes-4194304-test');
    fs.mkdirSync(stale, { recursive: true });
    const script = `const { openPipe } = await import(${JSON.stringify(path.join(ROOT, 'lib/exec/fifo.ts'))}); openPipe(); console.log(process.pid);`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const pid = r.stdout.trim();
    expect(pid).toMatch(/^\d+$/);
    expect(fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(`clamp-pipes-${pid}-`))).toEqual([]);
    expect(fs.existsSync(stale)).toBe(false);
  });
});
