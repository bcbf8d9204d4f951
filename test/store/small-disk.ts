import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/** A small tmpfs mounted for a test (root only), and a filler file that takes the rest of its room. */
export interface SmallDisk {
  dir: string;
  /** write a filler file until the disk refuses (ENOSPC), leaving `leaveBytes` free (taken back by a second filler) */
  fill(leaveBytes?: number): void;
  /** remove the fillers: space returns */
  free(): void;
  /** bytes free now */
  freeBytes(): number;
  unmount(): void;
}

/** Mount a tmpfs of `sizeMb` under /var/tmp; a string (why not) when mounting is not permitted here. */
export function mountSmallDisk(sizeMb = 5): SmallDisk | string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir() === '/tmp' ? '/var/tmp' : os.tmpdir(), 'clamp-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${String((err as { stderr?: unknown }).stderr ?? err).trim()}); run the test as root`;
  }
  const fillers: string[] = [];
  const freeBytes = () => {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    freeBytes,
    fill(leaveBytes = 0) {
      const file = path.join(dir, `filler-${fillers.length}`);
      fillers.push(file);
      const fd = fs.openSync(file, 'w');
      const chunk = Buffer.alloc(64 * 1024, 7);
      try {
        const target = Math.max(0, freeBytes() - leaveBytes);
        for (let written = 0; written < target; ) written += fs.writeSync(fd, chunk, 0, Math.min(chunk.length, target - written));
        if (leaveBytes === 0) for (;;) fs.writeSync(fd, chunk, 0, 4096);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        fs.closeSync(fd);
      }
    },
    free() {
      for (const f of fillers.splice(0)) fs.rmSync(f, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
