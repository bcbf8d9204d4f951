import fs from 'node:fs';
import { Writable } from 'node:stream';
import { CopyPages } from './log-pages';

/**
 * A command's log file: written in order at its end, like fs.WriteStream (write() returns false past
 * highWaterMark, 'drain', 'close' once the descriptor is closed), and a zero-length write is a flush.
 * write() copies the chunk (into pages the log reuses once they are written): the caller may reuse
 * its buffer as soon as write() returns, as the pipe reader does (fifo.ts).
 *
 * Once a log has taken DIRECT_AFTER_BYTES, the rest goes past the page cache (O_DIRECT, in whole
 * blocks from page-aligned memory, written one after the other while the next ones fill). A command that prints
 * gigabytes then neither fills the machine's file cache with its log (evicting what the person's
 * tools had cached) nor spends the CPU time of filling it: on a 2-core VM whose fresh memory is
 * expensive, filling the cache cost about 1.9 s of system time per gigabyte against 0.1 s direct.
 * What has not made a whole block yet is written through the cache when the output pauses for
 * DIRECT_IDLE_FLUSH_MS, at a flush and at the end, so a reader sees every byte soon after it came.
 * Where direct I/O cannot be had (no O_DIRECT, the file system refuses it, no aligned memory) or the
 * disk keeps the output waiting most of the time, the log goes on through the cache.
 */

/** bytes a log takes through the page cache before it goes direct (most commands never print this much) */
export const DIRECT_AFTER_BYTES = 8 * 1024 * 1024;
/** one direct write; a multiple of every block and page size */
export const DIRECT_BLOCK_BYTES = 256 * 1024;
/** the offset alignment of direct writes: file offsets are multiples of this */
const DIRECT_ALIGN_BYTES = 4096;
/** a partial block is written through the cache once the output has paused this long */
export const DIRECT_IDLE_FLUSH_MS = 20;
/**
 * Direct writing ends for a log whose last DIRECT_SLOW_WINDOW_BYTES went slower than
 * DIRECT_SLOW_BYTES_PER_S while the output waited for the disk most of that time: such a disk (a USB
 * drive, a network file system), not the command, would set the pace, where the page cache takes the
 * bytes at once. A busy spell of a fast disk (ext4 freeing a big file: 150 MiB/s for a while here)
 * does not end it; on this kind of machine the cache is no faster then.
 */
export const DIRECT_SLOW_WINDOW_BYTES = 16 * 1024 * 1024;
const DIRECT_SLOW_BYTES_PER_S = 32 * 1024 * 1024;
const DIRECT_SLOW_WAIT_SHARE = 0.5;
/** blocks per log writing direct: the output fills one while the ones before it wait their turn on the disk */
const DIRECT_BLOCKS = 4;
/** logs writing direct at once; the others go through the cache (each holds DIRECT_BLOCKS blocks of memory) */
const DIRECT_MAX_LOGS = 4;

/** Bytes every log of this process has written, by path (for benchmarks and probes). */
const written = { directBytes: 0, cacheBytes: 0 };

/** A copy of the bytes written direct and through the cache by every log of this process so far. */
export function logWriteTotals(): { directBytes: number; cacheBytes: number } {
  return { ...written };
}

/** Page-aligned blocks, DIRECT_BLOCKS per log (WebAssembly memory starts on a page), made on first need and reused. */
const freeSets: Buffer[][] = [];
let setsMade = 0;

function takeBlocks(): Buffer[] | null {
  const free = freeSets.pop();
  if (free) return free;
  if (setsMade >= DIRECT_MAX_LOGS) return null;
  try {
    const pages = (DIRECT_BLOCKS * DIRECT_BLOCK_BYTES) / 65536;
    const mem = new WebAssembly.Memory({ initial: pages, maximum: pages });
    setsMade++;
    return Array.from({ length: DIRECT_BLOCKS }, (_, i) => Buffer.from(mem.buffer, i * DIRECT_BLOCK_BYTES, DIRECT_BLOCK_BYTES));
  } catch {
    return null;
  }
}

const write = (fd: number, buf: Buffer, len: number, at: number, how: keyof typeof written = 'cacheBytes') =>
  new Promise<void>((resolve, reject) => {
    let done = 0;
    const step = () =>
      fs.write(fd, buf, done, len - done, at + done, (err, n) => {
        if (err) return reject(err);
        done += n;
        if (done < len && n === 0) return reject(new Error(`the file took no more bytes (${done} of ${len} written)`));
        if (done < len) return step();
        written[how] += done;
        resolve();
      });
    step();
  });

async function writev(fd: number, bufs: Buffer[], at: number): Promise<void> {
  const n = await new Promise<number>((resolve, reject) => fs.writev(fd, bufs, at, (err, wrote) => (err ? reject(err) : resolve(wrote))));
  written.cacheBytes += n;
  const total = bufs.reduce((sum, b) => sum + b.length, 0);
  // a short write (rare on regular files): the rest in one piece
  if (n < total) await write(fd, Buffer.concat(bufs).subarray(n), total - n, at + n);
}

interface Direct {
  fd: number;
  blocks: Buffer[];
  /** the block being filled */
  cur: number;
  /** bytes of it filled, and how many of those are already in the file (through the cache) */
  fill: number;
  inFile: number;
  /** the file offset of its first byte */
  start: number;
  /** the direct writes, one after the other: settles once every block sent so far is in the file */
  sent: Promise<void>;
  /** per block, the write that still reads it */
  busy: Array<Promise<void> | null>;
  /** the current window: when it began, blocks sent and milliseconds waited in it */
  window: { since: number; blocks: number; waitedMs: number };
  /** direct writing failed or is slow: the log leaves it at the next chance */
  leave: boolean;
}

export class LogFile extends Writable {
  /** bytes taken so far (the file's length once everything is written) */
  private pos = 0;
  private direct: Direct | null = null;
  /** direct writing was tried (or cannot be): the log stays in the cache */
  private cacheOnly: boolean;
  /** every file operation, one after the other */
  private chain: Promise<void> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  /** what write() copies chunks into */
  private readonly pages: CopyPages;

  constructor(
    private readonly fd: number,
    opts: { highWaterMark: number; direct?: boolean },
  ) {
    super({ highWaterMark: opts.highWaterMark, decodeStrings: true });
    this.pages = new CopyPages(opts.highWaterMark);
    this.cacheOnly = opts.direct === false || fs.constants.O_DIRECT === undefined || process.platform !== 'linux';
  }

  private queue(op: () => Promise<void>): Promise<void> {
    const next = this.chain.then(op);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Queue a copy of the chunk (a view of pages the log owns); returns what Writable.write returns. */
  override write(chunk: unknown, encOrCb?: unknown, cb?: unknown): boolean {
    type W = (c: unknown, e?: unknown, f?: unknown) => boolean;
    const write = super.write.bind(this) as W;
    if (!(chunk instanceof Uint8Array) || chunk.length === 0) return write(chunk, encOrCb, cb);
    const done = typeof encOrCb === 'function' ? encOrCb : cb;
    let ok = true;
    for (let off = 0; off < chunk.length; ) {
      const view = this.pages.copy(chunk, off);
      off += view.length;
      ok = off < chunk.length || typeof done !== 'function' ? write(view) : write(view, done);
    }
    return ok;
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, cb: (err?: Error | null) => void): void {
    clearTimeout(this.idle);
    const bufs = chunks.map((c) => c.chunk);
    this.queue(() => this.take(bufs)).then(() => {
      this.pages.release(bufs);
      if (this.direct) {
        this.idle = setTimeout(() => void this.queue(() => this.writePartial()).catch((err) => this.destroy(err)), DIRECT_IDLE_FLUSH_MS);
        this.idle.unref();
      }
      cb();
    }, cb);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this._writev([{ chunk }], cb);
  }

  private async take(bufs: Buffer[]): Promise<void> {
    if (!this.direct && !this.cacheOnly && this.pos >= DIRECT_AFTER_BYTES) await this.goDirect();
    let i = 0;
    for (; i < bufs.length && this.direct; i++) {
      if (this.direct.leave) {
        await this.leaveDirect();
        break;
      }
      await this.stage(bufs[i]!);
    }
    if (this.direct) {
      // a zero-length write asks for everything before it to be in the file
      if (bufs.some((b) => b.length === 0)) await this.writePartial();
      return;
    }
    const rest = bufs.slice(i).filter((b) => b.length > 0);
    if (rest.length) await writev(this.fd, rest, this.pos);
    for (const b of rest) this.pos += b.length;
  }

  /** Start writing direct: a second descriptor of the same file with O_DIRECT, the partial page read back into the first block. */
  private async goDirect(): Promise<void> {
    this.cacheOnly = true; // tried once per log, whatever comes of it
    const blocks = takeBlocks();
    if (!blocks) return;
    let fd: number | undefined;
    try {
      // the same file whatever its name is now (a combined log is renamed into place)
      fd = fs.openSync(`/proc/self/fd/${this.fd}`, fs.constants.O_WRONLY | fs.constants.O_DIRECT);
      const start = this.pos - (this.pos % DIRECT_ALIGN_BYTES);
      const partial = this.pos - start;
      if (partial > 0) {
        const rd = fs.openSync(`/proc/self/fd/${this.fd}`, 'r');
        try {
          if (fs.readSync(rd, blocks[0]!, 0, partial, start) !== partial) throw new Error('short read');
        } finally {
          fs.closeSync(rd);
        }
      }
      const window = { since: performance.now(), blocks: 0, waitedMs: 0 };
      this.direct = { fd, blocks, cur: 0, fill: partial, inFile: partial, start, sent: Promise.resolve(), busy: blocks.map(() => null), window, leave: false };
    } catch {
      if (fd !== undefined) fs.closeSync(fd);
      freeSets.push(blocks);
    }
  }

  private async stage(b: Buffer): Promise<void> {
    let i = 0;
    while (i < b.length) {
      const d = this.direct!;
      const n = Math.min(b.length - i, DIRECT_BLOCK_BYTES - d.fill);
      b.copy(d.blocks[d.cur]!, d.fill, i, i + n);
      d.fill += n;
      i += n;
      this.pos += n;
      if (d.fill === DIRECT_BLOCK_BYTES) await this.sendBlock();
      if (d.leave && i < b.length) {
        await this.leaveDirect();
        const rest = b.subarray(i);
        await write(this.fd, rest, rest.length, this.pos);
        this.pos += rest.length;
        return;
      }
    }
  }

  /** The full block joins the direct writes (one at a time, in order) and the next free block starts filling. */
  private async sendBlock(): Promise<void> {
    const d = this.direct!;
    const k = d.cur;
    const block = d.blocks[k]!;
    const at = d.start;
    if (d.leave) {
      // refused or slow: this block goes through the cache, and the log leaves direct writing right after
      await d.sent;
      await write(this.fd, block, DIRECT_BLOCK_BYTES, at);
    } else {
      const sending = d.sent.then(() => this.sendDirect(d, block, at));
      // awaited later (a block's reuse, a flush, the end); a failure meanwhile must not count as unhandled
      sending.catch(() => undefined);
      d.sent = d.busy[k] = sending;
    }
    d.cur = (k + 1) % d.blocks.length;
    d.start += DIRECT_BLOCK_BYTES;
    d.fill = 0;
    d.inFile = 0;
    const next = d.busy[d.cur];
    if (next) {
      // the main thread is idle while it waits here: the disk is behind by every other block
      const t = performance.now();
      await next;
      d.window.waitedMs += performance.now() - t;
      d.busy[d.cur] = null;
    }
    if (++d.window.blocks * DIRECT_BLOCK_BYTES >= DIRECT_SLOW_WINDOW_BYTES) {
      const now = performance.now();
      const ms = now - d.window.since;
      const slow = (d.window.blocks * DIRECT_BLOCK_BYTES) / (ms / 1000) < DIRECT_SLOW_BYTES_PER_S;
      if (slow && d.window.waitedMs > DIRECT_SLOW_WAIT_SHARE * ms) d.leave = true;
      d.window = { since: now, blocks: 0, waitedMs: 0 };
    }
  }

  private async sendDirect(d: Direct, block: Buffer, at: number): Promise<void> {
    // a block queued before a refusal is written the way the ones after it will be
    if (d.leave) return write(this.fd, block, DIRECT_BLOCK_BYTES, at);
    try {
      await write(d.fd, block, DIRECT_BLOCK_BYTES, at, 'directBytes');
    } catch {
      // refused (EINVAL: alignment the file system wants but memory or offsets lack …): the same bytes through the cache
      d.leave = true;
      await write(this.fd, block, DIRECT_BLOCK_BYTES, at);
    }
  }

  /** Bytes of the block being filled that the file lacks go through the cache (the block's direct write rewrites them later). */
  private async writePartial(): Promise<void> {
    const d = this.direct;
    if (!d) return;
    await d.sent;
    if (d.fill > d.inFile) {
      await write(this.fd, d.blocks[d.cur]!.subarray(d.inFile, d.fill), d.fill - d.inFile, d.start + d.inFile);
      d.inFile = d.fill;
    }
  }

  /** Everything staged reaches the file; then the log writes through the cache. */
  private async leaveDirect(): Promise<void> {
    const d = this.direct;
    if (!d) return;
    await this.writePartial();
    this.direct = null;
    fs.close(d.fd, () => undefined);
    freeSets.push(d.blocks);
  }

  override _final(cb: (err?: Error | null) => void): void {
    clearTimeout(this.idle);
    this.queue(() => this.leaveDirect()).then(() => cb(), cb);
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    clearTimeout(this.idle);
    // a write still running reads its block: the pair goes back to the pool after it
    void this.chain.then(async () => {
      const d = this.direct;
      this.direct = null;
      if (d) {
        await d.sent.catch(() => undefined);
        fs.close(d.fd, () => undefined);
        freeSets.push(d.blocks);
      }
      fs.close(this.fd, (closeErr) => cb(err ?? closeErr));
    });
  }
}
