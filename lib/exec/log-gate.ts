import type { Readable, Writable } from 'node:stream';

/**
 * Disk backpressure for one pipe that writes to several logs (its own and the combined one).
 * The pipe pauses while ANY of its logs is over its highWaterMark and resumes only when all of
 * them have drained, so memory stays bounded by the logs' buffers whichever log is slow.
 */
export class PipeGate {
  /** what the pipe waits for: full logs, and holds (a log being copied) */
  private readonly waiting = new Set<object>();

  constructor(private readonly pipe: Readable) {}

  /** Write a chunk to a log (null: no log, nothing to do); pause the pipe when the log is full. */
  write(log: Writable | null, chunk: Buffer): void {
    if (!log || batchedWrite(log, chunk) || this.waiting.has(log)) return;
    // the pipe waits for the disk: what the batch holds goes now
    flushBatch(log);
    this.waiting.add(log);
    this.pipe.pause();
    log.once('drain', () => this.release(log));
  }

  /** Pause the pipe until release(key), whatever the logs say. */
  hold(key: object): void {
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.pipe.pause();
  }

  /** Stop waiting for a log (it drained, or it died and will never drain) or a hold; resume once none is left. */
  release(key: object): void {
    if (!this.waiting.delete(key)) return;
    if (this.waiting.size === 0) this.pipe.resume();
  }
}

/**
 * A log's writes within LOG_BATCH_MS of the first (or until LOG_BATCH_MAX_BYTES wait) reach the file
 * in one write (the stream is corked meanwhile) instead of one write per pipe read: a command that
 * prints fast costs a fraction of the system calls and thread-pool round trips.
 */
export const LOG_BATCH_MS = 5;
const LOG_BATCH_MAX_BYTES = 512 * 1024;

const batches = new WeakMap<Writable, { bytes: number; timer: NodeJS.Timeout }>();

/** log.write(chunk) within the log's current batch; returns what log.write returns (false: over its highWaterMark). */
export function batchedWrite(log: Writable, chunk: Buffer): boolean {
  let batch = batches.get(log);
  if (!batch) {
    log.cork();
    batch = { bytes: 0, timer: setTimeout(() => flushBatch(log), LOG_BATCH_MS) };
    batches.set(log, batch);
  }
  batch.bytes += chunk.length;
  const ok = log.write(chunk);
  if (batch.bytes >= LOG_BATCH_MAX_BYTES) flushBatch(log);
  return ok;
}

/** Send what the log's batch holds to the file now (before waiting for its writes, or ending it). */
export function flushBatch(log: Writable): void {
  const batch = batches.get(log);
  if (!batch) return;
  batches.delete(log);
  clearTimeout(batch.timer);
  log.uncork();
}
