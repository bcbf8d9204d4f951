import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { procParent } from '../exec/proc-stat';

/**
 * The launcher stops with whoever started it. `npm start` runs `sh -c "node bin/clamp.mjs"`, so
 * killing npm (a process manager, some terminals' Ctrl-C) orphans the shell, not Clamp: Clamp's own
 * parent pid stays the same while the port stays taken. So the watch covers each link from Clamp up to
 * the process that launched it: Clamp's parent, and — when that parent is the shell npm runs scripts
 * in — the shell's parent too. A link whose parent pid changes means that parent died.
 */

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh']);

/** The parent pid of a process, or undefined when it is gone (/proc on Linux, `ps` elsewhere). */
export function parentPidOf(pid: number): number | undefined {
  if (pid === process.pid) return process.ppid;
  const ppid = procParent(pid);
  if (ppid !== undefined || fs.existsSync('/proc/self/stat')) return ppid;
  try {
    const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return out ? Number(out) : undefined;
  } catch {
    return undefined;
  }
}

/** The command name of a process (its file name, e.g. "sh"), or undefined. */
function commandNameOf(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    // no /proc: ask ps
  }
  try {
    const out = execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return out.split('/').pop() || undefined;
  } catch {
    return undefined;
  }
}

export interface ParentLink {
  pid: number;
  parent: number;
}

/**
 * The links to watch, from this process up. Nothing to watch when the parent is already init (pid 1):
 * a service manager or `nohup … &` started Clamp to outlive its shell.
 */
export function launchChain(env: NodeJS.ProcessEnv = process.env): ParentLink[] {
  const parent = process.ppid;
  if (parent <= 1) return [];
  const chain: ParentLink[] = [{ pid: process.pid, parent }];
  // an npm script runs in `sh -c …`: npm itself is the shell's parent
  if (env.npm_lifecycle_event && SHELLS.has(commandNameOf(parent) ?? '')) {
    const grand = parentPidOf(parent);
    if (grand !== undefined && grand > 1) chain.push({ pid: parent, parent: grand });
  }
  return chain;
}

/** The first link whose parent changed (its parent died), described, or undefined while all hold. */
export function brokenLink(chain: readonly ParentLink[]): string | undefined {
  for (const link of chain) {
    const now = parentPidOf(link.pid);
    if (now !== link.parent) return link.pid === process.pid ? `the process that started Clamp (pid ${link.parent}) is gone` : `npm (pid ${link.parent}) is gone`;
  }
  return undefined;
}

/**
 * Poll the launch chain (read now, or earlier by the caller) every intervalMs (an unref'd timer: it never keeps the process alive) and call
 * onOrphaned once, with the reason, when a parent in it dies. Returns a function that stops the watch.
 */
export function watchParents(onOrphaned: (why: string) => void, intervalMs: number, env: NodeJS.ProcessEnv = process.env, chain = launchChain(env)): () => void {
  if (chain.length === 0) return () => undefined;
  const timer = setInterval(() => {
    const why = brokenLink(chain);
    if (why) {
      clearInterval(timer);
      onOrphaned(why);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
