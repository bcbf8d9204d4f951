/**
 * The log files of this process's runs that have not ended: retention skips them (a command printing for days keeps
 * its logs). Process-wide, on globalThis, so every bundle of the server shares one set.
 */

const KEY = Symbol.for('clamp.exec.liveLogs');

function live(): Map<string, number> {
  const g = globalThis as unknown as Record<symbol, Map<string, number> | undefined>;
  return (g[KEY] ??= new Map());
}

/** Note the paths as in use until `done` settles. */
export function holdLogs(paths: readonly string[], done: Promise<unknown>): void {
  const m = live();
  for (const p of paths) m.set(p, (m.get(p) ?? 0) + 1);
  const release = () => {
    for (const p of paths) {
      const n = (m.get(p) ?? 1) - 1;
      if (n <= 0) m.delete(p);
      else m.set(p, n);
    }
  };
  void done.then(release, release);
}

/** Whether a run of this process still writes the file. */
export function isLiveLog(p: string): boolean {
  return live().has(p);
}
