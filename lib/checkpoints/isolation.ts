import fs from 'node:fs';
import path from 'node:path';
import { findProgram } from '../exec/programs';
import { sandboxStatus, type SandboxSpec } from '../exec/sandbox';

/**
 * Why the checkpoints' git runs nothing the workspace chose. The shadow repository's git reads only Clamp's
 * own configuration and starts no program of the workspace's, whether or not the sandbox is there:
 * - its git directory, index and configuration are Clamp's, in the data dir (GIT_DIR and GIT_INDEX_FILE
 *   set, so the workspace's `.git` — a folder, a file naming another one, its `commondir` — is never read);
 * - no system or global configuration (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null), no global
 *   attributes file, no hooks (core.hooksPath=/dev/null), no fsmonitor, no signing, no submodule recursion;
 * - every attribute that names a program or converts bytes unset for every path in the shadow's
 *   info/attributes, which wins over any `.gitattributes` in the workspace (shadow.ts);
 * - git is found on PATH's absolute entries only (never `./git`), and it starts no other git: its exec path
 *   holds only a stand-in `git` (below), because a nested repository's git — `git add` runs
 *   `git status` in each nested repository to see whether it is dirty — would read that repository's own
 *   configuration, filters and fsmonitor;
 * - and when bubblewrap can start, the whole run is in the sandbox besides: read-only but for the shadow
 *   repository (the workspace writable only for a restore), no network, its own pid namespace.
 */

/** The program git runs for `git <anything>` from inside the shadow repository's git: a nested repository's status is taken as clean, nothing else starts. */
const STAND_IN = `#!/bin/sh
# Clamp's checkpoints: the shadow repository's git starts no other git (a nested repository's would read that
# repository's own configuration). \`git status\` in a nested repository answers "clean": a snapshot records only its commit.
[ "$1" = status ] && exit 0
echo "clamp checkpoints: git may not start 'git $1' here" >&2
exit 1
`;

/** The folder given to the shadow's git as its exec path (inside the shadow repository), holding the stand-in `git`. */
export function execPathOf(gitDir: string): string {
  return path.join(gitDir, 'clamp-exec');
}

/** Write the stand-in `git` when it is missing or changed. */
export function writeStandIn(gitDir: string): void {
  const file = path.join(execPathOf(gitDir), 'git');
  try {
    if (fs.readFileSync(file, 'utf8') === STAND_IN) return;
  } catch {
    // not there yet
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, STAND_IN, { mode: 0o700 });
  fs.chmodSync(file, 0o700);
}

/** git's absolute path (from PATH's absolute entries), or plain `git` when it is not installed (the run then says so). */
export function gitProgram(): string {
  return findProgram('git') ?? 'git';
}

/**
 * The sandbox a shadow git run uses: read-only but for the shadow repository, the workspace writable only
 * when the run restores files; undefined when the sandbox is turned off (CLAMP_SANDBOX=off) or cannot start
 * here, where the isolation above is what holds.
 */
export function shadowSandbox(s: { workspace: string; dataDir: string; gitDir: string }, writes: boolean, env: NodeJS.ProcessEnv = process.env): SandboxSpec | undefined {
  if (env.CLAMP_SANDBOX === 'off' || !sandboxStatus(env).available) return undefined;
  return { level: writes ? 'workspace-write' : 'read-only', workspace: s.workspace, dataDir: s.dataDir, network: false, writable: [s.gitDir] };
}

/**
 * A small text file of the workspace's that a snapshot reads as data (`.git/info/exclude`, `.clampignore`):
 * only a regular file whose real path lies in the workspace, opened without following a link or waiting on a
 * FIFO, and at most maxBytes of it. '' for anything else.
 */
export function readWorkspaceText(workspace: string, rel: string, maxBytes: number): string {
  const p = path.join(workspace, rel);
  let fd: number | undefined;
  try {
    const real = fs.realpathSync(p);
    const root = fs.realpathSync(workspace);
    if (!real.startsWith(`${root}/`)) return '';
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return '';
    const buf = Buffer.alloc(Math.min(st.size, maxBytes));
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
