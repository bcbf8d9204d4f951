import fs from 'node:fs';
import path from 'node:path';
import type { ResolvedPath } from '../contract/paths';

/** Thrown when a path argument lands outside the workspace or in a protected place. */
export class PathPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathPolicyError';
  }
}

/** realpath of the longest existing prefix of p, with the missing rest appended. */
function realpathLoose(p: string): string {
  let existing = p;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = fs.realpathSync.native(existing);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      const parent = path.dirname(existing);
      if (parent === existing) return p;
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}

/** True when child is root or inside it (both absolute, normalised). */
export function isInside(root: string, child: string): boolean {
  if (child === root) return true;
  const rel = path.relative(root, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

export type { ResolvedPath };

/** Folders outside the workspace that read tools may read: the data dir's spilled outputs and command logs. */
export function outputRoots(dataDir: string): string[] {
  return [path.join(dataDir, 'spill'), path.join(dataDir, 'logs')];
}

/**
 * Resolve a model-supplied path against the workspace, through symlinks, and confine it.
 * Throws PathPolicyError (with the next step in its text) when it lands outside or writes into .git.
 */
export function resolveInWorkspace(workspace: string, input: string, access: 'read' | 'write' = 'read', readRoots: readonly string[] = []): ResolvedPath {
  if (input.includes('\0')) throw new PathPolicyError(`Path contains a NUL byte: ${JSON.stringify(input)}. Pass a plain path inside the workspace.`);
  const expanded = input === '~' || input.startsWith('~/') ? input : input; // "~" is not expanded: it is a plain name here
  const joined = path.resolve(workspace, expanded);
  const abs = realpathLoose(joined);
  const readRoot = access === 'read' && !isInside(workspace, abs) ? readRoots.find((r) => isInside(r, abs)) : undefined;
  if (readRoot !== undefined) {
    // Clamp's own spilled outputs and command logs: the notes that cut a result point here
    return { abs, rel: abs, root: readRoot };
  }
  if (!isInside(workspace, abs)) {
    const via = abs !== joined ? ` (through a symlink, it resolves to ${abs})` : '';
    throw new PathPolicyError(
      `Path is outside the workspace: ${input}${via}. Only paths inside ${workspace} can be used; pass a path relative to the workspace root.`,
    );
  }
  const rel = path.relative(workspace, abs).split(path.sep).join('/') || '.';
  if (access === 'write' && rel.split('/').includes('.git')) {
    throw new PathPolicyError(`Writes into .git/ are refused: ${input}. Change the repository through git commands (run_command or git tools) instead.`);
  }
  return { abs, rel, root: workspace };
}
