/**
 * What a sandboxed language server runs from, bound into its sandbox read-only: the sandbox replaces /tmp
 * with a private one (and may hide more), so a Clamp — or Node, or a server the person configured —
 * installed under /tmp would vanish from inside it ("initialize: the server closed its output").
 * Only what Clamp and the person's configuration name is bound, never a path the workspace chose (the
 * workspace's own TypeScript lies in the workspace, which the sandbox shows anyway).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findProgram } from '../exec/programs';
import type { ServerSpec } from './servers';

/** The folder a program, script or package folder is installed in: the folder holding its outermost node_modules, else its own folder. */
function installRoot(p: string): string {
  const parts = p.split(path.sep);
  const at = parts.indexOf('node_modules');
  if (at > 0) return parts.slice(0, at).join(path.sep) || path.sep;
  try {
    return fs.statSync(p).isDirectory() ? p : path.dirname(p);
  } catch {
    return path.dirname(p);
  }
}

function real(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** Folders never bound whole (a file directly in one is bound alone): they hold what the sandbox keeps private. */
const TOO_WIDE = new Set([path.sep, '/tmp', '/var/tmp', '/dev/shm', os.tmpdir()]);

/**
 * The files and folders a server's sandbox must show read-only: the install folder of its program (Node
 * itself for the built-in server; the folder holding the outermost node_modules for a program installed by
 * npm) and, for the built-in server, of its script and of Clamp's TypeScript (Clamp's own folder) — each as
 * named and at its real path (a link under /tmp is bound at its own name). A configured server's other
 * arguments are not bound: which of them are paths only its author knows. Existing paths only, outermost
 * first. Never throws.
 */
export function runsFrom(spec: ServerSpec, env: NodeJS.ProcessEnv): string[] {
  const program = findProgram(spec.command, env);
  const named = [...(program ? [program] : []), ...(spec.kind === 'typescript' ? [...spec.args.filter((a) => path.isAbsolute(a)), ...(spec.typescriptLib ? [spec.typescriptLib] : [])] : [])];
  const out: string[] = [];
  for (const p of named) {
    for (const at of [path.resolve(p), real(p)]) {
      if (!at || !fs.existsSync(at)) continue;
      const root = installRoot(at);
      out.push(TOO_WIDE.has(root) ? at : root);
    }
  }
  const unique = [...new Set(out)].filter((p) => !TOO_WIDE.has(p));
  unique.sort((a, b) => a.length - b.length);
  return unique.filter((p, i) => !unique.slice(0, i).some((outer) => p.startsWith(`${outer}/`)));
}
