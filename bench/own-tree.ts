/**
 * The CPU a benchmark's whole process tree used, for telling its own work from other processes'.
 *
 * This process's reaped-children time (cutime) holds every descendant that was waited for up the
 * chain. What it misses are the descendants that escape the chain: still running when the run ends
 * (a server its benchmark did not wait for), or reparented to init (a language server whose parent
 * exited, a browser's daemonised helper). OwnTree looks at /proc a few times a second, keeps every
 * process it has seen below this one (by pid and start time, so a reused pid is another process),
 * and adds the CPU of those that escaped: whole (their own and their reaped children's), since none
 * of it reaches this process. Processes inside bubblewrap's namespaces are ordinary processes here.
 * A process that escapes before the first look that could see it (a double fork within 250 ms: a
 * sandboxed language server's outer bwrap is gone by then) is still found when it carries the run's
 * marker in its environment (TREE_MARKER, set by bench/run.ts and inherited by every descendant
 * that keeps its environment); one that clears it too is counted as another's.
 */
import fs from 'node:fs';

interface ProcTicks {
  ppid: number;
  /** start time, in clock ticks after boot */
  start: number;
  /** utime + stime */
  self: number;
  /** cutime + cstime: the children it reaped */
  children: number;
}

/** Fields of /proc/<pid>/stat after the command's ")": state is [0], ppid [1], utime [11] … cstime [14], starttime [19]. */
export function parseStat(text: string): ProcTicks | null {
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (f.length < 20) return null;
  return { ppid: Number(f[1]), start: Number(f[19]), self: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

function readProcs(): Map<number, ProcTicks> {
  const out = new Map<number, ProcTicks>();
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const p = parseStat(fs.readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (p) out.set(Number(name), p);
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/** Clock ticks since boot now (USER_HZ 100), from /proc/uptime. */
function uptimeTicks(): number {
  try {
    return Math.floor(Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100);
  } catch {
    return 0;
  }
}

/** The environment variable bench/run.ts sets (to a value of its own) before it starts a benchmark. */
export const TREE_MARKER = 'CLAMP_BENCH_TREE';

function carriesMarker(pid: number, entry: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false;
  }
}

interface Seen {
  /** its utime + stime and cutime + cstime when first seen if it started before the watch, else 0 */
  baseSelf: number;
  baseChildren: number;
  self: number;
  children: number;
  /** its parent was, at some look, not in the tree: its CPU can no longer reach this process */
  escaped: boolean;
  /** its parent at the last look: 'root', another seen process's key, or null (one never seen) */
  parent: string | null;
}

export class OwnTree {
  private readonly seen = new Map<string, Seen>();
  private readonly t0 = uptimeTicks();
  private timer: NodeJS.Timeout | null = null;
  /** processes outside the tree whose environment was read (once each) */
  private readonly checked = new Set<string>();
  private readonly marker: string | null;

  constructor(private readonly root = process.pid, marker = process.env[TREE_MARKER]) {
    this.marker = marker ? `${TREE_MARKER}=${marker}` : null;
  }

  /** Look every `ms` until stop(). */
  start(ms = 250): this {
    this.look();
    this.timer = setInterval(() => this.look(), ms);
    return this;
  }

  /** One look at /proc: every process below the root now, and every one seen before that still runs. */
  look(): Set<string> {
    const procs = readProcs();
    const kids = new Map<number, number[]>();
    for (const [pid, p] of procs) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), pid]);
    // the tree now: below the root, and below every process seen before that still runs (its own
    // chain to the root may be broken: then it is marked escaped below, its children are not)
    const seeds = [this.root];
    for (const [pid, p] of procs) {
      const key = `${pid}:${p.start}`;
      if (this.seen.has(key)) seeds.push(pid);
      else if (this.marker && pid !== this.root && p.start >= this.t0 && !this.checked.has(key)) {
        // started since the watch began and not (yet) known: its environment says whether it is the run's
        this.checked.add(key);
        if (carriesMarker(pid, this.marker)) seeds.push(pid);
      }
    }
    const inTree = new Set<number>(seeds);
    const stack = [...seeds];
    while (stack.length) {
      for (const c of kids.get(stack.pop()!) ?? []) {
        if (inTree.has(c)) continue;
        inTree.add(c);
        stack.push(c);
      }
    }
    const alive = new Set<string>();
    for (const [pid, p] of procs) if (pid !== this.root && inTree.has(pid)) alive.add(`${pid}:${p.start}`);
    for (const [pid, p] of procs) {
      const key = `${pid}:${p.start}`;
      if (!alive.has(key)) continue;
      const before = p.start < this.t0;
      const s = this.seen.get(key) ?? { baseSelf: before ? p.self : 0, baseChildren: before ? p.children : 0, self: 0, children: 0, escaped: false, parent: null };
      s.self = p.self;
      s.children = p.children;
      if (!inTree.has(p.ppid)) s.escaped = true;
      const pp = procs.get(p.ppid);
      s.parent = p.ppid === this.root ? 'root' : pp ? `${p.ppid}:${pp.start}` : null;
      this.seen.set(key, s);
    }
    return alive;
  }

  /**
   * Stop looking; the clock ticks of the tree's processes that this process's cutime will not hold.
   * A process below an escaped one (or escaped itself) is counted by its own time only (what it
   * reaped is counted with those processes, when a look saw them); one whose chain to the root is
   * whole and that still runs now is counted with what it reaped (that has not reached the root yet).
   */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const alive = this.look();
    const lost = new Map<string, boolean>();
    const isLost = (key: string): boolean => {
      const known = lost.get(key);
      if (known !== undefined) return known;
      const s = this.seen.get(key);
      lost.set(key, true); // a cycle of reused keys cannot loop
      const v = !s || s.escaped || s.parent === null || (s.parent !== 'root' && isLost(s.parent));
      lost.set(key, v);
      return v;
    };
    let ticks = 0;
    for (const [key, s] of this.seen) {
      if (isLost(key)) ticks += s.self - s.baseSelf;
      else if (alive.has(key)) ticks += s.self - s.baseSelf + (s.children - s.baseChildren);
    }
    return ticks;
  }
}
