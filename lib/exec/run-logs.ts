import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { CombinedLog, closeLog } from './combined-log';
import { LiveBatcher } from './live';
import { LogFile } from './log-file';
import { PipeGate } from './log-gate';
import { HeadTailCapture } from './ring';
import type { RunOptions, StreamName } from './run-types';

/**
 * Where one run's bytes go: per stream a head+tail capture, its own log file, live batches for the
 * page and a gate that pauses the pipe while a log is full; plus one combined log of both streams
 * (combined-log.ts: a hard link to the one stream that printed, until both have).
 */

export { closeLog } from './combined-log';

export const STREAMS = ['stdout', 'stderr'] as const;

/**
 * each log's write buffer: a pipe pauses while any log it feeds holds more than this, and resumes once
 * that log has written it all. Several batches deep, so a write the thread pool is slow to finish
 * seldom stops the pipe (at 1 MiB, two batches, a gigabyte of output paused it over a hundred times).
 */
export const LOG_HIGH_WATER_BYTES = 4 * 1024 * 1024;

export interface LogPaths {
  logPaths: Record<StreamName, string>;
  combinedLogPath: string;
}

/** The three log paths of a run started at `startedAt`, named by time and id so they sort and never collide. */
export function logPathsFor(logDir: string, id: string, startedAt: number): LogPaths {
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  return {
    logPaths: {
      stdout: path.join(logDir, `${stamp}-${id}.stdout.log`),
      stderr: path.join(logDir, `${stamp}-${id}.stderr.log`),
    },
    combinedLogPath: path.join(logDir, `${stamp}-${id}.log`),
  };
}

/** Make the log folder; the error's message when it cannot be made (the capture is then all there is). */
export function makeLogDir(logDir: string): string | undefined {
  try {
    fs.mkdirSync(logDir, { recursive: true });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export interface Sink {
  capture: HeadTailCapture;
  log: LogFile | null;
  live: LiveBatcher | null;
  gate: PipeGate | null;
}

/**
 * The sinks of one run and the reader of its pipes. Every chunk goes, synchronously and in order, to
 * the capture, the live batcher, the caller's onData, its own log and the combined log; the logs'
 * backpressure pauses the pipe (the disk sets the pace, never memory).
 */
export class RunSinks {
  readonly streams = {} as Record<StreamName, Sink>;
  /** one log with both streams, chunk by chunk as they arrive; its failure leaves the per-stream logs alone */
  private combined: CombinedLog | null = null;
  /** the first per-stream log failure (disk full …) */
  logError: string | undefined;
  private readonly holdKey = {};

  constructor(private readonly o: RunOptions, paths: LogPaths, writeLogs: boolean, logError: string | undefined) {
    this.logError = logError;
    for (const name of STREAMS) {
      const live = o.onOutput
        ? new LiveBatcher((text) => o.onOutput!(name, text), o.progressIntervalMs ?? 50, o.progressMaxBytes ?? 16 * 1024)
        : null;
      const sink: Sink = { capture: new HeadTailCapture(o.captureMaxBytes), log: null, live, gate: null };
      this.streams[name] = sink;
      if (writeLogs) sink.log = this.openOwn(sink, paths.logPaths[name]);
    }
    if (writeLogs) {
      this.combined = new CombinedLog(paths.combinedLogPath, {
        streamLog: (name) => this.streams[name].log,
        streamPath: (name) => paths.logPaths[name],
        printed: (name) => this.streams[name].capture.totalBytes,
        hold: (name) => this.streams[name].gate?.hold(this.holdKey),
        release: () => STREAMS.forEach((n) => this.streams[n].gate?.release(this.holdKey)),
        write: (name, log, chunk) => {
          const gate = this.streams[name].gate;
          if (gate) gate.write(log, chunk);
          else log.write(chunk);
        },
        open: (file) => this.openCombined(file),
      });
    }
  }

  private openCombined(file: string): LogFile {
    // opened now: the combined log renames its file right after
    const log = new LogFile(fs.openSync(file, 'w'), { highWaterMark: LOG_HIGH_WATER_BYTES });
    log.on('error', () => {
      this.combined?.failed(log);
      for (const name of STREAMS) this.streams[name]?.gate?.release(log); // never leave a pipe paused on a dead log
    });
    return log;
  }

  /** The stream's log, created now (synchronously, so the combined log can link to it); null when it cannot be. */
  private openOwn(sink: Sink, file: string): LogFile | null {
    let fd: number;
    try {
      fd = fs.openSync(file, 'w');
    } catch (err) {
      this.logError ??= err instanceof Error ? err.message : String(err);
      return null;
    }
    const log = new LogFile(fd, { highWaterMark: LOG_HIGH_WATER_BYTES });
    log.on('error', (err) => {
      this.logError ??= err.message;
      sink.log = null;
      sink.gate?.release(log); // never leave a pipe paused on a dead log
    });
    return log;
  }

  /** Start draining one pipe now, before anything else can fill it. */
  read(name: StreamName, pipe: Readable | null | undefined): void {
    if (!pipe) return;
    const sink = this.streams[name];
    const gate = (sink.gate = new PipeGate(pipe));
    const onData = this.o.onData;
    pipe.on('error', () => undefined);
    pipe.on('data', (chunk: Buffer) => {
      sink.capture.push(chunk);
      sink.live?.push(chunk);
      if (onData) {
        try {
          onData(name, chunk);
        } catch {
          // a consumer's bug must not stop the draining
        }
      }
      // backpressure from the disk, not from memory: the child waits on its pipe while the logs catch up
      gate.write(sink.log, chunk);
      this.combined?.push(name, chunk);
    });
  }

  /** Flush live output and close every log; resolves once all file descriptors are closed. */
  async close(): Promise<void> {
    // a split of the combined log copies a stream's log: let it finish before that log ends
    await this.combined?.settled();
    await Promise.all(
      STREAMS.map(async (name) => {
        const s = this.streams[name];
        s.live?.end();
        if (s.log) await closeLog(s.log);
      }),
    );
    if (this.combined) await this.combined.close();
  }

  bytes(): Record<StreamName, number> {
    return { stdout: this.streams.stdout.capture.totalBytes, stderr: this.streams.stderr.capture.totalBytes };
  }
}
