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
  const spec = req.pattern.spec!;
  const inflight: Batch[] = [];
  const maxInflight = Math.max(2, pool.size * INFLIGHT_PER_WORKER);
  let walkStop: SearchResult['stop'] = null;
  let walking = true;
  let batch: Admitted[] = [];

  const send = () => {
    if (batch.length === 0) return;
    const list = batch;
    batch = [];
    const answer = pool
      .run({ files: list.map((a) => a.f.abs), spec, maxFileBytes: req.maxFileBytes, sniffBytes: req.sniffBytes, maxTextBytes: BATCH_TEXT_BYTES })
      .catch(() => null);
    inflight.push({ files: list, answer });
  };

  /** Add the oldest batch's answers in order; true when the search stops in it. */
  const drainOne = async (): Promise<boolean> => {
    const b = inflight.shift()!;
    const answers = await b.answer;
    if (req.signal.aborted) throw new Error('aborted');
    for (let i = 0; i < b.files.length; i++) {
      const a = b.files[i];
      const scan = (answers && fromWire(answers[i])) ?? scanFile(a.f.abs, req, buf);
      if (take(req, res, a.f, scan)) {
        // the walk ran ahead of this file: its counts go back to where the search stopped
        res.filesVisited = a.visited;
        res.notIncluded = a.notIncluded;
        rules.stats.dirs = a.ignoredDirs;
        rules.stats.files = a.ignoredFiles;
        rules.stats.dirSamples.length = Math.min(rules.stats.dirSamples.length, a.ignoredSamples);
        return true;
      }
    }
    return false;
  };

  const stopWalking = () => {
    walking = false;
    files.return?.();
  };
  try {
    while (walking) {
      const it = files.next();
      if (it.done) break;
      if (req.signal.aborted) throw new Error('aborted');
      const a = admit(req, res, rules, it.value);
      if (a === 'skip') continue;
      if (a === 'stop') {
        walkStop = res.stop;
        res.stop = null;
        break;
      }
      batch.push({ f: it.value, visited: res.filesVisited, notIncluded: res.notIncluded, ignoredDirs: rules.stats.dirs, ignoredFiles: rules.stats.files, ignoredSamples: rules.stats.dirSamples.length });
      if (batch.length >= BATCH_FILES) {
        send();
        if (inflight.length >= maxInflight && (await drainOne())) {
          stopWalking();
          return true;
        }
      }
    }
    send();
    while (inflight.length > 0) {
      if (await drainOne()) {
        stopWalking();
        return true;
      }
    }
    res.stop = walkStop;
    return true;
  } finally {
    // answers still on their way are dropped (their promises never reject)
    inflight.length = 0;
  }
}
