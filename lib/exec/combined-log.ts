import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { flushBatch } from './log-gate';
import type { LogFile } from './log-file';
import type { StreamName } from './run-types';

/**
 * The combined log of one run (both streams in arrival order) without writing every byte twice.
 *
 * Most commands print to one stream only, and then the combined log is byte for byte that stream's
 * log. So it starts as a hard link to the stdout log (relinked to stderr if stderr speaks first):
 * the file exists from the start, live readers see it grow, and no byte is written twice. When the
 * second stream first prints, the combined log becomes a file of its own: the first stream's bytes
 * so far are copied from its log, while the chunks that keep coming wait in memory in arrival order
 * (past SPLIT_QUEUE_MAX_BYTES the stream that adds more is paused), then are appended as they came.
 * Where hard links are not possible, it is a file of its own from the start.
 */

/** Chunks held in memory while the combined log is being split off; past it the pipe that adds more waits. */
const SPLIT_QUEUE_MAX_BYTES = 1024 * 1024;

type State =
  /** a hard link to `to`'s log; only `to` has printed (or nothing has) */
  | { kind: 'linked'; to: StreamName }
  /** becoming a file of its own; chunks wait in `queue` */
  | { kind: 'splitting'; queue: Array<{ name: StreamName; chunk: Buffer }>; bytes: number }
  | { kind: 'own'; log: LogFile }
  /** no combined log (it could not be made, or it failed) */
  | { kind: 'none' };

export interface CombinedLogHooks {
  /** the per-stream log of a stream (null: none, or it failed) */
  streamLog(name: StreamName): LogFile | null;
  /** the per-stream log's path */
  streamPath(name: StreamName): string;
  /** bytes a stream has printed so far */
  printed(name: StreamName): number;
  /** pause one stream's pipe (the split's queue is full) and let every held pipe go */
  hold(name: StreamName): void;
  release(): void;
  /** write a stream's chunk to a log, with backpressure into that stream's pipe (the RunSinks gate) */
  write(name: StreamName, log: LogFile, chunk: Buffer): void;
  /** open a new log file now (synchronously) with RunSinks' buffer and error handling; throws when it cannot */
  open(file: string): LogFile;
}

export class CombinedLog {
  private state: State = { kind: 'none' };
  private split: Promise<void> | null = null;

  constructor(
    private readonly file: string,
    private readonly hooks: CombinedLogHooks,
  ) {
    try {
      fs.linkSync(hooks.streamPath('stdout'), file);
      this.state = { kind: 'linked', to: 'stdout' };
    } catch {
      try {
        this.state = { kind: 'own', log: hooks.open(file) };
      } catch {
        this.state = { kind: 'none' };
      }
    }
  }

  /** The log, once it is a file of its own, stops being written when it fails. */
  failed(log: LogFile): void {
    if (this.state.kind === 'own' && this.state.log === log) this.state = { kind: 'none' };
  }

  /** A chunk stream `name` printed; call after the stream's own log got it and its byte count grew. */
  push(name: StreamName, chunk: Buffer): void {
    const s = this.state;
    if (s.kind === 'own') return this.hooks.write(name, s.log, chunk);
    if (s.kind === 'splitting') {
      // a pipe's chunk is a view of a buffer its next read overwrites
      s.queue.push({ name, chunk: Buffer.from(chunk) });
      s.bytes += chunk.length;
      if (s.bytes > SPLIT_QUEUE_MAX_BYTES) this.hooks.hold(name);
      return;
    }
    if (s.kind !== 'linked' || s.to === name) return;
    const other = s.to;
    if (this.hooks.printed(other) === 0) {
      // the other stream never printed: the combined log is this stream's so far
      this.relink(name);
      return;
    }
    this.state = { kind: 'splitting', queue: [{ name, chunk: Buffer.from(chunk) }], bytes: chunk.length };
    this.split = this.materialize(other, this.hooks.printed(other)).finally(() => this.hooks.release());
  }

  private relink(to: StreamName): void {
    const tmp = `${this.file}.link`;
    try {
      fs.rmSync(tmp, { force: true });
      fs.linkSync(this.hooks.streamPath(to), tmp);
      fs.renameSync(tmp, this.file); // atomic: a reader never finds the file missing
      this.state = { kind: 'linked', to };
    } catch {
      this.state = { kind: 'none' };
    }
  }

  /** Copy the first `bytes` of `first`'s log to a new file, append what waited, and put it in place. */
  private async materialize(first: StreamName, bytes: number): Promise<void> {
    const tmp = `${this.file}.part`;
    const log = this.hooks.streamLog(first);
    try {
      if (!log) throw new Error('the first stream has no log to copy');
      // its log keeps growing meanwhile: only the bytes printed before the other stream spoke are copied
      await flushed(log);
      const own = this.hooks.open(tmp);
      await pipeline(fs.createReadStream(this.hooks.streamPath(first), { start: 0, end: bytes - 1 }), own, { end: false });
      fs.renameSync(tmp, this.file);
      const queue = this.state.kind === 'splitting' ? this.state.queue : [];
      this.state = { kind: 'own', log: own };
      for (const q of queue) this.hooks.write(q.name, own, q.chunk);
    } catch {
      fs.rmSync(tmp, { force: true });
      this.state = { kind: 'none' };
    }
  }

  /** Resolves once no split is under way (the stream logs may then be closed). */
  async settled(): Promise<void> {
    if (this.split) await this.split;
  }

  /** Wait for a split under way, then end the log; resolves once its file descriptor is closed. */
  async close(): Promise<void> {
    await this.settled();
    if (this.state.kind === 'own') await closeLog(this.state.log);
  }
}

/** Resolves once every write queued on the log so far has reached the file. */
function flushed(log: LogFile): Promise<void> {
  return new Promise((resolve) => {
    if (log.closed || log.destroyed) return resolve();
    flushBatch(log);
    // writes complete in order: the callback of an empty write comes after all the earlier ones
    log.write(Buffer.alloc(0), () => resolve());
  });
}

/** End a log and resolve once its file descriptor is closed ('finish' comes before the close); never rejects. */
export function closeLog(log: LogFile): Promise<void> {
  return new Promise<void>((resolve) => {
    if (log.closed) return resolve();
    log.once('close', () => resolve());
    flushBatch(log);
    log.end();
  });
}
