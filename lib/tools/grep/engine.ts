/**
 * The built-in search behind grep: a depth-first walk in sorted order (so the first N results are
 * always the same N), a size check before reading, a binary sniff, a quick byte-level prefilter before
 * any line is split, and an early stop once the cap is passed in path order. Files are read
 * synchronously in short time slices: on this workload sync reads are several times faster than
 * libuv's thread pool, and the slices keep the event loop (and ctx.signal) responsive.
 */
import fs from 'node:fs';
import os from 'node:os';
import { clipLine } from '../../contract/text';
import { DEFAULT_SKIP_DIRS, IgnoreRules, type DirInfo } from './ignore';
import { findRg, startRgPrefilter, type RgPrefilter } from './ripgrep';

/** A pattern ready to run (built by grep.ts's compilePattern). */
export interface CompiledPattern {
  /** how notes show it: /re/i or "literal" */
  display: string;
  /** the per-line test (lines without their \n or trailing \r) */
  testLine: (line: string) => boolean;
  /** bytes every matching line contains, for a Buffer.indexOf prefilter (case-sensitive only) */
  literalBytes?: Buffer;
  /** a literal every matching line contains, for rg -F (ASCII when ignoreCase) */
  rgLiteral?: { text: string; ignoreCase: boolean };
  /** a whole-file test that is true whenever some line matches (a cheap way to rule a file out) */
  wholeText?: RegExp;
}

export type OutputMode = 'content' | 'files_with_matches' | 'count';
/**
 * builtin: never rg. rg: wait for rg's verdicts, then walk. auto: on 4+ cores, start rg beside the
 * built-in walk once a search turns out to be long (with fewer cores the two only compete for CPU).
 */
export type EngineChoice = 'builtin' | 'rg' | 'auto';

/** Files the auto engine searches on its own before it also starts rg. */
const AUTO_RG_AFTER_FILES = 2000;
/** Fewer cores than this and auto never starts rg: measured slower than the built-in walk alone on 2 cores. */
const AUTO_RG_MIN_CORES = 4;
/** The first read of every file; larger files are measured with fstat and read on. */
const FIRST_READ_BYTES = 64 * 1024;
/** Longest stretch of synchronous work before yielding to the event loop. */
const SLICE_MS = 12;

export interface SearchRequest {
  workspace: string;
  /** the searched path: absolute and workspace-relative ('.' for the root) */
  startAbs: string;
  startRel: string;
  startIsFile: boolean;
  pattern: CompiledPattern;
  /** include filter on (workspace-relative path, start-relative path, file name) */
  include?: (rel: string, relToStart: string, name: string) => boolean;
  mode: OutputMode;
  context: number;
  maxEntries: number;
  /** the output lines stop before they pass this many bytes (leaves room for notes under the exit clamp) */
  maxOutputBytes: number;
  maxLineBytes: number;
  maxFileBytes: number;
  maxFilesVisited: number;
  sniffBytes: number;
  /** value of CLAMP_IGNORE, read by the caller at call time */
  ignoreEnv?: string;
  engine: EngineChoice;
  /** overrides of the auto engine's thresholds (tests exercise the race with them) */
  autoRgAfterFiles?: number;
  autoRgMinCores?: number;
  /** PATH to look for rg in */
  envPath?: string;
  signal: AbortSignal;
}

export interface Skipped {
  count: number;
  samples: string[];
}

export interface SearchResult {
  /** output lines, already formatted for the mode */
  lines: string[];
  /** for each output line: true when it is a matching line (or a file, in the other modes), false for context and "--" */
  isMatch: boolean[];
  /** matching lines found in the files searched (a lower bound when stopped) */
  matches: number;
  /** files with at least one matching line among those searched */
  filesWithMatches: number;
  /** entries shown: matching lines (content) or files (other modes) */
  shown: number;
  filesSearched: number;
  /** files the walk reached after ignore rules and include */
  filesVisited: number;
  /** why the search stopped early, and the file it stopped in or before */
  stop: null | { reason: 'entries' | 'files' | 'bytes'; at: string };
  /** UTF-8 bytes of lines (each with its newline) */
  outputBytes: number;
  oversize: Skipped;
  binary: Skipped;
  unreadable: Skipped;
  unreadableDirs: Skipped;
  ignoredDirs: number;
  ignoredFiles: number;
  ignoredDirSamples: string[];
  /** files the walk reached that include did not select */
  notIncluded: number;
  /** which engine answered, for meta (the output never depends on it) */
  engine: 'builtin' | 'builtin+rg';
  /** files rg ruled out, so they were never read here */
  rgRuledOut: number;
}

function skipped(): Skipped {
  return { count: 0, samples: [] };
}
function note(s: Skipped, rel: string) {
  s.count++;
  if (s.samples.length < 3) s.samples.push(rel);
}

interface WalkFile {
  abs: string;
  rel: string;
  relToStart: string;
  name: string;
}

/** Sorted depth-first walk of regular files below the start, applying the ignore rules. */
function* walk(req: SearchRequest, rules: IgnoreRules, unreadableDirs: Skipped): Generator<WalkFile> {
  const startPrefix = req.startRel === '.' ? '' : `${req.startRel}/`;
  function* dir(info: DirInfo, abs: string): Generator<WalkFile> {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      note(unreadableDirs, info.rel || '.');
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childAbs = `${abs}/${e.name}`;
      if (e.isDirectory()) {
        const child = rules.child(info, e.name);
        if (child) yield* dir(child, childAbs);
      } else if (e.isFile()) {
        const rel = info.rel ? `${info.rel}/${e.name}` : e.name;
        if (rules.fileIgnored(info, rel)) continue;
        yield { abs: childAbs, rel, relToStart: rel.slice(startPrefix.length), name: e.name };
      }
      // symlinks, sockets, fifos: not followed, not read
    }
  }
  yield* dir(rules.start, req.startAbs);
}

type Scan =
  | { kind: 'oversize' }
  | { kind: 'unreadable' }
  | { kind: 'none' }
  | { kind: 'text' | 'binary'; text: string; hits: number[] };

/** Read one file and find its matching line numbers (1-based). Synchronous by design (see module comment). */
function scanFile(abs: string, req: SearchRequest, pool: { buf: Buffer | null }): Scan {
  let fd: number;
  try {
    fd = fs.openSync(abs, 'r');
  } catch {
    return { kind: 'unreadable' };
  }
  let n = 0;
  try {
    // Most files fit in the first read, so open+read+close is all they cost (no fstat): a short read
    // means end of file; reading one byte past the cap is enough to know a file is over it.
    const first = Math.min(FIRST_READ_BYTES, req.maxFileBytes + 1);
    if (!pool.buf || pool.buf.length < first) pool.buf = Buffer.allocUnsafe(first);
    n = fs.readSync(fd, pool.buf, 0, first, 0);
    if (n > req.maxFileBytes) return { kind: 'oversize' };
    if (n === first) {
      const size = fs.fstatSync(fd).size;
      if (size > req.maxFileBytes) return { kind: 'oversize' };
      if (pool.buf.length < size) {
        const grown = Buffer.allocUnsafe(size);
        pool.buf.copy(grown, 0, 0, n);
        pool.buf = grown;
      }
      // a file that grows meanwhile is read as it was when measured
      while (n < size) {
        const r = fs.readSync(fd, pool.buf, n, size - n, n);
        if (r === 0) break;
        n += r;
      }
    }
  } catch {
    return { kind: 'unreadable' };
  } finally {
    fs.closeSync(fd);
  }
  if (n === 0) return { kind: 'none' };
  const buf = pool.buf!.subarray(0, n);
  const p = req.pattern;
  if (p.literalBytes && buf.indexOf(p.literalBytes) === -1) return { kind: 'none' };
  const binary = buf.subarray(0, Math.min(n, req.sniffBytes)).indexOf(0) !== -1;
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (p.wholeText && !p.wholeText.test(text)) return { kind: 'none' };
  const hits: number[] = [];
  let ln = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    ln++;
    const line = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    if (p.testLine(line)) hits.push(ln);
    start = end + 1;
  }
  if (hits.length === 0) return { kind: 'none' };
  return { kind: binary ? 'binary' : 'text', text, hits };
}

/** Lines of text with a trailing \r removed, 1-based access via index - 1. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

interface OutLine {
  text: string;
  /** a matching line (counts toward the cap), not context or a separator */
  match: boolean;
}

/** Render up to `quota` matches of one file, with context like rg (`path:n:text`, `path-n-text`, `--` between groups). */
function renderContent(rel: string, scan: { text: string; hits: number[] }, quota: number, req: SearchRequest, first: boolean): OutLine[] {
  const out: OutLine[] = [];
  const shown = scan.hits.slice(0, quota);
  const lines = splitLines(scan.text);
  if (req.context === 0) {
    for (const n of shown) out.push({ text: `${rel}:${n}:${clipLine(lines[n - 1], req.maxLineBytes)}`, match: true });
    return out;
  }
  const isHit = new Set(shown);
  // context after the last shown match stops before the first match that is not shown
  const limit = scan.hits.length > shown.length ? scan.hits[shown.length] - 1 : lines.length;
  const ranges: Array<[number, number]> = [];
  for (const n of shown) {
    const s = Math.max(1, n - req.context);
    const e = Math.min(limit, n + req.context);
    const last = ranges[ranges.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else ranges.push([s, e]);
  }
  for (const [s, e] of ranges) {
    if (!first || out.length > 0) out.push({ text: '--', match: false });
    for (let n = s; n <= e; n++) {
      const sep = isHit.has(n) ? ':' : '-';
      out.push({ text: `${rel}${sep}${n}${sep}${clipLine(lines[n - 1], req.maxLineBytes)}`, match: sep === ':' });
    }
  }
  return out;
}

function yieldToLoop(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/**
 * Search the tree (or one file) and return formatted lines plus every count the notes need.
 * Throws only when aborted (ctx.signal); unreadable files and folders are counted, not thrown.
 */
export async function search(req: SearchRequest): Promise<SearchResult> {
  const res: SearchResult = {
    lines: [], isMatch: [], matches: 0, filesWithMatches: 0, shown: 0, filesSearched: 0, filesVisited: 0, stop: null, outputBytes: 0,
    oversize: skipped(), binary: skipped(), unreadable: skipped(), unreadableDirs: skipped(),
    ignoredDirs: 0, ignoredFiles: 0, ignoredDirSamples: [], notIncluded: 0, engine: 'builtin', rgRuledOut: 0,
  };
  const pool: { buf: Buffer | null } = { buf: null };
  const rules = req.startIsFile ? null : new IgnoreRules(req.workspace, req.startRel, req.ignoreEnv);
  const files: Iterable<WalkFile> = rules
    ? walk(req, rules, res.unreadableDirs)
    : [{ abs: req.startAbs, rel: req.startRel, relToStart: '', name: req.startRel.slice(req.startRel.lastIndexOf('/') + 1) }];

  const rgLiteral = req.pattern.rgLiteral;
  const wanted = req.engine === 'rg' || (req.engine === 'auto' && os.availableParallelism() >= (req.autoRgMinCores ?? AUTO_RG_MIN_CORES));
  const rg = rules && rgLiteral && wanted ? findRg(req.envPath) : null;
  let pre: RgPrefilter | null = null;
  const startRg = () => {
    pre = startRgPrefilter({
      rg: rg!, cwd: req.startAbs, literal: rgLiteral!.text, ignoreCase: rgLiteral!.ignoreCase,
      maxFileBytes: req.maxFileBytes, skipDirs: DEFAULT_SKIP_DIRS, signal: req.signal,
    });
    res.engine = 'builtin+rg';
  };
  if (rg && req.engine === 'rg') {
    startRg();
    await pre!.finished;
  }

  try {
    let sliceStart = performance.now();
    for (const f of files) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
      if (req.signal.aborted) throw new Error('aborted');
      if (req.include && rules && !req.include(f.rel, f.relToStart, f.name)) {
        res.notIncluded++;
        continue;
      }
      if (res.filesVisited >= req.maxFilesVisited) {
        res.stop = { reason: 'files', at: f.rel };
        break;
      }
      res.filesVisited++;
      if (rg && !pre && res.filesVisited === (req.autoRgAfterFiles ?? AUTO_RG_AFTER_FILES)) startRg();
      if ((pre as RgPrefilter | null)?.noMatch(f.relToStart)) {
        res.filesSearched++;
        res.rgRuledOut++;
        continue;
      }
      const scan = scanFile(f.abs, req, pool);
      if (scan.kind === 'oversize') {
        note(res.oversize, f.rel);
        continue;
      }
      if (scan.kind === 'unreadable') {
        note(res.unreadable, f.rel);
        continue;
      }
      res.filesSearched++;
      if (scan.kind === 'none') continue;
      if (scan.kind === 'binary') {
        note(res.binary, f.rel);
        continue;
      }
      res.matches += scan.hits.length;
      res.filesWithMatches++;
      const quota = req.maxEntries - res.shown;
      const rendered: OutLine[] =
        quota === 0 ? []
        : req.mode === 'content' ? renderContent(f.rel, scan, quota, req, res.lines.length === 0)
        : [{ text: req.mode === 'count' ? `${f.rel}:${scan.hits.length}` : f.rel, match: true }];
      const entries = req.mode === 'content' ? scan.hits.length : 1;
      let added = 0;
      for (const l of rendered) {
        const bytes = Buffer.byteLength(l.text) + 1;
        if (res.outputBytes + bytes > req.maxOutputBytes) {
          res.stop = { reason: 'bytes', at: f.rel };
          break;
        }
        res.lines.push(l.text);
        res.isMatch.push(l.match);
        res.outputBytes += bytes;
        if (l.match) added++;
      }
      res.shown += added;
      if (res.stop) {
        if (res.lines[res.lines.length - 1] === '--') {
          res.lines.pop();
          res.isMatch.pop();
        }
        break;
      }
      if (entries > quota) {
        res.stop = { reason: 'entries', at: f.rel };
        break;
      }
    }
  } finally {
    (pre as RgPrefilter | null)?.stop();
  }
  if (rules) {
    res.ignoredDirs = rules.stats.dirs;
    res.ignoredFiles = rules.stats.files;
    res.ignoredDirSamples = rules.stats.dirSamples;
  }
  return res;
}
