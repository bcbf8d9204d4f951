/**
 * The ignore rules glob and grep share (the sorted walk both use is walk.ts).
 *
 * What is skipped below the path a search starts from:
 * 1. folders named in DEFAULT_SKIP_DIRS (version control, dependencies, build output, caches), at any depth;
 * 2. paths matched by .gitignore files: the workspace root's and every nested one (gitignore syntax and
 *    precedence: a deeper file overrides a shallower one, the last matching line wins);
 * 3. more patterns, in gitignore syntax, anchored at the workspace root: the lines of a `.clampignore`
 *    file at the workspace root, then the comma-separated patterns of the CLAMP_IGNORE environment
 *    variable. They come after the root .gitignore, so `!pattern` there re-includes a gitignored path.
 * A path given explicitly is always searched, even when it is ignored itself: the rules apply below it.
 * Symlinks are never followed (a link could lead out of the workspace or into a cycle); an ignore file is read
 * only when what it opens lies inside the workspace.
 * A walker that lists folders reads a folder's .gitignore only when the listing shows one (`enter`, then
 * `listed`); callers that see paths in no particular order (`dir`, `pathIgnored`) read it on first use.
 */
import fs from 'node:fs';
import ignore, { type Ignore } from 'ignore';
import { ToolError } from '../../contract/types';
import type { ResolvedPath } from '../../contract/paths';
import { listExact, readTextInside } from '../../policy/confined-fs';
import { pinConfined } from '../../policy/confined-io';
import type { ReadGuard } from '../../contract/permission-rest';

/** Folder names skipped at any depth below the search root. */
export const DEFAULT_SKIP_DIRS: readonly string[] = [
  '.git', '.hg', '.svn', 'node_modules', 'bower_components', 'jspm_packages',
  'dist', 'build', 'out', '.next', '.nuxt', '.svelte-kit', '.output', '.vercel', '.turbo', '.parcel-cache',
  'target', 'vendor', 'Pods', '.gradle',
  '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.ruff_cache', '.pytest_cache',
  'coverage', '.nyc_output', '.cache', '.idea',
];
const SKIP = new Set(DEFAULT_SKIP_DIRS);

/** Where extra ignore patterns come from (documented in the tool descriptions and the module comment). */
export const CLAMPIGNORE_FILE = '.clampignore';
export const CLAMP_IGNORE_ENV = 'CLAMP_IGNORE';

/** Segment-wise path order ("a/b" before "a-c" before "a.txt/x"): the order of a depth-first walk with sorted names. */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1; // '/' ends a segment: the shorter segment sorts first
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/** One .gitignore (or the root's combined rules) with the folder it is anchored at ('' = workspace root). */
interface Layer {
  base: string;
  ig: Ignore;
}

/** A folder the walk may enter: its workspace-relative path and the rule layers that apply inside it (deepest last). */
export interface DirInfo {
  rel: string;
  layers: readonly Layer[];
}

export interface IgnoreStats {
  /** folders skipped (default names and ignore rules) */
  dirs: number;
  /** files skipped by ignore rules */
  files: number;
  /** the first three skipped folder paths in path order, for notes */
  dirSamples: string[];
  /** folders and files withheld by permission rules (a Read deny or ask), not counted above */
  withheld?: number;
}


function join(dir: string, name: string): string {
  return dir === '' || dir === '.' ? name : `${dir}/${name}`;
}

/**
 * Ignore rules for one search. Construct per call (rules are read from disk then, never at import time).
 * `env` is the value of CLAMP_IGNORE the caller read at call time.
 */
export class IgnoreRules {
  readonly stats: IgnoreStats = { dirs: 0, files: 0, dirSamples: [] };
  /** the folder the search starts from (workspace-relative, '' for the root) */
  readonly start: DirInfo;
  private readonly cache = new Map<string, DirInfo | null>();
  /** folder infos whose own .gitignore is already among their layers (or known to be absent) */
  private readonly complete = new WeakSet<DirInfo>();

  constructor(
    private readonly workspace: string,
    startRel: string,
    env: string | undefined,
    /** the call's read guard: a path it names is withheld (never listed, read or counted as ignored) */
    private readonly guard?: ReadGuard,
  ) {
    const rootRules = [readTextInside(workspace, `${workspace}/.gitignore`), readTextInside(workspace, `${workspace}/${CLAMPIGNORE_FILE}`), (env ?? '').split(',').map((x) => x.trim()).join('\n')]
      .filter((t): t is string => !!t && t.trim() !== '')
      .join('\n');
    const root: DirInfo = { rel: '', layers: rootRules ? [{ base: '', ig: ignore({ ignorecase: false }).add(rootRules) }] : [] };
    this.cache.set('', root);
    this.complete.add(root);
    const start = startRel === '.' ? '' : startRel;
    // walk down to the start folder; if it lies under an ignored path the user asked for it anyway,
    // so only the rules found at and below it apply
    let info = root;
    let ignored = false;
    for (const seg of start ? start.split('/') : []) {
      const rel = join(info.rel, seg);
      if (!ignored && this.layeredIgnores(info.layers, `${rel}/`)) ignored = true;
      info = ignored ? this.withGitignore({ rel, layers: [] }) : this.withGitignore({ rel, layers: info.layers });
    }
    this.start = info;
    this.cache.set(info.rel, info);
    this.complete.add(info);
  }

  private withGitignore(info: DirInfo): DirInfo {
    if (info.rel === '') return info;
    const text = readTextInside(this.workspace, `${this.workspace}/${info.rel}/.gitignore`);
    if (!text || text.trim() === '') return info;
    return { rel: info.rel, layers: [...info.layers, { base: info.rel, ig: ignore({ ignorecase: false }).add(text) }] };
  }

  /** Deepest layer first; the first one with a verdict on this very path decides. */
  private layeredIgnores(layers: readonly Layer[], rel: string): boolean {
    for (let i = layers.length - 1; i >= 0; i--) {
      const { base, ig } = layers[i];
      const r = ig.checkIgnore(base === '' ? rel : rel.slice(base.length + 1));
      if (r.ignored) return true;
      if (r.unignored) return false;
    }
    return false;
  }

  /** Whether the call's read guard withholds this workspace-relative path (counted). */
  private withheld(rel: string, isDir: boolean): boolean {
    if (!this.guard || !this.guard(`${this.workspace}/${rel}`, isDir)) return false;
    this.stats.withheld = (this.stats.withheld ?? 0) + 1;
    return true;
  }

  /** The folder `rel` (named `name`) inside `parent` with the parent's layers, or null when it is skipped (and counted). */
  private judge(parent: DirInfo, rel: string, name: string): DirInfo | null {
    if (this.withheld(rel, true)) return null;
    if (SKIP.has(name) || (parent.layers.length > 0 && this.layeredIgnores(parent.layers, `${rel}/`))) {
      this.stats.dirs++;
      // keep the first three in path order, whatever order the caller visits folders in
      const samples = this.stats.dirSamples;
      if (samples.length < 3 || comparePaths(rel, samples[2]) < 0) {
        samples.push(rel);
        samples.sort(comparePaths);
        samples.length = Math.min(samples.length, 3);
      }
      return null;
    }
    return { rel, layers: parent.layers };
  }

  /** The folder `name` inside `parent` with its own .gitignore read, or null when it is skipped (and counted). */
  child(parent: DirInfo, name: string): DirInfo | null {
    const info = this.judge(parent, join(parent.rel, name), name);
    if (!info) return null;
    const full = this.withGitignore(info);
    this.complete.add(full);
    return full;
  }

  /**
   * For a walker that lists the folders it enters: the folder `name` inside `parent`, or null when it is
   * skipped (counted once, however often it is entered). Pass the folder's listing to `listed` before
   * judging anything inside it: that is when its own .gitignore joins the rules.
   */
  enter(parent: DirInfo, name: string): DirInfo | null {
    const rel = join(parent.rel, name);
    const hit = this.cache.get(rel);
    if (hit !== undefined) return hit;
    const info = this.judge(parent, rel, name);
    this.cache.set(rel, info);
    return info;
  }

  /**
   * The rules inside an entered folder, given its listing: its own .gitignore is read only when the listing
   * holds one (`entries` null: the folder could not be listed, so the file is tried as `child` would).
   */
  listed(info: DirInfo, entries: readonly { name: string }[] | null): DirInfo {
    if (this.complete.has(info)) return info;
    let own = info;
    if (entries === null) own = this.withGitignore(info);
    else for (const e of entries) if (e.name === '.gitignore') own = this.withGitignore(info);
    this.complete.add(own);
    this.cache.set(own.rel, own);
    return own;
  }

  /** True when the file `rel` inside `parent` is ignored (and counts it). */
  fileIgnored(parent: DirInfo, rel: string): boolean {
    if (this.withheld(rel, false)) return true;
    if (parent.layers.length === 0 || !this.layeredIgnores(parent.layers, rel)) return false;
    this.stats.files++;
    return true;
  }

  /**
   * The folder info for a workspace-relative folder at or below the start, or null when it (or a folder
   * above it) is skipped. For callers that see paths in no particular order (glob's literal patterns).
   */
  dir(rel: string): DirInfo | null {
    const hit = this.cache.get(rel);
    if (hit !== undefined) return hit === null ? null : this.listed(hit, null);
    const slash = rel.lastIndexOf('/');
    const parentRel = slash === -1 ? '' : rel.slice(0, slash);
    if (parentRel.length < this.start.rel.length) return this.start; // above the start: not ours to judge
    const parent = this.dir(parentRel);
    const info = parent ? this.child(parent, rel.slice(slash + 1)) : null;
    this.cache.set(rel, info);
    return info;
  }

  /** True when the workspace-relative file path is skipped (it or a folder above it), for unordered callers. */
  pathIgnored(rel: string): boolean {
    const slash = rel.lastIndexOf('/');
    const parent = this.dir(slash === -1 ? '' : rel.slice(0, slash));
    return parent === null || this.fileIgnored(parent, rel);
  }
}

function count(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** The sentence saying how many paths the call's read guard withheld, or '' when none. */
export function withheldNote(withheld: number | undefined): string {
  return withheld ? `${count(withheld, 'path')} withheld by a permission rule (a Read deny or ask in a settings file): not searched, and not readable by any tool.` : '';
}

/** The sentence saying what the ignore rules kept out of a search, or '' when they kept out nothing. */
export function ignoredNote(stats: IgnoreStats, verb: string): string {
  if (stats.dirs + stats.files === 0) return '';
  const more = stats.dirs > stats.dirSamples.length ? ` and ${(stats.dirs - stats.dirSamples.length).toLocaleString('en-US')} more` : '';
  const dirs = stats.dirs ? `${count(stats.dirs, 'folder')} (${stats.dirSamples.join(', ')}${more})` : '';
  const files = stats.files ? count(stats.files, 'file') : '';
  return `Not searched by the ignore rules (default skip list, .gitignore, ${CLAMPIGNORE_FILE}): ${[dirs, files].filter(Boolean).join(' and ')}; pass path to ${verb} inside an ignored folder.`;
}

/** Lowercase edit distance, small and bounded; for "did you mean" suggestions. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[t.length];
}

/** Up to three existing workspace-relative paths near a missing one (same parent folder, small edit distance). */
export function nearPaths(workspace: string, rel: string): string[] {
  const slash = rel.lastIndexOf('/');
  const dir = slash === -1 ? '' : rel.slice(0, slash);
  const name = rel.slice(slash + 1);
  const names = (listExact(dir ? `${workspace}/${dir}` : workspace) ?? []).map((d) => d.name);
  const limit = Math.max(2, Math.floor(name.length / 3));
  return names
    .map((n) => ({ n, d: distance(n, name) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || comparePaths(a.n, b.n))
    .slice(0, 3)
    .map((x) => join(dir, x.n));
}

/**
 * A glob (`*`, `**`, `?`, `[abc]`, `[!abc]`, `{a,b}`, `\x`) as an anchored RegExp over '/'-separated paths.
 * `*` and `?` never cross '/'; `**` as a whole segment matches zero or more segments.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) {
      re += escapeRe(glob[++i]);
    } else if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        let j = i + 2;
        while (glob[j] === '*') j++;
        if (atStart && glob[j] === '/') {
          re += '(?:[^/]*/)*'; // "**/" : any number of whole segments
          i = j;
        } else if (atStart && j === glob.length) {
          re += '.*';
          i = j - 1;
        } else {
          re += '[^/]*';
          i = j - 1;
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        re += '\\[';
      } else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!') || body.startsWith('^')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) {
      re += '|';
    } else {
      re += escapeRe(c);
    }
  }
  re += ')'.repeat(depth);
  return new RegExp(`^${re}$`);
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/**
 * The stats of the path a search starts from, opened and checked inside its root (PathPolicyError when it
 * leads out now); a missing one is a ToolError with near names and the given next step (glob and grep share this).
 */
export function searchStart(workspace: string, start: ResolvedPath, nextStep: string): fs.Stats {
  const held = pinConfined(start, 'list');
  if (!held) {
    const near = nearPaths(workspace, start.rel);
    throw new ToolError(`Path not found: ${start.rel}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''} ${nextStep}`, nextStep);
  }
  held.close();
  return held.stat;
}
