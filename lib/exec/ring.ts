/**
 * Bounded byte buffers for command output. Memory per stream is capped however much a command
 * prints; totals (bytes and lines) are counted for everything, kept or not, so notes can say what was cut.
 */

import { utf8End } from '../contract/text';
import { countNewlines } from './newlines';

export { countNewlines } from './newlines';

const NL = 0x0a;

/**
 * A FIFO of at most `capacity` bytes that grows on demand (a quiet command costs almost nothing).
 * Pushed bytes are copied (a pipe's chunk is a view of a buffer its next read overwrites). When a
 * push would overflow it, the oldest bytes are dropped and counted: bytes, and newlines unless
 * countDropped is false (a tail that only keeps the end: its owner counts every line already).
 */
export class ByteRing {
  private buf: Buffer;
  private start = 0;
  private len = 0;
  private readonly countDropped: boolean;

  constructor(
    readonly capacity: number,
    opts: { countDropped?: boolean } = {},
  ) {
    this.buf = Buffer.allocUnsafe(Math.min(capacity, 16 * 1024));
    this.countDropped = opts.countDropped ?? true;
  }

  get length(): number {
    return this.len;
  }

  /** Append bytes; returns what was dropped from the front to make room. */
  push(chunk: Uint8Array): { bytes: number; newlines: number } {
    const cap = this.capacity;
    const count = this.countDropped;
    if (cap <= 0) return { bytes: chunk.length, newlines: count ? countNewlines(chunk) : 0 };
    let dropped = 0;
    let droppedNl = 0;
    let data = chunk;
    if (data.length >= cap) {
      // the chunk alone fills the ring: everything held now, and the chunk's own head, go
      if (count) droppedNl += this.newlinesIn(0, this.len) + countNewlines(data, 0, data.length - cap);
      dropped += this.len + data.length - cap;
      data = data.subarray(data.length - cap);
      this.start = 0;
      this.len = 0;
    } else if (this.len + data.length > cap) {
      const over = this.len + data.length - cap;
      if (count) droppedNl += this.newlinesIn(0, over);
      dropped += over;
      this.start = (this.start + over) % this.buf.length;
      this.len -= over;
    }
    this.ensure(this.len + data.length);
    const size = this.buf.length;
    let at = (this.start + this.len) % size;
    let off = 0;
    while (off < data.length) {
      const n = Math.min(data.length - off, size - at);
      this.buf.set(data.subarray(off, off + n), at);
      off += n;
      at = (at + n) % size;
    }
    this.len += data.length;
    return { bytes: dropped, newlines: droppedNl };
  }

  /** A copy of the bytes held, oldest first. */
  peek(n = this.len): Buffer {
    const count = Math.min(n, this.len);
    const out = Buffer.allocUnsafe(count);
    const size = this.buf.length;
    const first = Math.min(count, size - this.start);
    this.buf.copy(out, 0, this.start, this.start + first);
    if (first < count) this.buf.copy(out, first, 0, count - first);
    return out;
  }

  /** The i-th held byte, oldest first. */
  byteAt(i: number): number {
    return this.buf[(this.start + i) % this.buf.length];
  }

  /** Remove and return the oldest n bytes. */
  shift(n: number): Buffer {
    const out = this.peek(n);
    this.start = (this.start + out.length) % this.buf.length;
    this.len -= out.length;
    if (this.len === 0) this.start = 0;
    return out;
  }

  /** Newlines among the held bytes at [from, to) counted from the oldest. */
  private newlinesIn(from: number, to: number): number {
    if (to <= from) return 0;
    const size = this.buf.length;
    const a = (this.start + from) % size;
    const b = a + (to - from);
    // the held bytes wrap at most once: count the two contiguous pieces
    return b <= size ? countNewlines(this.buf, a, b) : countNewlines(this.buf, a, size) + countNewlines(this.buf, 0, b - size);
  }

  /** Grow (linearising) so that `need` bytes fit; never past capacity. */
  private ensure(need: number): void {
    if (need <= this.buf.length) return;
    let size = this.buf.length;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(Math.min(size, this.capacity));
    const held = this.peek();
    held.copy(next, 0);
    this.buf = next;
    this.start = 0;
  }
}

/** What one stream produced: its first and last bytes and its totals. */
export interface CaptureSnapshot {
  /** the first bytes of the stream */
  head: Buffer;
  /** the last bytes of the stream; when gapBytes is 0 it continues head directly */
  tail: Buffer;
  /** bytes between head and tail that were not kept in memory */
  gapBytes: number;
  totalBytes: number;
  /** lines in the whole stream ("a\nb" and "a\nb\n" both have 2) */
  totalLines: number;
}

/**
 * In-memory capture of one stream bounded to maxBytes: the head (a share of the cap) and the tail
 * (the rest). Errors live at the end, so the tail gets the larger share.
 */
export class HeadTailCapture {
  private head: Buffer;
  private headLen = 0;
  private readonly headMax: number;
  /** the last bytes; every line is counted in push, so the ring does not count what it drops */
  private readonly tail: ByteRing;
  private newlines = 0;
  private lastByte = -1;
  totalBytes = 0;

  constructor(maxBytes: number, headShare = 0.25) {
    const max = Math.max(0, Math.floor(maxBytes));
    this.headMax = Math.floor(max * headShare);
    this.head = Buffer.allocUnsafe(Math.min(this.headMax, 4096));
    this.tail = new ByteRing(max - this.headMax, { countDropped: false });
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    this.newlines += countNewlines(chunk);
    this.lastByte = chunk[chunk.length - 1];
    let off = 0;
    if (this.headLen < this.headMax) {
      const n = Math.min(this.headMax - this.headLen, chunk.length);
      if (this.headLen + n > this.head.length) {
        const grown = Buffer.allocUnsafe(Math.min(this.headMax, Math.max(this.head.length * 2, this.headLen + n)));
        this.head.copy(grown, 0, 0, this.headLen);
        this.head = grown;
      }
      this.head.set(chunk.subarray(0, n), this.headLen);
      this.headLen += n;
      off = n;
    }
    if (off < chunk.length) this.tail.push(chunk.subarray(off));
  }

  get totalLines(): number {
    return this.newlines + (this.totalBytes > 0 && this.lastByte !== NL ? 1 : 0);
  }

  snapshot(): CaptureSnapshot {
    const head = Buffer.from(this.head.subarray(0, this.headLen));
    const tail = this.tail.peek();
    return {
      head,
      tail,
      gapBytes: this.totalBytes - head.length - tail.length,
      totalBytes: this.totalBytes,
      totalLines: this.totalLines,
    };
  }
}

/** A slice taken from an UnreadQueue. */
export interface UnreadSlice {
  text: string;
  bytes: number;
  /** bytes dropped from memory since the previous take (the log file has them) */
  droppedBytes: number;
  /** the stream's line numbers the dropped bytes spanned (1-based, inclusive), when any were dropped */
  droppedLines?: { from: number; to: number };
  /** line number where `text` begins in the stream */
  startLine: number;
  /** unread bytes still held after this take */
  remainingBytes: number;
}

/**
 * Output not yet read by the model, bounded to capacity bytes. Past it the OLDEST unread bytes are
 * dropped and counted (a watcher's latest output matters most); the log on disk keeps everything.
 */
export class UnreadQueue {
  private readonly ring: ByteRing;
  /** newlines before the first unread byte (consumed or dropped) */
  private linesBefore = 0;
  /** true when the last consumed/dropped byte ended a line */
  private atLineStart = true;
  private droppedBytes = 0;
  private droppedFromLine = 0;
  totalBytes = 0;

  constructor(capacity: number) {
    this.ring = new ByteRing(capacity);
  }

  get unreadBytes(): number {
    return this.ring.length;
  }

  /** bytes dropped since the last take */
  get pendingDroppedBytes(): number {
    return this.droppedBytes;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    const before = this.ring.length;
    const over = before + chunk.length - this.ring.capacity;
    // the last byte to be dropped, read before the push overwrites it
    const lastDropped = over <= 0 ? -1 : over <= before ? this.ring.byteAt(over - 1) : chunk[over - before - 1];
    const d = this.ring.push(chunk);
    if (d.bytes === 0) return;
    if (this.droppedBytes === 0) this.droppedFromLine = this.linesBefore + 1;
    this.droppedBytes += d.bytes;
    this.linesBefore += d.newlines;
    this.atLineStart = lastDropped === NL;
  }

  /**
   * What take(maxBytes) would return, without taking it: up to maxBytes of unread output, cut on a
   * character boundary and, when one is near the cut, on a line boundary.
   */
  peek(maxBytes: number): UnreadSlice {
    const held = this.ring.length;
    let n = Math.min(held, Math.max(0, Math.floor(maxBytes)));
    const view = this.ring.peek(n < held ? n + 1 : n);
    if (n < held) {
      n = utf8End(view, n);
      const nl = n > 0 ? view.lastIndexOf(NL, n - 1) : -1;
      if (nl !== -1 && nl + 1 > n * 0.75) n = nl + 1;
    }
    const dropped = this.droppedBytes;
    const droppedLines = dropped > 0 ? { from: this.droppedFromLine, to: this.atLineStart ? this.linesBefore : this.linesBefore + 1 } : undefined;
    return {
      text: view.subarray(0, n).toString('utf8'),
      bytes: n,
      droppedBytes: dropped,
      ...(droppedLines ? { droppedLines } : {}),
      startLine: this.linesBefore + 1,
      remainingBytes: held - n,
    };
  }

  /** Take up to maxBytes of unread output (as peek(maxBytes) shows it). */
  take(maxBytes: number): UnreadSlice {
    const slice = this.peek(maxBytes);
    const out = this.ring.shift(slice.bytes);
    if (out.length > 0) {
      this.linesBefore += countNewlines(out);
      this.atLineStart = out[out.length - 1] === NL;
    }
    this.droppedBytes = 0;
    return slice;
  }
}
