import fs from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name, or undefined without /proc or when the process is gone.
 * The name is in parentheses and may hold spaces and parentheses itself, so the fields start after the last ')'.
 * Index 0 is the state (Z: a zombie, X: dead), 1 the parent pid, 2 the process group, 19 the start time in clock
 * ticks since boot (stat(5)'s fields 3, 4, 5 and 22).
 */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The start time of a process in clock ticks since boot (with its pid, it names one process), or undefined. */
export function processStartTicks(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** A process's parent pid from /proc, or undefined without /proc or when it is gone. */
export function procParent(pid: number): number | undefined {
  const ppid = Number(procStat(pid)?.[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}
