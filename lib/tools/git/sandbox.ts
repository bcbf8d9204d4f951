import fs from 'node:fs';
import path from 'node:path';
import { ToolError, type ToolContext } from '../../contract/types';
import type { SandboxSpec } from '../../exec/sandbox';
import { sandboxChoice, sandboxSpecFor, savedSandboxSettings } from '../commands/sandbox-policy';

/**
 * Where the git tools run git: inside the sandbox, since git runs programs the repository names (hooks,
 * filters, fsmonitor, pagers, textconv, gpg …) and a sandboxed command can write every one of them. Read-only
 * for a look, the mode's level for a commit, never the network. On the host only when the person turned the
 * sandbox off explicitly; when it cannot start here, not at all.
 */

/**
 * The top folder of the repository that holds the workspace, when the workspace has no `.git` of its own: the
 * nearest ancestor with a `.git`. Only folders above the workspace are looked at (a sandboxed command cannot
 * write there) and nothing is read, so nothing the workspace chose is followed. undefined when there is none.
 */
export function enclosingRepository(workspace: string): string | undefined {
  const has = (dir: string) => {
    try {
      fs.lstatSync(path.join(dir, '.git'));
      return true;
    } catch {
      return false;
    }
  };
  if (has(workspace)) return undefined;
  for (let dir = path.dirname(workspace); ; dir = path.dirname(dir)) {
    if (has(dir)) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}

/**
 * The sandbox a git tool's runs use; undefined when the sandbox is turned off explicitly (git then runs on the
 * host, as every command does). A workspace inside a bigger repository sees that repository read-only (also
 * under /tmp, which the sandbox replaces), so status, diff and log work there; a commit there is refused by
 * the read-only git directory. Throws a ToolError naming run_command when the sandbox is wanted but cannot start.
 */
export function gitSandbox(ctx: ToolContext, o: { tool: string; writes: boolean; command: string }): SandboxSpec | undefined {
  const choice = sandboxChoice(ctx.mode, undefined, process.env, savedSandboxSettings(ctx));
  if (choice.level === 'off') return undefined;
  if (choice.unavailable) {
    const step = `Run \`${o.command}\` with run_command instead: the person is asked first, since it would run outside the sandbox (auto mode refuses it).`;
    throw new ToolError(
      `${o.tool} runs git only inside Clamp's sandbox, because git runs programs the repository names (hooks, filters, fsmonitor, pagers, textconv, gpg), and the sandbox cannot start here: ${choice.unavailable}.\n${step}`,
      step,
    );
  }
  const spec = sandboxSpecFor({ ...choice, network: false }, ctx);
  if (!spec) return undefined;
  const repo = enclosingRepository(spec.workspace);
  const runsFrom = repo && repo !== path.sep ? { runsFrom: [...(spec.runsFrom ?? []), repo] } : {};
  // everything else as run_command's (hidden paths, passed variables …); a look writes nowhere, not even the scratch folder
  const { scratchDir, ...rest } = spec;
  if (!o.writes) return { ...rest, ...runsFrom, level: 'read-only', network: false };
  return { ...rest, ...runsFrom, ...(scratchDir ? { scratchDir } : {}), network: false };
}
