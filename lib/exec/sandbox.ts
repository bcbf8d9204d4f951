import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxView } from '../contract/protocol';
import { findProgram, isRunnableFile } from './programs';

/**
 * The OS sandbox every model-made command runs in (bubblewrap). The judge reads a command's text;
 * this confines what it can do:
 * - the whole file system read-only; a private /tmp; the workspace writable (workspace-write) or not
 *   (read-only), with `.git/hooks`, `.git/config` (or a worktree's `.git` file) read-only either way;
 *   Clamp's scratch folder writable;
 * - the person's secrets hidden (an empty read-only folder over each secret folder, /dev/null over
 *   each secret file), Clamp's own data dir and secrets file among them;
 * - its own pid namespace (it sees and signals nothing outside), no network unless allowed;
 * - no secrets in its environment.
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

/** Secret folders and files under HOME, hidden from every sandboxed command when they exist. */
export const HOME_SECRETS: readonly string[] = [
  '.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.docker/config.json', '.npmrc',
  '.pypirc', '.git-credentials', '.config/gcloud', '.kube', '.azure', '.password-store',
];
/** Sockets that hand out more than a command should have (root via docker, the person's ssh keys). */
const HOST_SOCKETS: readonly string[] = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock'];

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

const probed = new Map<string, SandboxStatus>();

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
  const r = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', '--', 'true'], {
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

/** Environment names that hold secrets: API keys, tokens, passwords, credentials, Clamp's own. */
const SECRET_ENV = /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_KEY|ACCESS_KEY(_ID)?|SESSION_KEY)(_|$)|^CLAMP_(API_KEY|TOKEN)$|^(SSH_AUTH_SOCK|GPG_AGENT_INFO|NPM_CONFIG__AUTH\w*|DOCKER_AUTH_CONFIG)$/i;

/** The environment without its secrets (a sandboxed command never sees a key or token). */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = {} as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (!SECRET_ENV.test(k)) out[k] = v;
  return out;
}

function exists(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * What a sandbox hides: the data dir and the secret folders and files that exist. A folder that holds
 * the workspace itself (a workspace inside the data dir) is not covered; the data dir's secrets file
 * and database are then hidden one by one.
 */
export function hiddenPaths(spec: SandboxSpec, env: NodeJS.ProcessEnv): { dirs: string[]; files: string[] } {
  const home = spec.home ?? env.HOME ?? os.homedir();
  const dirs: string[] = [];
  const files: string[] = [];
  const candidates = [spec.dataDir, ...HOME_SECRETS.map((s) => path.join(home, s)), ...HOST_SOCKETS];
  if (env.SSH_AUTH_SOCK) candidates.push(env.SSH_AUTH_SOCK);
  if (inside(spec.workspace, spec.dataDir)) {
    // the store's file names (lib/store: secrets.ts, db.ts), written out here since exec may not import the store
    for (const name of ['secrets.json', 'clamp.db', 'clamp.db-wal', 'clamp.db-shm', 'approval-secret']) candidates.push(path.join(spec.dataDir, name));
  }
  for (const p of candidates) {
    const st = exists(p);
    // bwrap follows a link to its target: a link is left alone (its target is hidden when it is itself listed)
    if (!st || st.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      if (!inside(spec.workspace, p)) dirs.push(p);
    } else files.push(p);
  }
  return { dirs, files };
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

/**
 * The bwrap arguments (up to and including `--`) that confine one command started in `cwd`.
 * Order matters: later mounts cover earlier ones.
 */
export function sandboxArgs(spec: SandboxSpec, cwd: string, env: NodeJS.ProcessEnv): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const p of spec.runsFrom ?? []) args.push('--ro-bind', p, p);
  args.push(spec.level === 'workspace-write' ? '--bind' : '--ro-bind', spec.workspace, spec.workspace);
  // after the workspace: a secret inside it (a workspace that is HOME) stays hidden
  const { dirs, files } = hiddenPaths(spec, env);
  for (const d of dirs) args.push('--tmpfs', d);
  for (const f of files) args.push('--ro-bind', '/dev/null', f);
  // the scratch folder may sit in the hidden data dir: bound before the empty folders turn read-only
  if (spec.scratchDir && spec.level === 'workspace-write') {
    fs.mkdirSync(spec.scratchDir, { recursive: true });
    args.push('--bind', spec.scratchDir, spec.scratchDir);
  }
  for (const p of spec.writable ?? []) args.push('--bind', p, p);
  for (const d of dirs) args.push('--remount-ro', d);
  args.push(...gitGuards(spec.workspace));
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent');
  if (!spec.network) args.push('--unshare-net');
  args.push('--chdir', cwd, '--');
  return args;
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
  return `Sandbox: bubblewrap, ${levels}, ${v.network ? 'network allowed' : 'no network'}.`;
}
