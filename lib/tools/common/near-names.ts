/**
 * "Did you mean …" for paths that do not exist: near names in the parent folder (edit distance on
 * the name, case slips, a swapped extension), then the same name elsewhere in the workspace.
 * Used by every tool that answers "not found".
 */
import path from 'node:path';
import { BUDGET } from '../../contract/budget';
import { ToolError } from '../../contract/types';
import { listExact, lstatBeneath } from '../../policy/confined-fs';

const MAX_SUGGESTIONS = 3;
/** Folders the workspace-wide name search never enters (huge, and never what was meant). */
const SEARCH_SKIP_DIRS = new Set(['.git', 'node_modules']);

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
      cur.push(v);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n];
}

function stem(name: string): string {
  const ext = path.extname(name);
  return ext && ext !== name ? name.slice(0, -ext.length) : name;
}

/** How far `candidate` is from the `wanted` name; undefined when it is not near at all. Lower is nearer. */
function nameScore(wanted: string, candidate: string): number | undefined {
  if (candidate === wanted) return undefined;
  const w = wanted.toLowerCase();
  const c = candidate.toLowerCase();
  if (w === c) return 0.1; // README.md for Readme.md
  if (stem(w) === stem(c)) return 0.5; // utils.js for utils.ts
  const d = editDistance(w, c);
  const allowed = w.length <= 4 ? 1 : w.length <= 10 ? 2 : 3;
  return d <= allowed ? d : undefined;
}

/*
 * Suggestions never look through a link: a folder is listed only through itself, opened where the path says
 * (confined-fs.ts), and a link is an entry, not a folder. A link out of the workspace would otherwise name what
 * lies outside ("did you mean link/id_rsa?").
 */
function readNames(absDir: string): string[] {
  return (listExact(absDir) ?? []).map((d) => d.name);
}

function isDir(ws: string, abs: string): boolean {
  return abs === ws || lstatBeneath(ws, abs)?.isDirectory() === true;
}

function exists(ws: string, abs: string): boolean {
  return abs === ws || lstatBeneath(ws, abs) !== null;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function joinRel(dirRel: string, name: string): string {
  return dirRel === '' ? name : `${dirRel}/${name}`;
}

/** Split a model-supplied path into workspace-relative segments ('.' and '' dropped). */
function segmentsOf(workspace: string, relPath: string): string[] {
  const rel = path.isAbsolute(relPath) ? path.relative(workspace, relPath) : relPath;
  return rel.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

/** Near names for segs[0..] starting in an existing folder; each result is a path that exists. */
function nearFrom(ws: string, absDir: string, dirRel: string, segs: string[], out: string[]): void {
  if (segs.length === 0 || out.length >= MAX_SUGGESTIONS) return;
  const [seg, ...rest] = segs;
  const here = path.join(absDir, seg);
  if (exists(ws, here) && seg !== '..') {
    if (rest.length === 0) return; // it exists: nothing to suggest at this level
    if (isDir(ws, here)) nearFrom(ws, here, joinRel(dirRel, seg), rest, out);
    return;
  }
  const scored = readNames(absDir)
    .map((name) => ({ name, score: nameScore(seg, name) }))
    .filter((c): c is { name: string; score: number } => c.score !== undefined)
    .sort((a, b) => a.score - b.score || byteOrder(a.name, b.name));
  for (const { name } of scored.slice(0, MAX_SUGGESTIONS)) {
    if (out.length >= MAX_SUGGESTIONS) return;
    const candRel = joinRel(dirRel, name);
    const candAbs = path.join(absDir, name);
    if (rest.length === 0) {
      if (!out.includes(candRel)) out.push(candRel);
    } else if (isDir(ws, candAbs)) {
      if (existsAlong(ws, candAbs, rest)) {
        const full = joinRel(candRel, rest.join('/'));
        if (!out.includes(full)) out.push(full);
      } else {
        nearFrom(ws, candAbs, candRel, rest, out);
      }
    }
  }
}

/** True when segs lead from the folder absDir to an entry, through folders only (no link on the way). */
function existsAlong(ws: string, absDir: string, segs: string[]): boolean {
  let at = absDir;
  for (let i = 0; i < segs.length; i++) {
    at = path.join(at, segs[i]);
    if (i < segs.length - 1 ? !isDir(ws, at) : !exists(ws, at)) return false;
  }
  return true;
}

/** Breadth-first search of the workspace for entries named `name` (any case, or another extension). */
function sameNameElsewhere(workspace: string, name: string, maxVisited: number, out: string[]): void {
  const wanted = name.toLowerCase();
  const queue: string[] = [''];
  let visited = 0;
  while (queue.length > 0 && out.length < MAX_SUGGESTIONS && visited < maxVisited) {
    const dirRel = queue.shift() as string;
    const entries = listExact(dirRel === '' ? workspace : path.join(workspace, dirRel));
    if (!entries) continue;
    entries.sort((a, b) => byteOrder(a.name, b.name));
    for (const e of entries) {
      if (++visited > maxVisited || out.length >= MAX_SUGGESTIONS) break;
      const rel = joinRel(dirRel, e.name);
      const lower = e.name.toLowerCase();
      if ((lower === wanted || stem(lower) === stem(wanted)) && !out.includes(rel)) out.push(rel);
      if (e.isDirectory() && !SEARCH_SKIP_DIRS.has(e.name)) queue.push(rel);
    }
  }
}

/** A path as an argument in a next-step text: bare when plain, JSON-quoted when it holds spaces or quotes. */
export function pathArg(rel: string): string {
  return /[\s"'`]/.test(rel) ? JSON.stringify(rel) : rel;
}

export interface NearNamesOptions {
  /** cap on directory entries the workspace-wide search visits */
  maxVisitedEntries?: number;
}

/**
 * Up to three existing workspace-relative paths near a missing one ("src/utlis.ts" → "src/utils.ts"):
 * near names in the folders along the path first, then the same file name elsewhere in the workspace
 * (bounded; .git and node_modules skipped). Never throws; [] when nothing is near.
 */
export function nearNames(workspace: string, relPath: string, opts: NearNamesOptions = {}): string[] {
  const segs = segmentsOf(workspace, relPath);
  if (segs.length === 0 || segs.includes('..')) return [];
  const out: string[] = [];
  try {
    nearFrom(workspace, workspace, '', segs, out);
    if (out.length < MAX_SUGGESTIONS) {
      sameNameElsewhere(workspace, segs[segs.length - 1], opts.maxVisitedEntries ?? BUDGET.NEAR_NAMES_MAX_VISITED_ENTRIES, out);
    }
  } catch {
    // suggestions are a courtesy: a failure here must not hide the real "not found"
  }
  const missing = segs.join('/');
  return out.filter((p) => p !== missing).slice(0, MAX_SUGGESTIONS);
}

/** The deepest existing folder along relPath, and the first segment below it that is missing or not a folder. */
function deepestFolder(workspace: string, segs: string[]): { dirRel: string; blocked?: { rel: string; isFile: boolean } } {
  let dirRel = '';
  for (let i = 0; i < segs.length - 1; i++) {
    const next = joinRel(dirRel, segs[i]);
    const abs = path.join(workspace, next);
    if (isDir(workspace, abs)) {
      dirRel = next;
      continue;
    }
    return { dirRel, blocked: { rel: next, isFile: exists(workspace, abs) } };
  }
  return { dirRel };
}

/**
 * The error for a path that does not exist: "File not found: X. Did you mean Y, Z?", or, when nothing
 * is near, the folder to look in with list_dir and glob as the next step. Returns (does not throw) a ToolError.
 */
export function notFoundError(workspace: string, relPath: string, kind: 'File' | 'Directory' | 'Path' = 'File'): ToolError {
  const segs = segmentsOf(workspace, relPath);
  const shown = segs.join('/') || '.';
  const near = nearNames(workspace, relPath);
  if (near.length > 0) {
    return new ToolError(`${kind} not found: ${shown}. Did you mean ${near.join(', ')}?`, undefined, { nearNames: near });
  }
  const { dirRel, blocked } = deepestFolder(workspace, segs);
  const listStep = dirRel === '' ? 'use list_dir to see the workspace root' : `use list_dir with path=${pathArg(dirRel)} to see what is there`;
  const why = blocked
    ? ` (${blocked.rel} ${blocked.isFile ? 'is a file, not a folder' : 'does not exist'})`
    : `. Nothing with a similar name is in ${dirRel === '' ? 'the workspace root' : `${dirRel}/`}`;
  const next = `${listStep}, or glob to search the tree by pattern`;
  return new ToolError(`${kind} not found: ${shown}${why}; ${next}.`, `${next[0].toUpperCase()}${next.slice(1)}.`, { nearNames: [] });
}
