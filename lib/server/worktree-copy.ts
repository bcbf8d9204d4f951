import fs from 'node:fs';
import path from 'node:path';
import ignore from 'ignore';
import { readWorkspaceText } from '../checkpoints/isolation';

/** What a new worktree's copy reads of `.worktreeinclude`, at most. */
const INCLUDE_FILE_MAX_BYTES = 64 * 1024;
/** How many entries of the main checkout the copy looks at, at most (it never descends into .git or node_modules). */
const COPY_SCAN_MAX_ENTRIES = 100_000;
/** How many files it copies, at most. */
const COPY_MAX_FILES = 1000;

export interface CopyReport {
  copied: string[];
  /** files that matched but were not copied, with why (a link, not a regular file, already in the worktree …) */
  skipped: Array<{ path: string; why: string }>;
}

/** The patterns that choose what is copied: the settings' list, then the lines of the workspace's `.worktreeinclude`. */
export function copyPatterns(workspace: string, listed: readonly string[]): string[] {
  const file = readWorkspaceText(workspace, '.worktreeinclude', INCLUDE_FILE_MAX_BYTES);
  const lines = file.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  return [...listed, ...lines];
}

/** The workspace's files (relative, '/'-separated) the patterns name, never through a link, never inside .git or node_modules. */
function matchingFiles(root: string, patterns: readonly string[]): string[] {
  const ig = ignore().add([...patterns]);
  const out: string[] = [];
  const queue: string[] = [''];
  let seen = 0;
  while (queue.length > 0 && seen < COPY_SCAN_MAX_ENTRIES) {
    const rel = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > COPY_SCAN_MAX_ENTRIES) break;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== '.git' && e.name !== 'node_modules') queue.push(r);
      } else if (ig.ignores(r)) out.push(r);
    }
  }
  return out;
}

/** Copy one file: a regular file whose real path is inside the workspace, opened without following a link; never over an existing file. */
function copyOne(realRoot: string, target: string, rel: string): string | null {
  const src = path.join(realRoot, rel);
  const dst = path.join(target, rel);
  let fd: number | undefined;
  try {
    const st = fs.lstatSync(src);
    if (st.isSymbolicLink()) return 'a link (never followed)';
    if (!st.isFile()) return 'not a regular file';
    const real = fs.realpathSync(src);
    if (real !== src || !real.startsWith(`${realRoot}/`)) return 'its folder is a link out of the workspace';
    if (fs.existsSync(dst)) return 'already in the worktree';
    if (linkOnTheWay(target, path.dirname(rel))) return 'a folder on its way in the worktree is a link';
    fd = fs.openSync(src, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const fst = fs.fstatSync(fd);
    if (!fst.isFile()) return 'not a regular file';
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.writeFileSync(dst, fs.readFileSync(fd), { mode: fst.mode & 0o777, flag: 'wx' });
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Whether a folder between the worktree and rel (existing ones) is a link, which a write would follow. */
function linkOnTheWay(target: string, relDir: string): boolean {
  let dir = target;
  for (const part of relDir === '.' ? [] : relDir.split('/')) {
    dir = path.join(dir, part);
    try {
      if (fs.lstatSync(dir).isSymbolicLink()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Copy the workspace's files the patterns name (gitignore-style: the settings' list, default `.env*`, and
 * `.worktreeinclude`) into a new worktree: only regular files inside the workspace, never following a link,
 * never replacing a file the worktree has. Never throws; what was not copied is reported.
 */
export function copyIncluded(workspace: string, target: string, listed: readonly string[]): CopyReport {
  const report: CopyReport = { copied: [], skipped: [] };
  const patterns = copyPatterns(workspace, listed);
  if (patterns.length === 0) return report;
  const realRoot = fs.realpathSync(workspace);
  for (const rel of matchingFiles(realRoot, patterns)) {
    if (report.copied.length >= COPY_MAX_FILES) {
      report.skipped.push({ path: rel, why: `more than ${COPY_MAX_FILES} files matched` });
      continue;
    }
    const why = copyOne(realRoot, target, rel);
    if (why) report.skipped.push({ path: rel, why });
    else report.copied.push(rel);
  }
  return report;
}
