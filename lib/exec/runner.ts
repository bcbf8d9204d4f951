import crypto from 'node:crypto';
import fs from 'node:fs';
import { CommandRun, loadRunner, type SpawnSpec } from './run-state';
import { spawnTurn } from './spawn-turn';
import { sandboxArgs, sandboxStatus, withoutSecrets, type SandboxSpec } from './sandbox';
import { openSeccompFd } from './seccomp';
import { sandboxLimitsOrDefault, ulimitPrefix, type SandboxLimits } from './limits';
import { commandCgroup, type CommandCgroup } from './cgroups';
import { closeFd, openBlockingPipe, openPipe, type PipeEnds } from './fifo';
import { holdLogs } from './live-logs';

import type { RunHandle, RunOptions, RunResult } from './run-types';

/**
 * The one command runner. Foreground run_command and background tasks both start here, so both
 * drain both pipes from the first byte (a chatty child can never block on a full pipe), both
 * bound memory per stream, both log everything to disk and both kill and reap the whole group.
 */

export type { KillReason, RunHandle, RunOptions, RunResult, StreamName } from './run-types';
export { loadRunner };

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
  // its logs are in use until it ends: retention leaves them alone
  holdLogs([handle.logPaths.stdout, handle.logPaths.stderr, handle.combinedLogPath], handle.done);
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
  if (!o.sandbox) return { file: shellPath(), args: ['-c', o.command], env };
  const status = sandboxStatus();
  if (!status.available) return { error: `the sandbox could not start: ${status.problem}` };
  const inner = sandboxedEnv(env, o.sandbox);
  const limits = o.sandbox.limits ?? sandboxLimitsOrDefault();
  let filter: number | undefined;
  let held: HeldCgroup | undefined;
  try {
    filter = openSeccompFd(o.sandbox.dataDir);
    held = heldCgroup(limits);
    return sandboxedSpec(o, { sandbox: o.sandbox, bwrap: status.bwrap!, env: inner, limits, filter, held });
  } catch (err) {
    if (filter !== undefined) closeFd(filter);
    if (held) [held.info.read, held.info.write, held.block.read, held.block.write].forEach(closeFd);
    return { error: `the sandbox could not be set up: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The environment inside the sandbox: the allowlisted variables, its own /tmp, caches in the scratch folder. */
function sandboxedEnv(env: NodeJS.ProcessEnv, sandbox: SandboxSpec): NodeJS.ProcessEnv {
  const inner = withoutSecrets(env, sandbox.passEnv);
  // temporary files go to the sandbox's own /tmp (a TMPDIR elsewhere is read-only or hidden inside)
  inner.TMPDIR = '/tmp';
  if (sandbox.scratchDir && sandbox.level === 'workspace-write') {
    inner.CLAMP_SCRATCH = sandbox.scratchDir;
    // caches go to the scratch folder: HOME is read-only inside
    inner.XDG_CACHE_HOME ??= `${sandbox.scratchDir}/cache`;
    // always: npm started Clamp (npm start) passes its own npm_config_cache, in HOME, read-only inside
    inner.npm_config_cache = `${sandbox.scratchDir}/npm-cache`;
  }
  return inner;
}

/** A cgroup of the command's own and the pipes that hold bwrap until it is in it. */
interface HeldCgroup {
  cgroup: CommandCgroup;
  info: PipeEnds;
  block: PipeEnds;
}

/** A cgroup for the command with its two pipes; undefined (the rlimits alone then) where either cannot be had. */
function heldCgroup(limits: SandboxLimits): HeldCgroup | undefined {
  const cgroup = commandCgroup(limits);
  if (!cgroup) return undefined;
  const info = openPipe();
  const block = info && openBlockingPipe();
  if (info && block) return { cgroup, info, block };
  // no pipes to hold bwrap with: the command runs under its rlimits only
  if (info) [info.read, info.write].forEach(closeFd);
  cgroup.remove();
  return undefined;
}

/** bwrap (entered into the session's network when it has one) around the shell with the limits set before the command. */
function sandboxedSpec(o: RunOptions, s: { sandbox: SandboxSpec; bwrap: string; env: NodeJS.ProcessEnv; limits: SandboxLimits; filter?: number; held?: HeldCgroup }): SpawnSpec {
  const { held, env } = s;
  // descriptors the child gets as 3, 4 …: the system-call filter, and, with a cgroup, the pipes that hold bwrap
  const fds: number[] = [];
  const fdOf = (fd: number) => 3 + fds.push(fd) - 1;
  const fdArgs = {
    ...(s.filter === undefined ? {} : { seccompFd: fdOf(s.filter) }),
    ...(held ? { infoFd: fdOf(held.info.write), blockFd: fdOf(held.block.read) } : {}),
  };
  // the session's network (sandbox-net.ts): nsenter puts bwrap in it; the proxy's variables win over the person's
  const net = s.sandbox.network ? undefined : o.net;
  if (net) Object.assign(env, net.env);
  const args = sandboxArgs(s.sandbox, o.cwd, env, { ...fdArgs, ...(net ? { joinedNet: { userns: net.joinsUserns } } : {}) });
  const shell = shellPath();
  const command = [shell, '-c', ulimitPrefix(s.limits, shell) + o.command];
  const [file, ...before] = net ? [...net.enter, s.bwrap] : [s.bwrap];
  return {
    file: file!,
    args: [...before, ...args, ...command],
    env,
    spareLeader: true,
    fds,
    limits: s.limits,
    ...(held ? { cgroup: held.cgroup, hold: { info: held.info.read, block: held.block.write } } : {}),
  };
}

/** Run a command to the end (the foreground path: start + await). Never throws. */
export async function runCommand(o: RunOptions): Promise<RunResult> {
  await Promise.all([loadRunner(), spawnTurn()]);
  return startCommand(o).done;
}
