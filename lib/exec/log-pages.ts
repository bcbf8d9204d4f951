/** Bytes of one page chunks are copied into. */
const COPY_PAGE_BYTES = 64 * 1024;

interface Page {
  buf: Buffer;
  used: number;
  /** chunks in it not yet released */
  refs: number;
}

/**
 * Where a log's write() copies the chunks it queues (the caller reuses its buffer once write returns,
 * as the pipe reader does: fifo.ts). Pages of COPY_PAGE_BYTES are filled one after the other, and a
 * page whose chunks were all released is reused; as many are kept as the log's queue may hold
 * (its highWaterMark), so a busy log allocates nothing, where a fresh copy per chunk was garbage.
 */
export class CopyPages {
  private page: Page | null = null;
  private spare: Page[] = [];
  /** every live page by its memory, to find a released chunk's page */
  private readonly pages = new Map<ArrayBufferLike, Page>();
  private readonly kept: number;

  constructor(queueBytes: number) {
    this.kept = Math.ceil(queueBytes / COPY_PAGE_BYTES) + 1;
  }

  /** Copy as much of chunk[off..] as the current page takes; the view of the copy. */
  copy(chunk: Uint8Array, off: number): Buffer {
    let p = this.page;
    if (!p || p.used === p.buf.length) {
      if (p && p.refs === 0) this.recycle(p);
      p = this.spare.pop() ?? this.newPage();
      p.used = 0;
      this.page = p;
    }
    const n = Math.min(chunk.length - off, p.buf.length - p.used);
    p.buf.set(chunk.subarray(off, off + n), p.used);
    const view = p.buf.subarray(p.used, p.used + n);
    p.used += n;
    p.refs++;
    return view;
  }

  /** These views (any others are ignored) are written: their pages may be reused. */
  release(views: Buffer[]): void {
    for (const v of views) {
      const p = v.length > 0 ? this.pages.get(v.buffer) : undefined;
      if (p && --p.refs === 0 && p !== this.page) this.recycle(p);
    }
  }

  private newPage(): Page {
    const p = { buf: Buffer.allocUnsafeSlow(COPY_PAGE_BYTES), used: 0, refs: 0 };
    this.pages.set(p.buf.buffer, p);
    return p;
  }

  /** A page none of whose chunks is pending is kept for reuse, or left to the collector. */
  private recycle(p: Page): void {
    if (this.spare.length < this.kept) this.spare.push(p);
    else this.pages.delete(p.buf.buffer);
  }
}
