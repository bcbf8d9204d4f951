/**
 * glob's search: fast-glob reads the pattern (its tasks, its folder filter and its file filter, so a
 * pattern means here exactly what it means to fast-glob), and the sorted walk grep uses (grep/walk.ts)
 * lists the folders, with the ignore rules applied on the way. The walk comes in path order, so only the
 * first `cap` paths are kept, and it runs synchronously in short slices between which ctx.signal is
 * checked. Literal patterns (no wildcard) are looked up directly, as fast-glob does. A pattern's literal folders
 * may pass through a link only to a folder inside the workspace, and the walk lists each folder through itself
 * (walk.ts): nothing behind a link that leads out is ever named.
 */
import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import settingsModule from 'fast-glob/out/settings';
import providerModule from 'fast-glob/out/providers/sync';
import type { Task } from 'fast-glob/out/managers/tasks';
import type { ReaderOptions } from 'fast-glob/out/types';
import { comparePaths, type IgnoreRules } from './grep/ignore';
import { PAUSE, SortedWalk } from './grep/walk';
import { lstatBeneath } from '../policy/confined-fs';
import { isInside } from '../policy/workspace';

/** What glob asks of fast-glob: files only, dot files too, symlinks not followed, unreadable folders passed over. */
export const FAST_GLOB_OPTIONS = { dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true, unique: true } as const;

/** Longest stretch of synchronous walking before yielding to the event loop. */
export const WALK_SLICE_MS = 12;
/** Folders listed between two looks at the clock when no file matches. */
const DIRS_PER_CHECK = 16;
/** Files matched between two looks at the clock. */
const FILES_PER_CHECK = 256;

/**
 * The class a CommonJS module of fast-glob exports as `default`: a bundler or TypeScript's interop hands
 * over the class itself, Node's ESM loader the whole module.exports.
 */
function cjsDefault<T>(m: T): T {
  return typeof m === 'function' ? m : (m as unknown as { default: T }).default;
}
const Settings = cjsDefault(settingsModule);
const ProviderSync = cjsDefault(providerModule);

/** fast-glob's filters for one task, as its own readers get them. */
class Filters extends ProviderSync {
  of(task: Task): ReaderOptions {
    return this._getReaderOptions(task);
  }
}

export interface GlobFound {
  /** matching paths (workspace-relative), the first `cap` in path order */
  first: string[];
  /** every matching path the ignore rules kept */
  total: number;
}

/**
 * Where the folder `abs` really is, when that is inside the workspace; null otherwise. A pattern's literal
 * folders ("src-link/**") are followed as fast-glob follows them, but only to a folder inside the workspace; the
 * walk then lists that real folder through itself, so a link swapped in meanwhile is not walked either.
 */
function realFolderInside(workspace: string, abs: string): string | null {
  try {
    const real = fs.realpathSync.native(abs);
    return isInside(workspace, real) ? real : null;
  } catch {
    return null;
  }
}

/**
 * A literal task's patterns that name a file, as fast-glob's own static reader would find them, but only in a
 * folder inside the workspace and with no link followed from there (its reader follows any link in the folders
 * above the name, so "link/secret" would be found through a link out of the workspace).
 */
function literalMatches(task: Task, o: ReaderOptions, workspace: string, abs: string): string[] {
  const found: string[] = [];
  for (const pattern of task.patterns) {
    const full = path.resolve(abs, pattern);
    const dir = isInside(abs, full) ? realFolderInside(workspace, path.dirname(full)) : null;
    const st = dir === null ? null : lstatBeneath(workspace, path.join(dir, path.basename(full)));
    if (!st) continue;
    const entry = { name: pattern, path: pattern, dirent: direntOf(pattern, st) };
    if (o.entryFilter(entry)) found.push(pattern);
  }
  return found;
}

/** A Dirent from an lstat, as fast-glob makes one for its static reader. */
function direntOf(name: string, st: fs.Stats): fs.Dirent {
  return {
    name,
    isFile: () => st.isFile(),
    isDirectory: () => st.isDirectory(),
    isSymbolicLink: () => st.isSymbolicLink(),
    isBlockDevice: () => st.isBlockDevice(),
    isCharacterDevice: () => st.isCharacterDevice(),
    isFIFO: () => st.isFIFO(),
    isSocket: () => st.isSocket(),
  } as fs.Dirent;
}

function yieldToLoop(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * The files below `abs` (the search start of `rules`, workspace-relative `prefix`) that match `pattern`
 * and that the ignore rules keep. Throws only when `signal` aborts.
 */
export async function globFiles(
  pattern: string,
  where: { workspace: string; abs: string; prefix: string },
  rules: IgnoreRules,
  cap: number,
  signal: AbortSignal,
): Promise<GlobFound> {
  const { workspace, abs, prefix } = where;
  const tasks = fg.generateTasks(pattern, FAST_GLOB_OPTIONS);
  // one walk meets each path once; only several tasks (or literal lookups) can meet one twice
  const unique = tasks.length > 1 || (tasks.length === 1 && !tasks[0].dynamic);
  const filters = new Filters(new Settings({ ...FAST_GLOB_OPTIONS, cwd: abs, unique }));
  const lists: string[][] = [];
  let total = 0;
  let sliceStart = performance.now();
  for (const task of tasks) {
    const list: string[] = [];
    lists.push(list);
    const o = filters.of(task);
    if (!task.dynamic) {
      for (const p of literalMatches(task, o, workspace, abs)) {
        const file = prefix + p;
        if (rules.pathIgnored(file)) continue;
        total++;
        list.push(file);
      }
      continue;
    }
    const root = path.resolve(abs, task.base);
    const from = rules.dir(root === workspace ? '' : path.relative(workspace, root).split(path.sep).join('/'));
    const real = from === null ? null : realFolderInside(workspace, root);
    if (from === null || real === null) continue;
    const walk = new SortedWalk(rules, from, real, {
      descend: (dirent, relToStart) => o.deepFilter({ dirent, name: dirent.name, path: relToStart }),
      accept: (dirent, relToStart) => o.entryFilter({ dirent, name: dirent.name, path: relToStart }),
    });
    let sinceCheck = 0;
    for (;;) {
      const f = walk.pull(DIRS_PER_CHECK);
      if (f === null) break;
      if (signal.aborted) throw new Error('aborted');
      if (f !== PAUSE) {
        total++;
        if (list.length < cap) list.push(f.rel);
        if (++sinceCheck < FILES_PER_CHECK) continue;
      }
      sinceCheck = 0;
      if (performance.now() - sliceStart > WALK_SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
  }
  // a single walk is already in path order; several lists are merged
  const first = lists.length === 1 && tasks[0].dynamic ? lists[0] : lists.flat().sort(comparePaths).slice(0, cap);
  return { first, total };
}
