import crypto from 'node:crypto';
import fs from 'node:fs';
import { CommandRun, type SpawnSpec } from './run-state';
import { spawnTurn } from './spawn-turn';
import { sandboxArgs, sandboxStatus, withoutSecrets } from './sandbox';
import { openSeccompFd } from './seccomp';
import { sandboxLimitsOrDefault, ulimitPrefix } from './limits';
import { commandCgroup } from './cgroups';
import { closeFd, openBlockingPipe, openPipe, type PipeEnds } from './fifo';

import type { RunHandle, RunOptions, RunResult } from './run-types';

/**
 * The one command runner. Foreground run_command and background tasks both start here, so both
 * drain both pipes from the first byte (a chatty child can never block on a full pipe), both
 * bound memory per stream, both log everything to disk and both kill and reap the whole group.
 */

export type { KillReason, RunHandle, RunOptions, RunResult, StreamName } from './run-types';

/** The shell commands run through: bash when present, else sh. */
export function shellPath(): string {
  return fs.existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

/**
 * The environment a command gets: the server's, with pagers, editors and prompts disabled so
 * nothing waits for a keypress (stdin is closed anyway), and Clamp's own access token removed
 * (a command must not be able to drive Clamp's API and approve itself).
 * FORCE_COLOR is dropped so tools see a plain pipe; NO_COLOR is not forced: the page renders ANSI.
 * CI is not set: it changes tools' behaviour (vitest and jest stop writing new snapshots).
 */
export function commandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANPAGER: 'cat',
    SYSTEMD_PAGER: '',
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_EDITOR: 'true',
    EDITOR: 'true',
    VISUAL: 'true',
    TERM: 'dumb',
    DEBIAN_FRONTEND: 'noninteractive',
  };
  delete env.FORCE_COLOR;
  delete env.CLAMP_TOKEN;
  return env;
}

/** A short unique id for a run's log files. */
export function newRunId(prefix = 'cmd'): string {
  return `${prefix}-${crypto.randomBytes(4).toString('hex')}`;
}

/** The run-id prefix of a tool call's command: its logs carry the call's id, so they can be found after a restart. */
export function callRunPrefix(callId: string): string {
  return `cmd-${callId.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 48)}`;
}

/** Start a command in its own process group. Never throws: a failure to start resolves `done` with spawnError. */
export function startCommand(o: RunOptions): RunHandle {
  const run = new CommandRun(o, o.id ?? newRunId());
  const handle = run.start(spawnSpec(o)).handle();
  // a run in the session's network: its ports are forwarded while it runs; it lets the network go when it ends
  if (o.net) {
    o.net.attach(handle.pid);
    void handle.done.then(() => o.net!.release());
  }
  return handle;
}

/**
 * The shell, or bwrap around it when the run is sandboxed; an error (never an unconfined run) when the sandbox
 * cannot start. Sandboxed: the allowlisted environment, the system-call filter on descriptor 3, the rlimits set
 * by the shell before the command, and a cgroup of its own where one can be made.
 */
function spawnSpec(o: RunOptions): SpawnSpec | { error: string } {
  const env = o.env ?? commandEnv();
  const shell = [shellPath(), '-c', o.command];
  if (!o.sandbox) return { file: shell[0]!, args: shell.slice(1), env };
  const status = sandboxStatus();
  if (!status.available) return { error: `the sandbox could not start: ${status.problem}` };
  const inner = withoutSecrets(env, o.sandbox.passEnv);
  // temporary files go to the sandbox's own /tmp (a TMPDIR elsewhere is read-only or hidden inside)
  inner.TMPDIR = '/tmp';
  if (o.sandbox.scratchDir && o.sandbox.level === 'workspace-write') {
    inner.CLAMP_SCRATCH = o.sandbox.scratchDir;
    // caches go to the scratch folder: HOME is read-only inside
    inner.XDG_CACHE_HOME ??= `${o.sandbox.scratchDir}/cache`;
    // always: npm started Clamp (npm start) passes its own npm_config_cache, in HOME, read-only inside
    inner.npm_config_cache = `${o.sandbox.scratchDir}/npm-cache`;
  }
  const limits = o.sandbox.limits ?? sandboxLimitsOrDefault();
  let filter: number | undefined;
  // descriptors the child gets as 3, 4 …: the system-call filter, and, with a cgroup, the pipes that hold bwrap
  const fds: number[] = [];
  const fdOf = (fd: number) => 3 + fds.push(fd) - 1;
  let hold: { info: PipeEnds; block: PipeEnds } | undefined;
  try {
    filter = openSeccompFd(o.sandbox.dataDir);
    let cgroup = commandCgroup(limits);
    if (cgroup) {
      const info = openPipe();
      const block = info && openBlockingPipe();
      if (info && block) hold = { info, block };
      else {
        // no pipes to hold bwrap with: the command runs under its rlimits only
        if (info) [info.read, info.write].forEach(closeFd);
        cgroup.remove();
        cgroup = undefined;
      }
    }
    const fdArgs = {
      ...(filter === undefined ? {} : { seccompFd: fdOf(filter) }),
      ...(hold ? { infoFd: fdOf(hold.info.write), blockFd: fdOf(hold.block.read) } : {}),
    };
    // the session's network (sandbox-net.ts): nsenter puts bwrap in it; the proxy's variables win over the person's
    const net = o.sandbox.network ? undefined : o.net;
    if (net) Object.assign(inner, net.env);
    const args = sandboxArgs(o.sandbox, o.cwd, inner, { ...fdArgs, ...(net ? { joinedNet: { userns: net.joinsUserns } } : {}) });
    const command = [shell[0]!, '-c', ulimitPrefix(limits, shell[0]!) + o.command];
    const [file, ...before] = net ? [...net.enter, status.bwrap!] : [status.bwrap!];
    return {
      file: file!,
      args: [...before, ...args, ...command],
      env: inner,
      spareLeader: true,
      fds,
      limits,
      ...(cgroup && hold ? { cgroup, hold: { info: hold.info.read, block: hold.block.write } } : {}),
    };
  } catch (err) {
    if (filter !== undefined) closeFd(filter);
    if (hold) [hold.info.read, hold.info.write, hold.block.read, hold.block.write].forEach(closeFd);
    return { error: `the sandbox could not be set up: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Run a command to the end (the foreground path: start + await). Never throws. */
export async function runCommand(o: RunOptions): Promise<RunResult> {
  await spawnTurn();
  return startCommand(o).done;
}
