/**
 * The rest of a long search on worker threads: this thread walks on (the walk's checks and counts
 * are its own, in path order) and sends the files in batches to the scan pool; the answers come back
 * per batch and are added in path order by the same `take` as on the main thread, so the output is
 * the built-in result exactly. Counts the walk ran ahead with are wound back to the file a search
 * stops at. A batch the pool cannot answer is scanned here.
 */
import type { SearchRequest, SearchResult } from './engine';
import { admit, take } from './collect';
import type { IgnoreRules } from './ignore';
import { scanFile, type Scan, type ScanState } from './scan';
import type { WalkFile } from './walk';
import { scanPool, type ScanWire } from './scan-pool';

/** Files per job sent to a worker. */
const BATCH_FILES = 256;
/** Jobs in flight per worker before the walk waits for the oldest answer. */
const INFLIGHT_PER_WORKER = 3;
/** Text of matching files one job sends back before it leaves the rest of its batch to this thread. */
const BATCH_TEXT_BYTES = 4 * 1024 * 1024;

interface Admitted {
  f: WalkFile;
  /** the walk's counts right after this file was admitted, to wind back to if the search stops here */
  visited: number;
  notIncluded: number;
  ignoredDirs: number;
  ignoredFiles: number;
  ignoredSamples: number;
}

interface Batch {
  files: Admitted[];
  /** the worker's answers, or null when the pool could not answer (this thread scans the batch) */
  answer: Promise<ScanWire[] | null>;
}

function fromWire(w: ScanWire): Scan | null {
  if (w === 0) return { kind: 'none' };
  if (w === 1) return { kind: 'oversize' };
  if (w === 2) return { kind: 'unreadable' };
  if (w === 3) return null;
  return { kind: w[0] ? 'binary' : 'text', text: w[1], hits: w[2] };
}

/** The walk's counts right after `f` was admitted. */
function admitted(f: WalkFile, res: SearchResult, rules: IgnoreRules): Admitted {
  return { f, visited: res.filesVisited, notIncluded: res.notIncluded, ignoredDirs: rules.stats.dirs, ignoredFiles: rules.stats.files, ignoredSamples: rules.stats.dirSamples.length };
}

/** The walk ran ahead of the file the search stopped at: its counts go back to where they were then. */
function windBack(a: Admitted, res: SearchResult, rules: IgnoreRules): void {
  res.filesVisited = a.visited;
  res.notIncluded = a.notIncluded;
  rules.stats.dirs = a.ignoredDirs;
  rules.stats.files = a.ignoredFiles;
  rules.stats.dirSamples.length = Math.min(rules.stats.dirSamples.length, a.ignoredSamples);
}

/** One search's files in batches: the one being filled, and those sent to the pool whose answers are awaited in order. */
class Batches {
  private inflight: Batch[] = [];
  private batch: Admitted[] = [];
  private readonly maxInflight: number;

  constructor(
    private readonly pool: NonNullable<ReturnType<typeof scanPool>>,
    private readonly req: SearchRequest,
    private readonly res: SearchResult,
    private readonly rules: IgnoreRules,
    private readonly buf: ScanState,
  ) {
    this.maxInflight = Math.max(2, pool.size * INFLIGHT_PER_WORKER);
  }

  /** Add an admitted file, sending a full batch; true when so many are in flight that the walk should wait for the oldest. */
  add(a: Admitted): boolean {
    this.batch.push(a);
    if (this.batch.length < BATCH_FILES) return false;
    this.send();
    return this.inflight.length >= this.maxInflight;
  }

  /** Add the oldest batch's answers in order; true when the search stops in it. */
  async drainOne(): Promise<boolean> {
    const { req, res } = this;
    const b = this.inflight.shift()!;
    const answers = await b.answer;
    if (req.signal.aborted) throw new Error('aborted');
    for (let i = 0; i < b.files.length; i++) {
      const a = b.files[i];
      const scan = (answers && fromWire(answers[i])) ?? scanFile(a.f.abs, req, this.buf);
      if (take(req, res, a.f, scan)) {
        windBack(a, res, this.rules);
        return true;
      }
    }
    return false;
  }

  /** Send the last batch and add every answer in order; true when the search stops in one. */
  async drainAll(): Promise<boolean> {
    this.send();
    while (this.inflight.length > 0) if (await this.drainOne()) return true;
    return false;
  }

  /** Answers still on their way are dropped (their promises never reject). */
  drop(): void {
    this.inflight.length = 0;
  }

  private send(): void {
    if (this.batch.length === 0) return;
    const { req } = this;
    const list = this.batch;
    this.batch = [];
    const answer = this.pool
      .run({ files: list.map((a) => a.f.abs), spec: req.pattern.spec!, maxFileBytes: req.maxFileBytes, sniffBytes: req.sniffBytes, maxTextBytes: BATCH_TEXT_BYTES })
      .catch(() => null);
    this.inflight.push({ files: list, answer });
  }
}

/**
 * Walk on, admitting files into batches and waiting for the oldest answer when too many are in flight.
 * 'taken': the search stopped in an answer (res.stop says why); else the walk's own stop, null at its end.
 */
async function walkAhead(req: SearchRequest, res: SearchResult, rules: IgnoreRules, files: Iterator<WalkFile>, batches: Batches): Promise<'taken' | SearchResult['stop']> {
  for (;;) {
    const it = files.next();
    if (it.done) return null;
    if (req.signal.aborted) throw new Error('aborted');
    const a = admit(req, res, rules, it.value);
    if (a === 'skip') continue;
    if (a === 'stop') {
      // the files admitted before it are still to be taken: the walk's stop holds only if none of them stops the search
      const walkStop = res.stop;
      res.stop = null;
      return walkStop;
    }
    if (batches.add(admitted(it.value, res, rules)) && (await batches.drainOne())) return 'taken';
  }
}

/**
 * Search what is left of `files` with the worker threads. Returns false, having done nothing, when
 * the pool cannot start (the caller goes on alone); true once the search is complete or stopped.
 * Throws only when aborted.
 */
export async function searchRest(
  req: SearchRequest,
  res: SearchResult,
  rules: IgnoreRules,
  files: Iterator<WalkFile>,
  buf: ScanState,
): Promise<boolean> {
  const pool = scanPool();
  if (!pool || pool.size === 0) return false;
  res.engine = 'builtin+workers';
  const batches = new Batches(pool, req, res, rules, buf);
  try {
    const walked = await walkAhead(req, res, rules, files, batches);
    if (walked === 'taken' || (await batches.drainAll())) {
      files.return?.();
      return true;
    }
    res.stop = walked;
    return true;
  } finally {
    batches.drop();
  }
}
