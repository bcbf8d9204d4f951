/**
 * A small pool of worker threads that scan files for grep while the main thread walks the tree and
 * puts the answers together in path order. Started on first use (a search that outlasts its first
 * slice) and kept for the process's life. A worker holds the process open only while it has jobs
 * (the search awaits them); idle, it is unref'd, so a process that has grepped exits when its own work
 * is done. Any failure (a worker that cannot start or dies) rejects the jobs it held: the caller scans
 * those files itself.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { SCAN_WORKER_SOURCE } from './scan-worker-source';

/** What a worker needs to rebuild the pattern (no closures cross threads). */
export interface ScanSpec {
  /** per-line RegExp source and flags, or null for a plain substring test */
  regex: string | null;
  flags: string;
  /** the substring of the plain test (regex null) */
  includes: string;
  /** bytes every matching line contains (the prefilter), as text */
  literalBytes: string | null;
  /** whole-file RegExp source and flags, or null */
  whole: string | null;
  wholeFlags: string;
}

/** One file's answer: 0 none, 1 oversize, 2 unreadable, 3 not scanned (scan it yourself), or [binary, text, hits]. */
export type ScanWire = 0 | 1 | 2 | 3 | [boolean, string, number[]];

export interface ScanJob {
  files: string[];
  spec: ScanSpec;
  maxFileBytes: number;
  sniffBytes: number;
  /** text of matching files a job may send back before it leaves the rest to the caller */
  maxTextBytes: number;
}

interface Slot {
  worker: Worker;
  /** jobs sent and not answered */
  busy: number;
}

type Pending = { resolve: (r: ScanWire[]) => void; reject: (e: Error) => void; slot: Slot };

class ScanPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(SCAN_WORKER_SOURCE, { eval: true });
    const slot: Slot = { worker, busy: 0 };
    worker.on('message', (m: { id: number; results: ScanWire[] }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      this.done(slot);
      p.resolve(m.results);
    });
    const fail = (err: Error) => {
      for (const [id, p] of this.pending) {
        if (p.slot !== slot) continue;
        this.pending.delete(id);
        this.done(slot);
        p.reject(err);
      }
      const i = this.slots.indexOf(slot);
      if (i !== -1) this.slots.splice(i, 1);
      if (this.slots.length === 0 && pool === this) pool = null;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`grep's scan worker exited (${code})`)));
    // idle from the start; after the listeners, since adding a 'message' listener refs the worker's port again
    worker.unref();
    return slot;
  }

  /** A job sent: a worker with work holds the process open until it answers. */
  private started(slot: Slot): void {
    if (slot.busy++ === 0) slot.worker.ref();
  }

  /** A job answered (or never sent): an idle worker lets the process exit. */
  private done(slot: Slot): void {
    if (--slot.busy === 0) slot.worker.unref();
  }

  get size(): number {
    return this.slots.length;
  }

  /** Scan files on the least busy worker; rejects when the pool cannot (the caller then scans them). */
  run(job: ScanJob): Promise<ScanWire[]> {
    const slot = this.slots.reduce<Slot | undefined>((best, s) => (!best || s.busy < best.busy ? s : best), undefined);
    if (!slot) return Promise.reject(new Error('no scan worker'));
    const id = this.nextId++;
    this.started(slot);
    return new Promise<ScanWire[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot });
      try {
        slot.worker.postMessage({ id, ...job });
      } catch (err) {
        this.pending.delete(id);
        this.done(slot);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }
}

let pool: ScanPool | null = null;
let broken = false;

/** Worker threads in the pool: one per core, two at least, four at most. */
export function scanPoolSize(): number {
  return Math.min(4, Math.max(2, os.availableParallelism()));
}

/** The process's scan pool, started now if needed; null where worker threads cannot start. */
export function scanPool(): ScanPool | null {
  if (pool || broken) return pool;
  try {
    pool = new ScanPool(scanPoolSize());
  } catch {
    broken = true;
    pool = null;
  }
  return pool;
}
