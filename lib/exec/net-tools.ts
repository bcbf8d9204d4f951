import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { findProgram, isRunnableFile } from './programs';
import { trackGroup, untrackGroup } from './leftovers';
import { sandboxStatus } from './sandbox';

/**
 * The programs the sandbox's network is made of, and whether they work here: `pasta` (the passt package)
 * attaches a user-mode network to a namespace, forwarding chosen ports only (the proxy's port out; a server's
 * port in, on the host's loopback); `unshare` and `nsenter` (util-linux) make the session's namespace and put a
 * command in it; `setpriv` (util-linux, optional) ties each helper's life to Clamp's. Every helper is started
 * here, in a process group of its own that the group journal records (so a crashed Clamp's watchdog and the
 * next start stop it too), and stopped by its pid.
 */

export interface NetTools {
  pasta: string;
  unshare: string;
  nsenter: string;
  sleep: string;
  setpriv?: string;
}

export interface NetStatus {
  available: boolean;
  tools?: NetTools;
  /** why the sandbox's network cannot start here, with the fix (commands then have no network at all) */
  problem?: string;
}

const SYSTEM_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

/** pasta: CLAMP_PASTA (tests point it at a missing file), else the first found. */
function pastaPath(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CLAMP_PASTA !== undefined) return env.CLAMP_PASTA && isRunnableFile(env.CLAMP_PASTA) ? env.CLAMP_PASTA : undefined;
  return findProgram('pasta', env, SYSTEM_DIRS);
}

const known = new Map<string, NetStatus>();

/**
 * Whether the sandbox's network can start here: bubblewrap works, pasta, unshare and nsenter are found, and
 * /dev/net/tun (pasta's device) opens for this user. Checked once per process and set of programs. Never throws.
 */
export function sandboxNetStatus(env: NodeJS.ProcessEnv = process.env): NetStatus {
  const pasta = pastaPath(env);
  const key = `${pasta}|${env.PATH}`;
  const hit = known.get(key);
  if (hit) return hit;
  const status = probe(env, pasta);
  known.set(key, status);
  return status;
}

function probe(env: NodeJS.ProcessEnv, pasta: string | undefined): NetStatus {
  const off = 'sandboxed commands have no network: their servers cannot be opened from this machine and no host can be reached through the sandbox\'s proxy';
  if (!sandboxStatus(env).available) return { available: false, problem: 'the sandbox itself cannot start' };
  if (!pasta) return { available: false, problem: `pasta is not installed (Debian/Ubuntu: apt-get install passt; Fedora: dnf install passt), so ${off}` };
  const [unshare, nsenter, sleep] = ['unshare', 'nsenter', 'sleep'].map((p) => findProgram(p, env, SYSTEM_DIRS));
  if (!unshare || !nsenter || !sleep) return { available: false, problem: `unshare, nsenter and sleep (util-linux, coreutils) are needed beside pasta; without them ${off}` };
  try {
    fs.closeSync(fs.openSync('/dev/net/tun', 'r+'));
  } catch (err) {
    return { available: false, problem: `pasta cannot open /dev/net/tun (${(err as NodeJS.ErrnoException).code}): make it usable by this user (it usually is: mode 0666), so ${off}` };
  }
  const setpriv = findProgram('setpriv', env, SYSTEM_DIRS);
  return { available: true, tools: { pasta, unshare, nsenter, sleep, ...(setpriv ? { setpriv } : {}) } };
}

/** Helpers (any Clamp's) whose Clamp process is gone: what a clean stop, the watchdog or the exit hook should have stopped. */
export function orphanedHelpers(): number[] {
  const out: number[] = [];
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const p of pids) {
    let env = '';
    try {
      env = fs.readFileSync(`/proc/${p}/environ`, 'latin1');
    } catch {
      continue;
    }
    const m = /(?:^|\0)CLAMP_HELPER_OF=(\d+)\0/.exec(env);
    if (!m) continue;
    try {
      process.kill(Number(m[1]), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') out.push(Number(p));
    }
  }
  return out;
}

export interface Helper {
  pid: number;
  /** SIGKILL it (it holds nothing that needs a clean stop) and forget it */
  stop(): void;
  /** resolves when it exited */
  exited: Promise<void>;
}

/**
 * Start one helper process (the namespace's holder, a pasta) in a group of its own, recorded in the group
 * journal until it is stopped; with setpriv, it also dies with this process. Undefined when it could not start.
 */
export function startHelper(tools: NetTools, file: string, args: readonly string[]): Helper | undefined {
  const [f, a] = tools.setpriv ? [tools.setpriv, ['--pdeathsig', 'KILL', '--', file, ...args]] : [file, [...args]];
  let child;
  try {
    // CLAMP_HELPER_OF names the Clamp process it serves: a helper whose Clamp is gone is a leftover (tests look for them)
    child = spawn(f, a, { stdio: 'ignore', detached: true, cwd: '/', env: { ...process.env, CLAMP_HELPER_OF: String(process.pid) } });
  } catch {
    return undefined;
  }
  const pid = child.pid;
  if (pid === undefined) {
    child.on('error', () => undefined);
    return undefined;
  }
  child.on('error', () => undefined);
  child.unref();
  let gone = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true;
      untrackGroup(pid);
      resolve();
    }),
  );
  const stop = () => {
    if (gone) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  trackGroup(pid, async () => {
    // unref'd so a running helper never keeps Clamp alive; a stop that waits for its exit holds the loop until then
    child.ref();
    stop();
    await exited;
  });
  return { pid, stop, exited };
}
