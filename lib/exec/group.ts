import fs from 'node:fs';

/**
 * Process-group helpers. Every command runs as the leader of its own group (spawn with
 * detached: true, which calls setsid), so one signal to -pgid reaches its children and grandchildren.
 */

/** Send a signal to a whole process group; false when the group is already gone. Never throws. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Pids of the group's members that are still running (not zombies), read from /proc.
 * undefined where /proc is absent (macOS): callers fall back to kill(-pgid, 0).
 */
export function liveGroupMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  const live: number[] = [];
  for (const name of entries) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so split after the last ')'
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[2]) === pgid && rest[0] !== 'Z' && rest[0] !== 'X') live.push(Number(name));
  }
  return live;
}

/**
 * True while some member of the group still runs. Zombies do not count: an orphaned grandchild
 * is reparented to init, and some inits (in containers) reap it only seconds later.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const live = liveGroupMembers(pgid);
  return live === undefined ? true : live.length > 0;
}

/** Resolve once the group has no running member, polling every intervalMs; false if it outlived timeoutMs. */
export async function waitGroupGone(pgid: number, timeoutMs: number, intervalMs = 25): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Signal every running member of a group but one (the sandbox's outer process, which would die at
 * once from SIGTERM and take the command down before it can clean up). Falls back to the whole
 * group where /proc is absent. False when nothing was signalled. Never throws.
 */
export function signalGroupExcept(pgid: number, signal: NodeJS.Signals, spare: number): boolean {
  const members = liveGroupMembers(pgid);
  if (members === undefined) return signalGroup(pgid, signal);
  let sent = false;
  for (const pid of members) {
    if (pid === spare) continue;
    try {
      process.kill(pid, signal);
      sent = true;
    } catch {
      // exited while we looked
    }
  }
  return sent;
}
