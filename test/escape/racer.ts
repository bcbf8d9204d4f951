import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from './harness';

/**
 * A command that swaps folders with links in a tight loop, as a sandboxed command could: each pair of names is
 * exchanged atomically (renameat2 with RENAME_EXCHANGE), so at any moment one name is the real folder and the other
 * the link, and a path checked a moment ago may lead elsewhere now. Runs as the host's user until stopped. Built from
 * C when a compiler is there, else python3 with ctypes (libc has renameat2).
 */
const C_SOURCE = String.raw`
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif
/* argv: stop-file max-seconds a1 b1 [a2 b2 ...]; prints the number of exchanges made */
int main(int argc, char **argv) {
  time_t end = time(NULL) + atoi(argv[2]);
  unsigned long swaps = 0;
  for (unsigned long i = 0;; i++) {
    for (int k = 3; k + 1 < argc; k += 2)
      if (syscall(SYS_renameat2, AT_FDCWD, argv[k], AT_FDCWD, argv[k + 1], RENAME_EXCHANGE) == 0) swaps++;
    if ((i & 255) == 0 && (access(argv[1], F_OK) == 0 || time(NULL) > end)) break;
  }
  printf("%lu\n", swaps);
  return 0;
}
`;

const PY_SOURCE = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
stop, end, pairs = sys.argv[1], time.time() + int(sys.argv[2]), sys.argv[3:]
swaps, i = 0, 0
while True:
    for k in range(0, len(pairs) - 1, 2):
        if libc.renameat2(-100, pairs[k].encode(), -100, pairs[k + 1].encode(), 2) == 0:
            swaps += 1
    i += 1
    if i % 256 == 0 and (os.path.exists(stop) or time.time() > end):
        break
print(swaps)
`;

function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** The racer program built into host.root: [file, leading args]. */
function build(host: Host): [string, string[]] {
  const gcc = which('gcc') ?? which('cc');
  if (gcc) {
    const src = path.join(host.root, 'racer.c');
    const bin = path.join(host.root, 'racer');
    fs.writeFileSync(src, C_SOURCE);
    execFileSync(gcc, ['-O2', '-o', bin, src]);
    fs.chmodSync(bin, 0o755);
    return [bin, []];
  }
  const py = path.join(host.root, 'racer.py');
  fs.writeFileSync(py, PY_SOURCE);
  fs.chmodSync(py, 0o644);
  // /usr/bin first: a python behind a shim in root's home is out of reach of an unprivileged user
  return [fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3', [py]];
}

export interface Racer {
  /** stop the loop; resolves with the number of exchanges it made */
  stop(): Promise<number>;
}

/** Start swapping each [a, b] pair of workspace-relative names, as the host's user, until stop(). */
export function startSwapRacer(host: Host, pairs: [string, string][], maxSeconds = 120): Racer {
  const [file, lead] = build(host);
  const stopFile = path.join(host.root, 'racer.stop');
  const names = pairs.flatMap(([a, b]) => [path.join(host.workspace, a), path.join(host.workspace, b)]);
  const running = host.run(file, [...lead, stopFile, String(maxSeconds), ...names], { timeoutMs: (maxSeconds + 10) * 1000 });
  return {
    async stop() {
      fs.writeFileSync(stopFile, '');
      const r = await running;
      const swaps = Number(r.stdout.trim());
      if (!Number.isFinite(swaps)) throw new Error(`the racer failed (exit ${r.code}): ${r.stderr.slice(0, 1000)}`);
      return swaps;
    },
  };
}
