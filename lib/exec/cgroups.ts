import fs from 'node:fs';
import path from 'node:path';
import type { SandboxLimits } from './limits';

/**
 * A cgroup per sandboxed command, where this process may make one: cgroup v1's pids and memory hierarchies
 * when they are mounted writable (each under this process's own cgroup there), else a delegated cgroup v2
 * (this process's own cgroup, writable, with the pids and memory controllers). It bounds what rlimits cannot:
 * root's processes (RLIMIT_NPROC exempts root) and the memory of all of a command's processes together.
 *
 * Node cannot start a child inside a cgroup (no clone3 CLONE_INTO_CGROUP), a wrapper process would cost an exec
 * per command, and stepping this process in and out around the spawn costs an RCU grace period on the event loop
 * (7 ms measured on a busy machine). So bubblewrap is started held (--block-fd): once it reports the sandbox's
 * first process (--info-fd), that process is written into the command's cgroup off the event loop (`attach`,
 * while bubblewrap builds the sandbox), and then let go; everything the command starts is born inside. On v2 the
 * command cgroups' parent may hold no process, so this process moves once into a leaf of its own
 * (`clamp-<pid>/server`), which needs its cgroup to hold nothing else.
 * Every cgroup is removed once its command is gone; the folder of a server that died is removed at the next start.
 */

export type Controller = 'pids' | 'memory';
const CONTROLLERS: readonly Controller[] = ['pids', 'memory'];

export interface Hierarchy {
  /** where command cgroups are made */
  base: string;
  /** where this process lives (v2: the leaf it moved to) */
  home: string;
  controllers: Controller[];
  v2: boolean;
}

interface State {
  hierarchies: Hierarchy[];
  next: number;
}

const KEY = Symbol.for('clamp.cgroups');

/** One line of /proc/self/mountinfo: its root, mount point, file system type and super options. */
function mounts(procRoot: string): { root: string; at: string; type: string; opts: string[] }[] {
  try {
    return fs.readFileSync(path.join(procRoot, 'self/mountinfo'), 'utf8').split('\n').filter(Boolean).map((line) => {
      const [left, right = ''] = line.split(' - ');
      const f = left!.split(' ');
      const r = right.split(' ');
      const unescape = (s: string) => s.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
      return { root: unescape(f[3] ?? '/'), at: unescape(f[4] ?? ''), type: r[0] ?? '', opts: (r[2] ?? '').split(',') };
    });
  } catch {
    return [];
  }
}

/** This process's cgroup paths: by v1 controller, and v2's under ''. */
function ownPaths(procRoot: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const line of fs.readFileSync(path.join(procRoot, 'self/cgroup'), 'utf8').split('\n')) {
      const m = /^\d+:([^:]*):(.*)$/.exec(line);
      if (!m) continue;
      for (const c of m[1]!.split(',')) out.set(c, m[2]!);
    }
  } catch {
    // no /proc: no cgroups
  }
  return out;
}

const within = (mountRoot: string, own: string) => (mountRoot === '/' ? own : own.startsWith(mountRoot) ? own.slice(mountRoot.length) || '/' : undefined);
const write = (file: string, text: string) => fs.writeFileSync(file, text);
const read = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Remove a command's cgroup and then a base folder's empty leftovers (best effort). */
function rmdirQuiet(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** The base folders of servers that are gone (`clamp-<pid>` beside ours): their command cgroups, then themselves. */
function sweepDead(parent: string, pid: number): void {
  let names: string[] = [];
  try {
    names = fs.readdirSync(parent).filter((n) => /^clamp-\d+$/.test(n));
  } catch {
    return;
  }
  for (const n of names) {
    const other = Number(n.slice(6));
    if (other === pid) continue;
    try {
      process.kill(other, 0);
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') continue;
    }
    removeBase(path.join(parent, n));
  }
}

function removeBase(base: string): void {
  try {
    for (const e of fs.readdirSync(base, { withFileTypes: true })) if (e.isDirectory()) rmdirQuiet(path.join(base, e.name));
  } catch {
    return;
  }
  rmdirQuiet(base);
}

/** v1: one hierarchy per controller mounted writable, under this process's own cgroup there. */
function v1Hierarchies(procRoot: string, pid: number): Hierarchy[] {
  const own = ownPaths(procRoot);
  const out: Hierarchy[] = [];
  for (const c of CONTROLLERS) {
    const m = mounts(procRoot).find((x) => x.type === 'cgroup' && x.opts.includes(c));
    const rel = m && own.has(c) ? within(m.root, own.get(c)!) : undefined;
    if (!m || rel === undefined) continue;
    const home = path.join(m.at, rel);
    const base = path.join(home, `clamp-${pid}`);
    try {
      sweepDead(home, pid);
      fs.mkdirSync(base, { recursive: false });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') continue;
    }
    out.push({ base, home, controllers: [c], v2: false });
  }
  return out;
}

/**
 * v2: this process's cgroup, when it may be written and offers both controllers. Command cgroups need the
 * controllers enabled in their parent, and a cgroup with enabled controllers may hold no process itself: so
 * this process moves into `clamp-<pid>/server` first, and its old cgroup must then be empty (a service of its
 * own, not a terminal's scope shared with the shell).
 */
function v2Hierarchy(procRoot: string, pid: number): Hierarchy | undefined {
  const m = mounts(procRoot).find((x) => x.type === 'cgroup2');
  const ownRaw = ownPaths(procRoot).get('');
  const rel = m && ownRaw !== undefined ? within(m.root, ownRaw) : undefined;
  if (!m || rel === undefined) return undefined;
  const own = path.join(m.at, rel);
  const offered = read(path.join(own, 'cgroup.controllers')).split(/\s+/);
  if (!CONTROLLERS.every((c) => offered.includes(c))) return undefined;
  const enable = CONTROLLERS.map((c) => `+${c}`).join(' ');
  const base = path.join(own, `clamp-${pid}`);
  const server = path.join(base, 'server');
  try {
    sweepDead(own, pid);
    fs.mkdirSync(server, { recursive: true });
    write(path.join(server, 'cgroup.procs'), String(pid));
  } catch {
    removeBase(base);
    return undefined;
  }
  try {
    if (rel !== '/' && read(path.join(own, 'cgroup.procs')).trim() !== '') throw new Error('shared');
    const enabled = read(path.join(own, 'cgroup.subtree_control')).split(/\s+/);
    if (!CONTROLLERS.every((c) => enabled.includes(c))) write(path.join(own, 'cgroup.subtree_control'), enable);
    write(path.join(base, 'cgroup.subtree_control'), enable);
  } catch {
    // back where it was; nothing is left behind
    try {
      write(path.join(own, 'cgroup.procs'), String(pid));
    } catch {
      // it stays in its leaf, which limits nothing
    }
    removeBase(base);
    return undefined;
  }
  return { base, home: server, controllers: [...CONTROLLERS], v2: true };
}

/**
 * Where command cgroups can be made for process `pid`, as `procRoot` (normally /proc) describes its mounts and
 * cgroups: v1's writable pids and memory hierarchies, else a delegated v2 (made ready: see v2Hierarchy).
 * Exported for tests, which give it a made-up tree; the runner uses the one result per process.
 */
export function detectHierarchies(procRoot: string, pid: number): Hierarchy[] {
  const v1 = v1Hierarchies(procRoot, pid);
  if (v1.length) return v1;
  const v2 = v2Hierarchy(procRoot, pid);
  return v2 ? [v2] : [];
}

function state(): State {
  const g = globalThis as unknown as Record<symbol, State | undefined>;
  let s = g[KEY];
  if (s) return s;
  const hierarchies = process.platform === 'linux' ? detectHierarchies('/proc', process.pid) : [];
  s = g[KEY] = { hierarchies, next: 0 };
  if (hierarchies.length) process.once('exit', () => hierarchies.forEach((h) => removeBase(h.base)));
  return s;
}

/** Which limits a cgroup enforces here (for the README's "what holds where" and the page). */
export function cgroupControllers(): Controller[] {
  return state().hierarchies.flatMap((h) => h.controllers);
}

export interface CommandCgroup {
  /** the controllers this command's cgroup has */
  controllers: Controller[];
  /** move a process (the sandbox's first, before it starts the command) into it, off the event loop; false when that failed */
  attach(pid: number): Promise<boolean>;
  /** whether a limit was hit so far: a fork refused at pids.max, a process killed for memory */
  hits(): { processes: boolean; memory: boolean };
  /** remove it once the command is gone (retried while processes are still leaving); never throws */
  remove(): void;
}

/**
 * Moving a process between cgroups first waits for an RCU grace period unless one passed since the last move
 * (2 ms on a quiet machine, 10–25 ms on a loaded one). Writing this process into the cgroup it is already in
 * (a move to nowhere) starts that wait now, in the thread pool, while bwrap is still being started: the move of
 * its first process, a few milliseconds later, shares the wait instead of beginning its own.
 */
function warm(h: Hierarchy): void {
  fs.promises.writeFile(path.join(h.home, h.v2 ? 'cgroup.procs' : 'tasks'), String(process.pid)).catch(() => undefined);
}

/** A cgroup for one command with these limits; undefined where none can be made (the rlimits still hold). */
export function commandCgroup(limits: SandboxLimits): CommandCgroup | undefined {
  const s = state();
  if (s.hierarchies.length === 0) return undefined;
  warm(s.hierarchies[0]!);
  const name = `cmd-${++s.next}`;
  const made: { h: Hierarchy; dir: string }[] = [];
  try {
    for (const h of s.hierarchies) {
      const dir = path.join(h.base, name);
      fs.mkdirSync(dir);
      made.push({ h, dir });
      if (h.controllers.includes('pids')) write(path.join(dir, 'pids.max'), String(limits.processes));
      if (h.controllers.includes('memory')) {
        if (h.v2) {
          write(path.join(dir, 'memory.max'), String(limits.memoryBytes));
          // no swap beyond the limit: a runaway would make the whole machine swap
          if (fs.existsSync(path.join(dir, 'memory.swap.max'))) write(path.join(dir, 'memory.swap.max'), '0');
        } else {
          write(path.join(dir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
          if (fs.existsSync(path.join(dir, 'memory.memsw.limit_in_bytes'))) write(path.join(dir, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
        }
      }
    }
  } catch {
    for (const m of made) rmdirQuiet(m.dir);
    return undefined;
  }
  const count = (file: string, key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(read(file))?.[1] ?? 0);
  return {
    controllers: made.flatMap((m) => m.h.controllers),
    async attach(pid) {
      try {
        await Promise.all(made.map((m) => fs.promises.writeFile(path.join(m.dir, 'cgroup.procs'), String(pid))));
        return true;
      } catch {
        return false;
      }
    },
    hits() {
      let processes = false;
      let memory = false;
      for (const m of made) {
        if (m.h.controllers.includes('pids')) processes ||= count(path.join(m.dir, 'pids.events'), 'max') > 0;
        if (m.h.controllers.includes('memory')) memory ||= count(path.join(m.dir, m.h.v2 ? 'memory.events' : 'memory.oom_control'), 'oom_kill') > 0;
      }
      return { processes, memory };
    },
    remove() {
      let tries = 0;
      const attempt = () => {
        const left = made.filter((m) => !rmdirQuiet(m.dir));
        made.splice(0, made.length, ...left);
        if (made.length && ++tries < 20) setTimeout(attempt, 250).unref();
      };
      attempt();
    },
  };
}
