import type fs from 'node:fs';
import type { Readable } from 'node:stream';

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
  write(log: fs.WriteStream | null, chunk: Buffer): void {
    if (!log || log.write(chunk) || this.waiting.has(log)) return;
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
