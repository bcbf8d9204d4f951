import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import type { SandboxRules } from '../contract/permission-rest';
import { readWithheld, relativeGlobs, type PermissionRule } from '../policy/permission-rules';
import { fileRulesOn, readFileRules } from './permission-files';
import type { Place } from './permission-verdict';

/**
 * The settings files' rules inside the sandbox, so a command cannot do what the file tools may not: every path of
 * the workspace a Read deny rule matches is hidden from commands, background tasks and the git tools (found by a
 * walk when the command starts; a folder matched hides everything below it, also what is made there later), and
 * the files the rules come from, with the `.claude` and `.clamp` folders, are read-only (a command that removed a
 * deny rule would widen what the next call may do). Read at every command, only while the rules are on.
 */

/** Entries the walk looks at, at most, per command (a workspace bigger than this is walked in part, with a note). */
export const DENY_WALK_MAX_ENTRIES = 50_000;
/** Paths hidden, at most, per command (each is a mount of its own). */
export const DENY_HIDE_MAX_PATHS = 256;

/** The settings folders a command may not change while the rules are on. */
const SETTINGS_DIRS = ['.claude', '.clamp'];

function realOr(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

const within = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

interface Walked {
  hide: string[];
  /** why the walk stopped early, when it did */
  cut?: string;
}

/**
 * Which folders the walk must enter: every one when a pattern starts with a wildcard (`**\/.env`), else only those
 * on the way to or below a pattern's literal folders (`./secrets/**` needs only the top; case folded, as matching is).
 */
function entered(rules: readonly PermissionRule[], root: string): (rel: string[]) => boolean {
  const prefixes: string[][] = [];
  for (const r of rules) {
    if (r.spec.kind !== 'path') continue;
    for (const g of r.spec.anchored) {
      if (!g.startsWith(`${root}/`)) continue;
      const dirs = g.slice(root.length + 1).split('/').slice(0, -1);
      const literal = dirs.findIndex((c) => /[*?[{]/.test(c));
      const lit = (literal === -1 ? dirs : dirs.slice(0, literal)).map((c) => c.toLowerCase());
      if (!lit.length) return () => true;
      prefixes.push(lit);
    }
  }
  const starts = (a: string[], b: string[]) => b.length <= a.length && b.every((c, i) => a[i] === c);
  return (rel) => prefixes.some((p) => starts(p, rel) || starts(rel, p));
}

/** The workspace's paths the deny rules match, breadth first (`.git` is not entered: its objects are a limit, see SECURITY.md). */
export function deniedPaths(root: string, rules: readonly PermissionRule[], max = { entries: DENY_WALK_MAX_ENTRIES, paths: DENY_HIDE_MAX_PATHS }): Walked {
  const out: Walked = { hide: [] };
  const enter = entered(rules, root);
  const queue = [root];
  let seen = 0;
  for (let i = 0; i < queue.length; i++) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(queue[i], { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > max.entries) {
        out.cut = `the workspace has more than ${max.entries} entries, so only part of it was searched for paths the Read deny rules match`;
        return out;
      }
      const abs = path.join(queue[i], e.name);
      const dir = e.isDirectory();
      if (readWithheld(rules, abs, dir)) {
        if (out.hide.length >= max.paths) {
          out.cut = `more than ${max.paths} paths match the Read deny rules, and only the first ${max.paths} are hidden; deny their folder instead (Read(./folder/**))`;
          return out;
        }
        out.hide.push(abs);
      } else if (dir && e.name !== '.git' && enter(path.relative(root, abs).toLowerCase().split('/'))) queue.push(abs);
    }
  }
  return out;
}

/** Git pathspecs that leave out what the rules deny: each pattern (and everything below it) and each path hidden. */
function gitExcludes(rules: readonly PermissionRule[], roots: readonly string[], hidden: readonly string[], root: string): string[] {
  const out = new Set<string>();
  for (const r of rules) {
    for (const base of roots) {
      for (const g of relativeGlobs(r, base)) out.add(`:(exclude,glob,icase)${g}`).add(`:(exclude,glob,icase)${g}/**`);
    }
  }
  for (const h of hidden) out.add(`:(exclude,literal)${path.relative(root, h)}`);
  return [...out];
}

/** The rules' files and the settings folders that are in the workspace, by real path. */
function guardedPaths(files: readonly string[], workspace: string, root: string): string[] {
  const all = [...files, ...SETTINGS_DIRS.map((d) => path.join(workspace, d))].map(realOr).filter((p): p is string => !!p);
  return [...new Set(all.filter((p) => within(p, root) && p !== root))];
}

/** The services entry of a call's sandbox rules (undefined while the rules are off or none denies a path). */
export function sandboxRulesFor(db: Db, o: Place): () => SandboxRules | undefined {
  return () => {
    if (!fileRulesOn(db)) return undefined;
    const root = realOr(o.workspace) ?? path.resolve(o.workspace);
    const { active, files } = readFileRules(db, o.workspace, o.dataDir, process.env, o.home);
    const deny = active.filter((r) => r.action === 'deny' && r.rule.spec.kind === 'path' && r.rule.spec.family === 'read').map((r) => r.rule);
    const walked = deny.length ? deniedPaths(root, deny) : { hide: [] };
    return {
      hide: walked.hide,
      readOnly: guardedPaths(files, o.workspace, root),
      gitExcludes: gitExcludes(deny, [...new Set([path.resolve(o.workspace), root])], walked.hide, root),
      ...(walked.cut ? { note: `${walked.cut}; a path not hidden can still be read by a command.` } : {}),
    };
  };
}
