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

/** One /proc/<pid>/stat is a few hundred bytes (comm is at most 64); read into one buffer, no allocation per file. */
const STAT_BUF = Buffer.allocUnsafe(4096);

/**
 * One look at /proc: visit(pid, ppid, pgrp) for each process that still runs (not a zombie). false where /proc
 * is absent (macOS).
 */
function scanProcs(visit: (pid: number, ppid: number, pgrp: number) => void): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return false;
  }
  for (const name of entries) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let n: number;
    try {
      const fd = fs.openSync(`/proc/${name}/stat`, 'r');
      try {
        n = fs.readSync(fd, STAT_BUF, 0, STAT_BUF.length, 0);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so parse after the last ')'
    const close = STAT_BUF.lastIndexOf(0x29, n - 1);
    if (close < 0) continue;
    const state = STAT_BUF[close + 2];
    if (state === 0x5a /* Z */ || state === 0x58 /* X */) continue;
    let i = close + 4;
    let ppid = 0;
    for (; i < n && STAT_BUF[i] !== 0x20; i++) ppid = ppid * 10 + (STAT_BUF[i]! - 48);
    let pgrp = 0;
    for (i++; i < n && STAT_BUF[i] !== 0x20; i++) pgrp = pgrp * 10 + (STAT_BUF[i]! - 48);
    visit(Number(name), ppid, pgrp);
  }
  return true;
}

/** For each process that still runs, its pid under its group id, for the groups in `want` only (all when absent). */
function scanGroups(want?: ReadonlySet<number>): Map<number, number[]> | undefined {
  const groups = new Map<number, number[]>();
  const ok = scanProcs((pid, _ppid, pgrp) => {
    if (want && !want.has(pgrp)) return;
    const live = groups.get(pgrp);
    if (live) live.push(pid);
    else groups.set(pgrp, [pid]);
  });
  return ok ? groups : undefined;
}

/**
 * The running processes below pid (children, theirs, and so on; pid itself not included), from one look at
 * /proc. A sandbox's processes are all below its bwrap, a setsid'd or double-forked one too (it is reparented to
 * the sandbox's first process). Empty where /proc is absent.
 */
export function liveDescendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  scanProcs((p, ppid) => {
    const list = children.get(ppid);
    if (list) list.push(p);
    else children.set(ppid, [p]);
  });
  const out = [...(children.get(pid) ?? [])];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

/**
 * Pids of the group's members that are still running (not zombies), read from /proc.
 * undefined where /proc is absent (macOS): callers fall back to kill(-pgid, 0).
 */
export function liveGroupMembers(pgid: number): number[] | undefined {
  const groups = scanGroups(new Set([pgid]));
  return groups && (groups.get(pgid) ?? []);
}

/** The group exists for the kernel (some member, maybe only a zombie, holds its id). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True while some member of the group still runs. Zombies do not count: an orphaned grandchild
 * is reparented to init, and some inits (in containers) reap it only seconds later.
 */
export function groupAlive(pgid: number): boolean {
  if (!groupExists(pgid)) return false;
  const live = liveGroupMembers(pgid);
  return live === undefined ? true : live.length > 0;
}

/** How often the waiters' groups are looked at. */
const GONE_POLL_MS = 25;
interface GoneWaiter {
  pgid: number;
  until: number;
  resolve: (gone: boolean) => void;
}
const goneWaiters = new Set<GoneWaiter>();
let goneTimer: NodeJS.Timeout | undefined;

/**
 * Every waiting group in one look: a server finishing twenty commands at once reads /proc once
 * per poll, not twenty times (each read of /proc blocks the event loop for a millisecond or more).
 */
function pollGone(): void {
  goneTimer = undefined;
  const existing = new Set<number>();
  for (const w of goneWaiters) if (groupExists(w.pgid)) existing.add(w.pgid);
  const live = existing.size > 0 ? scanGroups(existing) : new Map<number, number[]>();
  const now = Date.now();
  for (const w of goneWaiters) {
    const alive = existing.has(w.pgid) && (live === undefined || live.has(w.pgid));
    if (!alive || now >= w.until) {
      goneWaiters.delete(w);
      w.resolve(!alive);
    }
  }
  if (goneWaiters.size > 0) goneTimer = setTimeout(pollGone, GONE_POLL_MS);
}

/** Resolve once the group has no running member; false if it outlived timeoutMs. */
export function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  if (!groupAlive(pgid)) return Promise.resolve(true);
  if (timeoutMs <= 0) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    goneWaiters.add({ pgid, until: Date.now() + timeoutMs, resolve });
    goneTimer ??= setTimeout(pollGone, GONE_POLL_MS);
  });
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
