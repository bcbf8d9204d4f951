import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { budgetTable, type Budget } from '../contract/budget';
import { commandEnv, newRunId, runCommand } from '../exec/runner';
import { execPathOf, gitProgram, readWorkspaceText, shadowSandbox, writeStandIn } from './isolation';
import { withShadowLock } from './shadow-lock';

/**
 * The shadow repository of a workspace: a git directory in the data dir with its own index, whose
 * work tree is the workspace. git never looks for the person's `.git` (GIT_DIR is set), reads no
 * global or system configuration, runs no hooks, and converts no bytes (autocrlf off, an attributes
 * file that unsets every conversion), so a snapshot holds each file exactly as it is on disk. It runs
 * nothing the workspace chose, in the sandbox or not: isolation.ts says why.
 */

export interface Shadow {
  workspace: string;
  dataDir: string;
  gitDir: string;
  indexFile: string;
  budget: Budget;
}

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/**
 * Every byte-converting or program-naming attribute unset, for every path: a workspace .gitattributes cannot
 * change what is stored or restored, nor name a filter, diff or merge driver.
 */
const ATTRIBUTES = '* -text -crlf -eol -filter -ident -working-tree-encoding -diff -merge\n';
const CONFIG: ReadonlyArray<[string, string]> = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.fileMode', 'true'],
  ['core.symlinks', 'true'],
  ['core.ignorecase', 'false'],
  ['core.quotepath', 'false'],
  ['core.untrackedCache', 'true'],
  ['gc.auto', '0'],
];
// per run, so nothing in a repository-level config can start a program either
const PER_RUN = [
  '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.attributesFile=/dev/null', '-c', 'submodule.recurse=false',
  '-c', 'color.ui=never', '-c', 'commit.gpgSign=false', '-c', 'tag.gpgSign=false',
];
/** What a snapshot reads of `.git/info/exclude` and `.clampignore`, at most. */
const EXCLUDE_FILE_MAX_BYTES = 1024 * 1024;

/** The shadow repository for a workspace: `<dataDir>/checkpoints/<hash of the workspace path>`. */
export function shadowFor(dataDir: string, workspace: string, budget: Budget = budgetTable()): Shadow {
  const key = crypto.createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  const gitDir = path.join(dataDir, 'checkpoints', `${path.basename(workspace).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}-${key}`);
  return { workspace, dataDir, gitDir, indexFile: path.join(gitDir, 'clamp-index'), budget };
}

/** Quote one argument for bash -c. */
export function q(arg: string): string {
  if (arg.includes('\0')) throw new CheckpointError('A path contains a NUL byte.');
  return `'${arg.split("'").join("'\\''")}'`;
}

/** The environment of every shadow git run: none of the server's GIT_* (the script sets the shadow's own). */
function gitEnv(): NodeJS.ProcessEnv {
  const env = commandEnv();
  for (const k of Object.keys(env)) if (k.startsWith('GIT_')) delete env[k];
  return env;
}

/**
 * The start of every shadow script: its variables set in the script itself (so they hold inside the sandbox
 * whatever environment it passes) and the shell function GIT names: git by its absolute path, with the
 * stand-in exec path and the per-run options.
 */
function prelude(s: Shadow): string {
  const vars: ReadonlyArray<[string, string]> = [
    ['LC_ALL', 'C'],
    ['GIT_DIR', s.gitDir],
    ['GIT_WORK_TREE', s.workspace],
    ['GIT_INDEX_FILE', s.indexFile],
    ['GIT_CONFIG_NOSYSTEM', '1'],
    ['GIT_CONFIG_GLOBAL', '/dev/null'],
    ['GIT_AUTHOR_NAME', 'Clamp'],
    ['GIT_AUTHOR_EMAIL', 'checkpoints@clamp.invalid'],
    ['GIT_COMMITTER_NAME', 'Clamp'],
    ['GIT_COMMITTER_EMAIL', 'checkpoints@clamp.invalid'],
    ['GIT_TERMINAL_PROMPT', '0'],
  ];
  const git = [gitProgram(), `--exec-path=${execPathOf(s.gitDir)}`, ...PER_RUN].map(q).join(' ');
  return [`export ${vars.map(([k, v]) => `${k}=${q(v)}`).join(' ')}`, `${GIT}() { ${git} "$@"; }`].join('\n');
}

/** The shell function that runs the shadow's git with its per-run options, for scripts of several git commands. */
export const GIT = 'clamp_shadow_git';

export interface ShadowRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Run a shell script of shadow git commands (built with GIT and q) through Clamp's runner, in the
 * workspace. stdout comes back whole (read from the run's log when it outgrew the capture); the run's
 * logs are removed afterwards. Throws CheckpointError when it fails, with git's words.
 */
export async function shadowScript(s: Shadow, script: string, what: string, o: { allowCodes?: number[]; restores?: boolean } = {}): Promise<ShadowRun> {
  const logDir = path.join(s.gitDir, 'clamp-logs');
  fs.mkdirSync(s.gitDir, { recursive: true, mode: 0o700 });
  writeStandIn(s.gitDir);
  const sandbox = shadowSandbox(s, o.restores === true);
  const r = await runCommand({
    command: `set -e\n${prelude(s)}\n${script}`,
    cwd: s.workspace,
    logDir,
    id: newRunId('ckpt'),
    captureMaxBytes: 256 * 1024,
    timeoutMs: s.budget.CHECKPOINT_GIT_TIMEOUT_MS,
    killGraceMs: s.budget.COMMAND_KILL_GRACE_MS,
    env: gitEnv(),
    ...(sandbox ? { sandbox } : {}),
  });
  try {
    let stdout = Buffer.concat([r.stdout.head, r.stdout.tail]);
    if (r.stdout.gapBytes > 0) stdout = fs.readFileSync(r.logPaths.stdout);
    const stderr = Buffer.concat([r.stderr.head, r.stderr.tail]).toString('utf8');
    const ok = r.killedBy === null && !r.spawnError && (r.exitCode === 0 || (r.exitCode !== null && (o.allowCodes ?? []).includes(r.exitCode)));
    if (!ok) {
      const why = r.spawnError ?? (r.killedBy ? `it was stopped (${r.killedBy})` : stderr.trim().split('\n').slice(-5).join('\n') || `exit code ${r.exitCode}`);
      throw new CheckpointError(`${what} failed in the shadow repository ${s.gitDir}: ${why}`);
    }
    return { code: r.exitCode, stdout, stderr };
  } finally {
    for (const p of [r.logPaths.stdout, r.logPaths.stderr, r.combinedLogPath]) fs.rmSync(p, { force: true });
  }
}

/** `git <args>` in the shadow repository. */
export function shadowGit(s: Shadow, args: readonly string[], what: string, o: { allowCodes?: number[]; restores?: boolean } = {}): Promise<ShadowRun> {
  return shadowScript(s, `${GIT} ${args.map(q).join(' ')}`, what, o);
}

/**
 * Write what every snapshot reads (the attributes, the excludes) and return the script lines that create the
 * shadow repository when it is missing ('' when it is there), for the start of the snapshot's own run. Call
 * inside serialized(): locks a gone git left are cleared there.
 */
export function ensureShadow(s: Shadow): string {
  fs.mkdirSync(path.join(s.gitDir, 'info'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(s.gitDir, 'info', 'attributes'), ATTRIBUTES);
  fs.writeFileSync(path.join(s.gitDir, 'info', 'exclude'), excludeText(s.workspace));
  if (fs.existsSync(path.join(s.gitDir, 'HEAD'))) return '';
  return [`${GIT} init -q`, ...CONFIG.map(([k, v]) => `${GIT} config ${q(k)} ${q(v)}`)].join('\n');
}

/**
 * What a snapshot leaves out beyond the workspace's .gitignore files: the person's own
 * `.git/info/exclude` (read as data, never written), `.clampignore` and CLAMP_IGNORE (comma-separated).
 */
export function excludeText(workspace: string): string {
  const env = (process.env.CLAMP_IGNORE ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  return [
    '# written by Clamp before every snapshot',
    readWorkspaceText(workspace, '.git/info/exclude', EXCLUDE_FILE_MAX_BYTES),
    readWorkspaceText(workspace, '.clampignore', EXCLUDE_FILE_MAX_BYTES),
    ...env,
    '',
  ].join('\n');
}

const QUEUE = Symbol.for('clamp.checkpoints.queue');

/**
 * Run fn alone on its shadow repository (one index): the calls of this process queue in order, and each holds
 * the repository's lock against other processes while it runs (shadow-lock.ts).
 */
export function serialized<T>(s: Shadow, fn: () => Promise<T>): Promise<T> {
  const g = globalThis as unknown as Record<symbol, Map<string, Promise<unknown>> | undefined>;
  const queues = (g[QUEUE] ??= new Map());
  const prev = queues.get(s.gitDir) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(() => withShadowLock(s, fn));
  queues.set(s.gitDir, next);
  return next;
}
