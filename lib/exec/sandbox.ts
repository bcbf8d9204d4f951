import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxView } from '../contract/protocol';
import { findProgram, isRunnableFile } from './programs';
import { sandboxEnv } from './sandbox-env';
import { hidePlan, inside } from './sandbox-hide';
import { sandboxLimitsOrDefault, ulimitPrefix, type SandboxLimits } from './limits';
import { seccompFile } from './seccomp';

/**
 * The OS sandbox every model-made command runs in (bubblewrap). The judge reads a command's text;
 * this confines what it can do:
 * - the whole file system read-only; a private /tmp; the workspace writable (workspace-write) or not
 *   (read-only), with `.git/hooks`, `.git/config` (or a worktree's `.git` file) read-only either way;
 *   Clamp's scratch folder writable;
 * - HOME hidden but for what toolchains read, and the person's secrets hidden wherever they are seen, by
 *   real path (sandbox-hide.ts), Clamp's own data dir and secrets file among them;
 * - no capability, even for root (--cap-drop ALL; bwrap sets no_new_privs, so no setuid program regains one),
 *   and a system-call filter (seccomp.ts): no unix sockets to the host's services, no new namespaces, no mounts;
 * - its own pid namespace (it sees and signals nothing outside, and no /proc of the host's processes), no
 *   network unless allowed;
 * - an environment from an allowlist (sandbox-env.ts), and limits on processes, memory and file size (limits.ts).
 * No --new-session: the command already runs in a session and group of its own with no terminal
 * (the runner spawns it detached), and Clamp's group kill must reach every process in it.
 */

export type SandboxLevel = 'read-only' | 'workspace-write' | 'off';
export const SANDBOX_LEVELS: readonly SandboxLevel[] = ['read-only', 'workspace-write', 'off'];

export interface SandboxSpec {
  level: Exclude<SandboxLevel, 'off'>;
  /** realpath of the workspace root */
  workspace: string;
  /** Clamp's data dir (hidden: database, secrets file, logs) */
  dataDir: string;
  /** a folder of Clamp's the command may write (inside the data dir or not); made when missing */
  scratchDir?: string;
  /** the network is reachable (a separate switch from the level) */
  network: boolean;
  /** the home directory whose secrets are hidden (default: $HOME of the environment, else os.homedir()) */
  home?: string;
  /** environment variables the person chose to pass (settings, CLAMP_SANDBOX_ENV) beyond the allowlist */
  passEnv?: readonly string[];
  /** more paths to hide (settings, CLAMP_SANDBOX_HIDE): absolute, or `~/…` under HOME */
  hide?: readonly string[];
  /** more paths under HOME to show, read-only (settings, CLAMP_SANDBOX_SHOW) */
  show?: readonly string[];
  /**
   * Paths inside the workspace a command may not change even where the workspace is writable (the settings files
   * permission rules come from, while those rules are read); bound read-only before the hidden paths, so a
   * secret inside one stays hidden. Paths outside the workspace are read-only already and are left alone.
   */
  readOnly?: readonly string[];
  /** git pathspecs the git tools add, so what the rules hide stays out of git's output too (not used by bwrap) */
  gitExcludes?: readonly string[];
  /** what the command's result tells about this sandbox (not used to confine it) */
  notes?: readonly string[];
  /** the limits on processes, memory and file size (default: the budget's, changed by CLAMP_SANDBOX_LIMITS) */
  limits?: SandboxLimits;
  /**
   * What the confined program itself runs from (a language server's install folder, Node), shown read-only
   * wherever it lies — also under /tmp, which the sandbox replaces: bound after what replaces it and before
   * the workspace and the hidden paths, so a secret inside one stays hidden. Paths Clamp or the person
   * named, never the workspace.
   */
  runsFrom?: readonly string[];
  /**
   * Folders of Clamp's the confined program may write at any level, also inside the hidden data dir (the
   * checkpoints' shadow repository); bound like the scratch folder. Never a path the workspace chose.
   */
  writable?: readonly string[];
}

/** Where bubblewrap is: CLAMP_BWRAP (tests point it at a missing file), else the first on PATH. */
export function bwrapPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CLAMP_BWRAP !== undefined) return env.CLAMP_BWRAP && isRunnableFile(env.CLAMP_BWRAP) ? env.CLAMP_BWRAP : undefined;
  return findProgram('bwrap', env, ['/usr/bin', '/bin', '/usr/local/bin']);
}

export interface SandboxStatus {
  available: boolean;
  /** the program, when found */
  bwrap?: string;
  /** why it cannot be used, with the fix */
  problem?: string;
}

// one cache per process, not per copy of this module: the server's bundles each hold their own copy
const PROBED = Symbol.for('clamp.sandbox.probed');
const probed: Map<string, SandboxStatus> = ((globalThis as unknown as Record<symbol, Map<string, SandboxStatus> | undefined>)[PROBED] ??= new Map());

/**
 * No capability inside, even for root: --cap-drop ALL empties its sets, and for root a user namespace of its own
 * (uid 0 mapped to itself) empties the bounding set too and makes its uid 0 nobody special to the host's kernel.
 * An unprivileged user's bwrap makes that user namespace anyway.
 */
const NO_CAPABILITIES: readonly string[] = [...(process.getuid?.() === 0 ? ['--unshare-user'] : []), '--cap-drop', 'ALL'];

/**
 * Whether a sandbox can start here: bwrap found, and it can make the namespaces (it runs `true` in
 * a pid and network namespace once per process and program). Never throws.
 */
export function sandboxStatus(env: NodeJS.ProcessEnv = process.env): SandboxStatus {
  const bwrap = bwrapPath(env);
  if (!bwrap) {
    return { available: false, problem: 'bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: apt-get install bubblewrap) or turn the sandbox off explicitly with CLAMP_SANDBOX=off' };
  }
  const known = probed.get(bwrap);
  if (known) return known;
  const r = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', ...NO_CAPABILITIES, '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  });
  const why = r.error?.message ?? (r.status === 0 ? undefined : (r.stderr?.toString('utf8').trim() || `exit ${r.status ?? r.signal}`));
  const status: SandboxStatus = why
    ? { available: false, bwrap, problem: `bubblewrap cannot create its namespaces here (${why.slice(0, 300)}); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or turn the sandbox off explicitly with CLAMP_SANDBOX=off` }
    : { available: true, bwrap };
  probed.set(bwrap, status);
  return status;
}

/** The level a mode runs commands at: plan and debug read-only, the others workspace-write; a configured level narrows it, `off` turns it off. */
export function sandboxLevelFor(mode: string, configured: SandboxLevel | undefined): SandboxLevel {
  if (configured === 'off') return 'off';
  if (configured === 'read-only' || mode === 'plan' || mode === 'debug') return 'read-only';
  return 'workspace-write';
}

/** CLAMP_SANDBOX is not a level; the message names the valid ones. */
export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxConfigError';
  }
}

/** CLAMP_SANDBOX as a level; undefined when unset; a SandboxConfigError naming the valid values when it is not one. */
export function parseSandboxLevel(value: string | undefined): SandboxLevel | undefined {
  if (value === undefined || value === '') return undefined;
  if ((SANDBOX_LEVELS as readonly string[]).includes(value)) return value as SandboxLevel;
  throw new SandboxConfigError(`CLAMP_SANDBOX=${value} is not a sandbox level. Use one of: ${SANDBOX_LEVELS.join(', ')}.`);
}

/**
 * The environment a sandboxed program gets: the allowlist of sandbox-env.ts (what builds need), plus the names
 * the person chose to pass. A key, a token, a password or a database URL never reaches it unless named.
 */
export function withoutSecrets(env: NodeJS.ProcessEnv, pass: readonly string[] = []): NodeJS.ProcessEnv {
  return sandboxEnv(env, pass);
}

function exists(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The git files a command may not change even where the workspace is writable: hooks and config run code. */
function gitGuards(workspace: string): string[] {
  const dotgit = path.join(workspace, '.git');
  const st = exists(dotgit);
  if (!st) return [];
  // a worktree's or submodule's `.git` is a file naming the real git dir (outside the workspace: read-only already)
  if (!st.isDirectory()) return ['--ro-bind', dotgit, dotgit];
  const out: string[] = [];
  const hooks = path.join(dotgit, 'hooks');
  if (exists(hooks)) out.push('--ro-bind', hooks, hooks);
  // no hooks folder yet: an empty read-only one, so none can be created
  else out.push('--tmpfs', hooks, '--remount-ro', hooks);
  const config = path.join(dotgit, 'config');
  if (exists(config)) out.push('--ro-bind', config, config);
  return out;
}

let empty: string | undefined;
/** An empty folder of Clamp's (in its data dir) that hides a secret folder when bound read-only over it. */
function emptyDir(dataDir: string): string {
  const dir = path.join(dataDir, 'sandbox', 'empty');
  if (empty === dir) return dir;
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  // it must stay empty: whatever is found in it goes
  for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  empty = dir;
  return dir;
}

/** What sandboxArgs needs besides the spec: the descriptor number the command's bwrap reads its system-call filter from. */
export interface SandboxArgsOptions {
  seccompFd?: number;
  /** bwrap reports the sandbox's first process here (--info-fd) and waits for a byte on blockFd (--block-fd) before it starts the command */
  infoFd?: number;
  blockFd?: number;
  /** the command joins the session's network namespace (sandbox-net.ts) instead of making one; `userns`: through its user namespace, so the uid is mapped back */
  joinedNet?: { userns: boolean };
}

/**
 * The bwrap arguments (up to and including `--`) that confine one command started in `cwd`.
 * Order matters: later mounts cover earlier ones.
 */
export function sandboxArgs(spec: SandboxSpec, cwd: string, env: NodeJS.ProcessEnv, opts: SandboxArgsOptions = {}): string[] {
  // /tmp and /dev/shm live in memory: each holds at most the memory limit (a full one says "No space left on device")
  const memory = String((spec.limits ?? sandboxLimitsOrDefault()).memoryBytes);
  // /proc/sys read-only: the kernel lets uid 0 write most sysctls by its uid alone, capabilities or not
  // (kernel.core_pattern would run a program of the command's choosing as the host's root)
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--size', memory, '--tmpfs', '/dev/shm', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys'];
  args.push('--size', memory, '--tmpfs', '/tmp');
  const home = spec.home ?? env.HOME ?? os.homedir();
  const plan = hidePlan({
    workspace: spec.workspace,
    dataDir: spec.dataDir,
    home,
    hideHome: true,
    env,
    hide: spec.hide ?? [],
    show: spec.show ?? [],
    alsoShown: spec.runsFrom ?? [],
  });
  // HOME: an empty folder, then what toolchains read shown again (read-only once everything is mounted)
  for (const h of plan.homes) args.push('--tmpfs', h);
  for (const s of plan.shown) args.push(...(s.link ? ['--symlink', s.real, s.at] : ['--ro-bind', s.real, s.at]));
  for (const p of spec.runsFrom ?? []) args.push('--ro-bind', p, p);
  args.push(spec.level === 'workspace-write' ? '--bind' : '--ro-bind', spec.workspace, spec.workspace);
  for (const p of spec.readOnly ?? []) if (spec.level === 'workspace-write' && inside(p, spec.workspace) && p !== spec.workspace && exists(p)) args.push('--ro-bind', p, p);
  // after the workspace: a secret inside it (a workspace that is HOME) stays hidden. A hidden folder is an empty
  // read-only one bound over it (one mount), or, where Clamp binds a folder of its own inside it (the scratch folder
  // in the data dir), a tmpfs made read-only once that is bound
  const later = [spec.scratchDir, ...(spec.writable ?? [])].filter((p): p is string => !!p);
  const holders = plan.dirs.filter((d) => later.some((p) => inside(p, d)));
  for (const d of plan.dirs) args.push(...(holders.includes(d) ? ['--tmpfs', d] : ['--ro-bind', emptyDir(spec.dataDir), d]));
  for (const f of plan.files) args.push('--ro-bind', '/dev/null', f);
  // the scratch folder may sit in the hidden data dir: bound before the empty folders turn read-only
  if (spec.scratchDir && spec.level === 'workspace-write') {
    fs.mkdirSync(spec.scratchDir, { recursive: true });
    args.push('--bind', spec.scratchDir, spec.scratchDir);
  }
  for (const p of spec.writable ?? []) args.push('--bind', p, p);
  // /dev's own folder too: a file written there would live in memory, outside every limit
  for (const d of [...holders, ...plan.homes, '/dev']) args.push('--remount-ro', d);
  args.push(...gitGuards(spec.workspace));
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', ...NO_CAPABILITIES);
  if (!spec.network && !opts.joinedNet) args.push('--unshare-net');
  // inside the holder's user namespace this process is its root: the command gets the person's own uid back
  if (opts.joinedNet?.userns && process.getuid?.() !== 0) args.push('--unshare-user', '--uid', String(process.getuid?.()), '--gid', String(process.getgid?.()));
  if (opts.seccompFd !== undefined) args.push('--seccomp', String(opts.seccompFd));
  if (opts.infoFd !== undefined && opts.blockFd !== undefined) args.push('--info-fd', String(opts.infoFd), '--block-fd', String(opts.blockFd));
  args.push('--chdir', cwd, '--');
  return args;
}

/**
 * How to start a long-lived program in the sandbox from a client that spawns it itself (a language server, an MCP
 * server) rather than through the runner: a POSIX shell sets the rlimits, opens the system-call filter as
 * descriptor 3 and becomes bwrap (one exec more than the runner's commands pay, once per server). `env` is the
 * environment the program gets (withoutSecrets). Throws when the filter cannot be written.
 */
export function confinedCommand(spec: SandboxSpec, bwrap: string, env: NodeJS.ProcessEnv, command: string, args: readonly string[]): { command: string; args: string[] } {
  const filter = seccompFile(spec.dataDir);
  const limits = ulimitPrefix(spec.limits ?? sandboxLimitsOrDefault(), '/bin/sh');
  const confine = sandboxArgs(spec, spec.workspace, env, filter === undefined ? {} : { seccompFd: 3 });
  // the filter's path is the first argument, so nothing is quoted into the script
  const script = filter === undefined ? `${limits}exec "$@"` : `f=$1; shift; ${limits}exec "$@" 3<"$f"`;
  return { command: '/bin/sh', args: ['-c', script, 'clamp-sandbox', ...(filter === undefined ? [] : [filter]), bwrap, ...confine, command, ...args] };
}

/** What the launcher prints and the page shows about the sandbox. Never throws. */
export function sandboxView(env: NodeJS.ProcessEnv = process.env): SandboxView {
  let configured: SandboxLevel | undefined;
  try {
    configured = parseSandboxLevel(env.CLAMP_SANDBOX);
  } catch {
    configured = undefined; // an invalid value is the mode's level (never off); the launcher says so
  }
  const level = configured === 'off' ? 'off' : configured === 'read-only' ? 'read-only' : 'by-mode';
  const network = env.CLAMP_SANDBOX_NETWORK === '1' || env.CLAMP_SANDBOX_NETWORK === 'true';
  if (level === 'off') return { level, available: false, network: true };
  const st = sandboxStatus(env);
  return { level, available: st.available, network, ...(st.problem ? { problem: st.problem } : {}) };
}

/** The launcher's line about the sandbox. */
export function sandboxLine(v: SandboxView): string {
  if (v.level === 'off') return 'Sandbox: OFF (CLAMP_SANDBOX=off): commands run with your full access.';
  if (!v.available) return `Sandbox: NOT AVAILABLE: ${v.problem}. Every command asks first, and auto mode runs none.`;
  const levels = v.level === 'read-only' ? 'read-only' : 'workspace-write (debug mode: read-only)';
  return `Sandbox: bubblewrap, ${levels}, ${v.network ? 'network allowed' : 'no direct network'}.`;
}
