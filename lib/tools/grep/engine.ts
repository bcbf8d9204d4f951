/**
 * The built-in search behind grep: a depth-first walk in sorted order (so the first N results are
 * always the same N), a size check before reading, a binary sniff, a quick byte-level prefilter before
 * any line is split, and an early stop once the cap is passed in path order. Files are read
 * synchronously in short time slices: on this workload sync reads are several times faster than
 * libuv's thread pool, and the slices keep the event loop (and ctx.signal) responsive.
 */
import type { ReadGuard } from '../../contract/permission-rest';
import os from 'node:os';
import { DEFAULT_SKIP_DIRS, IgnoreRules } from './ignore';
import { endScan, scanFile, scanState, type ScanState } from './scan';
import { admit, take } from './collect';
import { SortedWalk, type WalkFile } from './walk';
import { searchRest } from './parallel';
import type { ScanSpec } from './scan-pool';
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
  /** the same tests in a form worker threads can rebuild (absent: this pattern is searched on the main thread only) */
  spec?: ScanSpec;
}

export type OutputMode = 'content' | 'files_with_matches' | 'count';
/**
 * builtin: never rg (a long search reads and matches on worker threads). rg: wait for rg's verdicts,
 * then walk. auto: on 4+ cores, start rg beside the built-in walk once a search turns out to be long;
 * on fewer, builtin.
 */
export type EngineChoice = 'builtin' | 'rg' | 'auto';

/** Files the auto engine searches on its own before it also starts rg. */
const AUTO_RG_AFTER_FILES = 2000;
/** Fewer cores than this and auto never starts rg: measured slower than the built-in walk alone on 2 cores. */
const AUTO_RG_MIN_CORES = 4;
/** Longest stretch of synchronous work before yielding to the event loop. */
const SLICE_MS = 12;
/** Files searched on the main thread before the rest of a search goes to the worker threads. */
const WORKERS_AFTER_FILES = 1500;

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
  /** the call's read guard (paths permission rules withhold) */
  guard?: ReadGuard;
  engine: EngineChoice;
  /** overrides of the auto engine's thresholds (tests exercise the race with them) */
  autoRgAfterFiles?: number;
  autoRgMinCores?: number;
  /** PATH to look for rg in */
  envPath?: string;
  /** false: never hand files to worker threads; workersAfterFiles overrides when they take over (tests) */
  workers?: boolean;
  workersAfterFiles?: number;
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
  /** paths the call's read guard withheld (permission rules) */
  withheld?: number;
  /** files the walk reached that include did not select */
  notIncluded: number;
  /** which engine answered, for meta (the output never depends on it) */
  engine: 'builtin' | 'builtin+rg' | 'builtin+workers';
  /** files rg ruled out, so they were never read here */
  rgRuledOut: number;
}

function skipped(): Skipped {
  return { count: 0, samples: [] };
}

function yieldToLoop(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** rg beside the built-in walk: found when the request may use it; started at once (engine rg) or once a walk turns out long (auto). */
class RgSide {
  /** the rg binary, or null when this search does not use rg */
  readonly rg: string | null;
  private pre: RgPrefilter | null = null;

  constructor(
    private readonly req: SearchRequest,
    rules: IgnoreRules | null,
    private readonly res: SearchResult,
  ) {
    const wanted = req.engine === 'rg' || (req.engine === 'auto' && os.availableParallelism() >= (req.autoRgMinCores ?? AUTO_RG_MIN_CORES));
    this.rg = rules && req.pattern.rgLiteral && wanted ? findRg(req.envPath) : null;
  }

  /** Start rg over the searched folder; resolves once it has exited (never rejects). */
  start(): Promise<void> {
    const { req } = this;
    const literal = req.pattern.rgLiteral!;
    this.pre = startRgPrefilter({
      rg: this.rg!, cwd: req.startAbs, literal: literal.text, ignoreCase: literal.ignoreCase,
      maxFileBytes: req.maxFileBytes, skipDirs: DEFAULT_SKIP_DIRS, signal: req.signal,
    });
    this.res.engine = 'builtin+rg';
    return this.pre.finished;
  }

  /** For each admitted file in walk order: starts rg when the walk reaches the auto threshold; true when rg ruled the file out. */
  ruledOut(f: WalkFile): boolean {
    if (this.rg && !this.pre && this.res.filesVisited === (this.req.autoRgAfterFiles ?? AUTO_RG_AFTER_FILES)) void this.start();
    return this.pre?.noMatch(f.relToStart) ?? false;
  }

  stop(): void {
    this.pre?.stop();
  }
}

function emptyResult(): SearchResult {
  return {
    lines: [], isMatch: [], matches: 0, filesWithMatches: 0, shown: 0, filesSearched: 0, filesVisited: 0, stop: null, outputBytes: 0,
    oversize: skipped(), binary: skipped(), unreadable: skipped(), unreadableDirs: skipped(),
    ignoredDirs: 0, ignoredFiles: 0, ignoredDirSamples: [], notIncluded: 0, engine: 'builtin', rgRuledOut: 0,
  };
}

/**
 * Search the tree (or one file) and return formatted lines plus every count the notes need.
 * Throws only when aborted (ctx.signal); unreadable files and folders are counted, not thrown.
 * The first files are searched here; a search that goes on past WORKERS_AFTER_FILES hands the
 * reading and matching to worker threads (parallel.ts) while this thread walks and assembles.
 */
export async function search(req: SearchRequest): Promise<SearchResult> {
  const res = emptyResult();
  const pool = scanState();
  const rules = req.startIsFile ? null : new IgnoreRules(req.workspace, req.startRel, req.ignoreEnv, req.guard);
  const files: Iterator<WalkFile> = rules
    ? new SortedWalk(rules, rules.start, req.startAbs, { unlisted: res.unreadableDirs })
    : [{ abs: req.startAbs, rel: req.startRel, relToStart: '', name: req.startRel.slice(req.startRel.lastIndexOf('/') + 1) }][Symbol.iterator]();
  const rg = new RgSide(req, rules, res);
  if (rg.rg && req.engine === 'rg') await rg.start();
  try {
    await searchFiles(req, res, rules, files, rg, pool);
  } finally {
    rg.stop();
    endScan(pool);
  }
  if (rules) {
    res.ignoredDirs = rules.stats.dirs;
    res.ignoredFiles = rules.stats.files;
    res.ignoredDirSamples = rules.stats.dirSamples;
    res.withheld = rules.stats.withheld;
  }
  return res;
}

/** The walk on this thread, in time slices: admit, let rg rule out, scan and take each file; a long walk goes on with the workers. */
async function searchFiles(req: SearchRequest, res: SearchResult, rules: IgnoreRules | null, files: Iterator<WalkFile>, rg: RgSide, pool: ScanState): Promise<void> {
  const workersAfter = req.workersAfterFiles ?? WORKERS_AFTER_FILES;
  const mayUseWorkers = !rg.rg && rules !== null && req.pattern.spec !== undefined && req.workers !== false;
  let sliceStart = performance.now();
  for (let it = files.next(); !it.done; it = files.next()) {
    const f = it.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
    if (req.signal.aborted) throw new Error('aborted');
    const a = admit(req, res, rules, f);
    if (a === 'skip') continue;
    if (a === 'stop') return;
    if (rg.ruledOut(f)) {
      res.filesSearched++;
      res.rgRuledOut++;
      continue;
    }
    if (take(req, res, f, scanFile(f.abs, req, pool))) return;
    if (mayUseWorkers && res.filesVisited >= workersAfter) {
      // a long search: the rest of the walk goes to the worker threads (none when they cannot start)
      if (await searchRest(req, res, rules, files, pool)) return;
    }
  }
}
