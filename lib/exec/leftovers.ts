import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { liveGroupMembers, signalGroup, waitGroupGone } from './group';
import { processStartTicks } from './proc-stat';

/**
 * No command outlives Clamp. Commands run in their own process groups (so one signal reaches a
 * whole pipeline), which also means nothing kills them when the server dies. Three layers:
 * - a clean stop (SIGTERM/SIGINT) stops every running group and waits for it (stopAllGroups);
 * - a crash (SIGKILL, OOM) is caught by a watchdog: a tiny shell process holding a pipe from the
 *   server; when the server dies the pipe closes and the watchdog kills every group still recorded;
 * - the next start reaps what a dead server recorded and nobody killed (the watchdog died too).
 * Records are files `<pgid>.group` ("pgid starttime bootid") in a folder per server process
 * (`<pid>-<starttime>`), so a second Clamp on the same data dir never touches the first one's commands.
 * Without /proc (macOS) nothing can be verified, so nothing is reaped at start; the other two layers hold.
 */

type Stop = () => Promise<unknown>;
interface Journal {
  dir?: string;
  running: Map<number, Stop>;
  /** stopAllGroups is under way: a group that starts now is stopped at once, and the stop waits for it too */
  stopping?: boolean;
}
const KEY = Symbol.for('clamp.commandGroups');

/** Shared through globalThis: the launcher sets the folder, the runner inside Next.js route bundles records into it. */
function journal(): Journal {
  const g = globalThis as unknown as Record<symbol, Journal | undefined>;
  return (g[KEY] ??= { running: new Map() });
}

let boot: string | undefined;
function bootId(): string {
  if (boot === undefined) {
    try {
      boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
    } catch {
      boot = 'unknown';
    }
  }
  return boot;
}

/** This server's record folder inside `root`: named by pid and start time, so a reused pid is not mistaken for it. */
export function ownerDir(root: string, pid = process.pid): string {
  return path.join(root, `${pid}-${processStartTicks(pid) ?? '0'}`);
}

/**
 * Record running groups under `root` from now on (the launcher calls this once); undefined, or a folder
 * that cannot be made: keep them in memory only (a clean stop still finds them). Never throws.
 */
export function setGroupJournal(root: string | undefined): void {
  const j = journal();
  j.dir = root === undefined ? undefined : ownerDir(root);
  if (!j.dir) return;
  try {
    fs.mkdirSync(j.dir, { recursive: true });
  } catch {
    j.dir = undefined;
  }
}

/** Note a command's group as running; `stop` kills it and resolves once it is reaped. Never throws. */
export function trackGroup(pgid: number, stop: Stop): void {
  const j = journal();
  // one stop per group, however often it is asked for (a group that started during a stop is asked twice)
  let stopped: Promise<unknown> | undefined;
  const once: Stop = () => (stopped ??= stop());
  j.running.set(pgid, once);
  if (j.stopping) void once().catch(() => undefined);
  if (!j.dir) return;
  try {
    fs.writeFileSync(path.join(j.dir, `${pgid}.group`), `${pgid} ${processStartTicks(pgid) ?? '0'} ${bootId()}\n`);
  } catch {
    // a full disk must not stop a command; the clean stop still finds it in memory
  }
}

/** The group is gone (reaped). Never throws. */
export function untrackGroup(pgid: number): void {
  const j = journal();
  j.running.delete(pgid);
  if (j.dir) fs.rmSync(path.join(j.dir, `${pgid}.group`), { force: true });
}

/** Stop every command group this process runs and wait until each is reaped (or timeoutMs passes). Never throws. */
export async function stopAllGroups(timeoutMs: number): Promise<void> {
  const j = journal();
  j.stopping = true;
  // a command that starts while the others are being stopped (a turn's next checkpoint, say) is stopped and
  // waited for as well: none outlives the stop, writing into the data dir after the server has gone
  const asked = new Set<Stop>();
  const all = async () => {
    for (;;) {
      const fresh = [...j.running.values()].filter((stop) => !asked.has(stop));
      if (fresh.length === 0) return;
      for (const stop of fresh) asked.add(stop);
      await Promise.all(fresh.map((stop) => stop().catch(() => undefined)));
    }
  };
  try {
    await Promise.race([all(), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  } finally {
    j.stopping = false;
  }
}

function ownerAlive(name: string): boolean {
  const m = /^(\d+)-(\d+)$/.exec(name);
  if (!m) return false;
  const pid = Number(m[1]);
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // the pid is taken: by the same server only if it started at the same tick
  return m[2] === '0' || processStartTicks(pid) === m[2];
}

/** True when the recorded group still runs and is the one recorded (same boot, leader or members not younger than it). */
function sameGroupRunning(record: string, boot: string): boolean {
  const [g, ticks, recordBoot] = record.trim().split(' ');
  const pgid = Number(g);
  if (!Number.isInteger(pgid) || pgid <= 1 || recordBoot !== boot || ticks === '0') return false;
  const members = liveGroupMembers(pgid);
  if (!members || members.length === 0) return false;
  const leader = processStartTicks(pgid);
  if (leader !== undefined && members.includes(pgid)) return leader === ticks;
  // the leader exited and its pgid stays taken while members live: they started after it
  return members.every((pid) => Number(processStartTicks(pid) ?? 0) >= Number(ticks));
}

/**
 * Kill the command groups that servers which are no longer running recorded and nobody stopped
 * (Clamp was killed, and its watchdog too). Returns how many groups were killed. Never throws.
 */
export async function reapLeftoverGroups(root: string, graceMs: number): Promise<number> {
  let owners: string[];
  try {
    owners = fs.readdirSync(root);
  } catch {
    return 0;
  }
  if (liveGroupMembers(process.pid) === undefined) return 0; // no /proc: nothing can be verified
  const boot = bootId();
  const pgids: number[] = [];
  for (const owner of owners) {
    if (ownerAlive(owner)) continue;
    const dir = path.join(root, owner);
    let files: string[] = [];
    try {
      files = fs.readdirSync(dir).filter((f) => f.endsWith('.group'));
    } catch {
      // not a folder: a stray file
    }
    for (const f of files) {
      let record = '';
      try {
        record = fs.readFileSync(path.join(dir, f), 'latin1');
      } catch {
        continue;
      }
      if (sameGroupRunning(record, boot)) pgids.push(Number(record.split(' ')[0]));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const pgid of pgids) signalGroup(pgid, 'SIGTERM');
  await Promise.all(
    pgids.map(async (pgid) => {
      if (!(await waitGroupGone(pgid, graceMs))) signalGroup(pgid, 'SIGKILL');
    }),
  );
  return pgids.length;
}

// Runs as `sh -c WATCHDOG clamp-watchdog <dir> <grace seconds>`; stdin is a pipe from the server.
const WATCHDOG = [
  'while read -r _; do :; done', // returns when the server is gone and its end of the pipe closed
  '[ -d "$1" ] || exit 0',
  'dir=$1; grace=$2',
  'set -- "$dir"/*.group',
  'if [ -e "$1" ]; then',
  // (dash's kill takes no `--`; a negative number is a process group)
  '  for f; do read -r g _ < "$f" && kill -TERM "-$g" 2>/dev/null; done',
  '  sleep "$grace"',
  '  for f; do read -r g _ < "$f" && kill -KILL "-$g" 2>/dev/null; rm -f "$f"; done',
  'fi',
  'rmdir "$dir" 2>/dev/null',
  'exit 0',
].join('\n');

/**
 * Start the watchdog for this server's records under `root` (call after setGroupJournal). It waits
 * on a pipe only this process holds, so it wakes exactly when this process dies, however it dies.
 */
export function startWatchdog(root: string, graceMs: number): ChildProcess {
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'clamp-watchdog', ownerDir(root), String(Math.max(1, Math.ceil(graceMs / 1000)))], {
    cwd: '/',
    stdio: ['pipe', 'ignore', 'ignore'],
    // its own group and session: a Ctrl-C to the terminal's group must not take it down with the server
    detached: true,
  });
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.unref();
  return child;
}
