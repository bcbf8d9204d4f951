import type { ToolContext } from './types';

/** A path argument resolved through symlinks and confined to the workspace (or Clamp's read roots). */
export interface ResolvedPath {
  /** absolute, through symlinks */
  abs: string;
  /** relative to the workspace, with forward slashes ('.' for the root); absolute for a read root */
  rel: string;
  /**
   * the folder it was confined to (the workspace, or the read root it lies in): the tool that opens it checks
   * the real path of what it opened against this again, as a link may have been put in the way since
   */
  root: string;
}

/**
 * The resolved path of a path argument: dispatch resolves and confines every path a tool declares in
 * paths() once, before the tool runs, and hands them over in ctx.paths; the tool never resolves the
 * same argument again. Throws when the argument was not declared (a tool's bug, not the model's).
 */
export function confinedPath(ctx: Pick<ToolContext, 'paths'>, arg: string): ResolvedPath {
  const p = ctx.paths?.get(arg);
  if (!p) throw new Error(`the path ${JSON.stringify(arg)} was not confined by dispatch (the tool's paths() does not declare it)`);
  return p;
}
