import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { RunOptions } from '../../lib/exec/runner';

/**
 * A temp folder for a runner test file (commands run in it, logs go to its logs/), removed after the
 * file; `opts(command)` builds RunOptions with small caps and a short kill grace.
 */
export function runRoot(prefix: string) {
  const r = {
    dir: '',
    opts: (command: string, extra: Partial<RunOptions> = {}): RunOptions => ({
      command,
      cwd: r.dir,
      logDir: path.join(r.dir, 'logs'),
      captureMaxBytes: 64 * 1024,
      killGraceMs: 500,
      ...extra,
    }),
  };
  beforeAll(() => {
    r.dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  });
  afterAll(() => fs.rmSync(r.dir, { recursive: true, force: true }));
  return r;
}
