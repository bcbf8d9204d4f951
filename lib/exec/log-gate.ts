import type fs from 'node:fs';
import type { Readable } from 'node:stream';

/**
 * Disk backpressure for one pipe that writes to several logs (its own and the combined one).
 * The pipe pauses while ANY of its logs is over its highWaterMark and resumes only when all of
 * them have drained, so memory stays bounded by the logs' buffers whichever log is slow.
 */
export class PipeGate {
  private readonly waiting = new Set<fs.WriteStream>();

  constructor(private readonly pipe: Readable) {}

  /** Write a chunk to a log (null: no log, nothing to do); pause the pipe when the log is full. */
  write(log: fs.WriteStream | null, chunk: Buffer): void {
    if (!log || log.write(chunk) || this.waiting.has(log)) return;
    this.waiting.add(log);
    this.pipe.pause();
    log.once('drain', () => this.release(log));
  }

  /** Stop waiting for a log (it drained, or it died and will never drain); resume once none is left. */
  release(log: fs.WriteStream): void {
    if (!this.waiting.delete(log)) return;
    if (this.waiting.size === 0) this.pipe.resume();
  }
}
