import fs from 'node:fs';
import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { commandEnv, newRunId, runCommand } from '../exec/runner';
import { sandboxStatus, type SandboxSpec } from '../exec/sandbox';
import { gitProgram } from '../checkpoints/isolation';
import { q } from '../checkpoints/shadow';

/**
 * git in the person's repository for worktrees (add, remove, merge, branch), run like Clamp's other git: through
 * the runner, with no system or global configuration, no hooks, no fsmonitor, no signing, no submodule recursion,
 * no pager; and, when bubblewrap can start, inside the sandbox (the main checkout and the worktrees' folder
 * writable, no network), because the repository's own configuration and attributes can still name filters and
 * merge drivers — programs the workspace chose. Only a sandbox turned off (CLAMP_SANDBOX=off) runs it on the host.
 */

const PER_RUN = [
  '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.attributesFile=/dev/null', '-c', 'submodule.recurse=false',
  '-c', 'color.ui=never', '-c', 'commit.gpgSign=false', '-c', 'tag.gpgSign=false', '-c', 'core.quotepath=false', '-c', 'core.pager=cat',
];

export interface RepoGitRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ok: boolean;
}

export interface RepoGitPlace {
  /** the folder git runs in (the main checkout, or a worktree) */
  cwd: string;
  /** the main checkout: writable in the sandbox */
  repo: string;
  dataDir: string;
  /** more folders the run may write (the worktrees' folder) */
  writable?: readonly string[];
  /** the author and committer of a commit it makes */
  identity?: { name: string; email: string };
  /** read the person's global configuration too (only to read their identity: `git config --get`) */
  personConfig?: boolean;
}

function sandboxOf(p: RepoGitPlace, env: NodeJS.ProcessEnv): SandboxSpec | undefined {
  if (env.CLAMP_SANDBOX === 'off' || !sandboxStatus(env).available) return undefined;
  const writable = (p.writable ?? []).filter((d) => fs.existsSync(d));
  return { level: 'workspace-write', workspace: p.repo, dataDir: p.dataDir, network: false, writable };
}

function scriptVars(p: RepoGitPlace): string {
  const vars: Array<[string, string]> = [
    ['LC_ALL', 'C'],
    ['GIT_CONFIG_NOSYSTEM', '1'],
    ...(p.personConfig ? [] : ([['GIT_CONFIG_GLOBAL', '/dev/null']] as Array<[string, string]>)),
    ['GIT_TERMINAL_PROMPT', '0'],
    ['GIT_MERGE_AUTOEDIT', 'no'],
    // the repository found above the folder as on the host (inside the sandbox the workspace is a mount of its own)
    ['GIT_DISCOVERY_ACROSS_FILESYSTEM', '1'],
  ];
  if (p.identity) {
    for (const who of ['AUTHOR', 'COMMITTER']) vars.push([`GIT_${who}_NAME`, p.identity.name], [`GIT_${who}_EMAIL`, p.identity.email]);
  }
  return `export ${vars.map(([k, v]) => `${k}=${q(v)}`).join(' ')}`;
}

/** `git <args>` in p.cwd, isolated as above. Never throws for git's own failure (see ok, code and stderr). */
export async function repoGit(p: RepoGitPlace, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<RepoGitRun> {
  const base = commandEnv(env);
  for (const k of Object.keys(base)) if (k.startsWith('GIT_') && !(p.personConfig && k === 'GIT_CONFIG_GLOBAL')) delete base[k];
  const sandbox = sandboxOf(p, env);
  const logDir = path.join(p.dataDir, 'logs');
  const r = await runCommand({
    command: `${scriptVars(p)}\nexec ${[gitProgram(), '--no-pager', ...PER_RUN, ...args].map(q).join(' ')}`,
    cwd: p.cwd,
    logDir,
    id: newRunId('worktree'),
    captureMaxBytes: BUDGET.COMMAND_CAPTURE_MAX_BYTES,
    timeoutMs: BUDGET.GIT_TIMEOUT_MS,
    killGraceMs: BUDGET.COMMAND_KILL_GRACE_MS,
    env: base,
    ...(sandbox ? { sandbox } : {}),
  });
  try {
    const text = (s: typeof r.stdout) => Buffer.concat([s.head, s.tail]).toString('utf8');
    const stdout = r.stdout.gapBytes > 0 ? fs.readFileSync(r.logPaths.stdout, 'utf8') : text(r.stdout);
    const stderr = r.spawnError ?? (r.killedBy ? `git was stopped (${r.killedBy})` : text(r.stderr));
    return { code: r.exitCode, stdout, stderr, ok: r.exitCode === 0 && r.killedBy === null && !r.spawnError };
  } finally {
    for (const f of [r.logPaths.stdout, r.logPaths.stderr, r.combinedLogPath]) fs.rmSync(f, { force: true });
  }
}

/** git's complaint in a few lines, for a person. */
export function gitWords(r: RepoGitRun): string {
  return r.stderr.trim().split('\n').slice(-6).join('\n') || r.stdout.trim().split('\n').slice(-6).join('\n') || `exit code ${r.code}`;
}
