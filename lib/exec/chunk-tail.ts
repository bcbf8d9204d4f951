/** The ring starts this small and doubles as a stream prints more (a quiet command costs almost nothing). */
const FIRST_BYTES = 16 * 1024;

/**
 * The last `capacity` bytes of a stream, copied into a ring. Every byte a command prints passes
 * through here, and pipe chunks are views of a read buffer that the next read overwrites (fifo.ts),
 * so nothing is held by reference: memory is the ring, at most the capacity, whatever was printed.
 */
export class ChunkTail {
  private buf: Buffer = Buffer.alloc(0);
  /** where the oldest held byte is */
  private start = 0;
  private held = 0;

  constructor(readonly capacity: number) {}

  /** Keep a chunk's last bytes (copied: the chunk may change once this returns). */
  push(chunk: Uint8Array): void {
    const cap = this.capacity;
    if (cap <= 0 || chunk.length === 0) return;
    let data = chunk;
    if (data.length >= cap) {
      data = data.subarray(data.length - cap);
      this.start = 0;
      this.held = 0;
    }
    const keep = Math.min(this.held, cap - data.length);
    this.grow(keep + data.length);
    // drop the oldest bytes the new ones displace
    const size = this.buf.length;
    this.start = (this.start + this.held - keep) % size;
    this.held = keep;
    let at = (this.start + this.held) % size;
    for (let off = 0; off < data.length; ) {
      const n = Math.min(data.length - off, size - at);
      this.buf.set(data.subarray(off, off + n), at);
      off += n;
      at = (at + n) % size;
    }
    this.held += data.length;
  }

  /** Make room for `need` bytes (never past capacity), keeping what is held in order. */
  private grow(need: number): void {
    if (need <= this.buf.length) return;
    let size = Math.max(this.buf.length, FIRST_BYTES);
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(Math.min(size, this.capacity));
    const held = this.snapshot();
    held.copy(next, 0);
    this.buf = next;
    this.start = 0;
  }

  /** bytes the tail holds (at most capacity) */
  get length(): number {
    return this.held;
  }

  /** A copy of the held bytes, oldest first. */
  snapshot(): Buffer {
    const out = Buffer.allocUnsafe(this.held);
    const first = Math.min(this.held, this.buf.length - this.start);
    this.buf.copy(out, 0, this.start, this.start + first);
    if (first < this.held) this.buf.copy(out, first, 0, this.held - first);
    return out;
  }
}
