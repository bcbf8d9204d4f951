/** Chunks below this are copied into a shared block (holding each would cost more than its bytes). */
const COPY_BELOW_BYTES = 4096;
const BLOCK_BYTES = 16 * 1024;

/**
 * The last `capacity` bytes of a stream. Every byte a command prints passes through here, so a
 * chunk that owns its memory (as pipe reads do) is held as it is rather than copied; small chunks
 * are copied into BLOCK_BYTES blocks and views into a larger buffer copied on their own, so memory
 * stays near the capacity: the bytes held are at most the capacity plus one chunk, each entry is a
 * chunk of at least COPY_BELOW_BYTES or a block.
 */
export class ChunkTail {
  private chunks: Uint8Array[] = [];
  /** index of the oldest chunk still held */
  private first = 0;
  /** bytes in chunks[first..] */
  private held = 0;
  /** the block small chunks are being copied into: the last entry of chunks while set */
  private block: Buffer | null = null;
  private blockLen = 0;

  constructor(readonly capacity: number) {}

  /** Keep a chunk's bytes; a chunk that is held, not copied, must not change afterwards (pipe chunks never do). */
  push(chunk: Uint8Array): void {
    const cap = this.capacity;
    if (cap <= 0 || chunk.length === 0) return;
    if (chunk.length >= cap) {
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - cap))];
      this.first = 0;
      this.held = cap;
      this.block = null;
      return;
    }
    if (chunk.length < COPY_BELOW_BYTES) this.copy(chunk);
    else {
      this.block = null;
      // a view into a larger buffer would keep all of it alive
      this.chunks.push(chunk.buffer.byteLength > 2 * chunk.length ? Buffer.from(chunk) : chunk);
    }
    this.held += chunk.length;
    // drop the oldest chunks the newer ones make unnecessary
    while (this.held - this.chunks[this.first].length >= cap) this.held -= this.chunks[this.first++].length;
    if (this.first > 64 && this.first * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
  }

  private copy(chunk: Uint8Array): void {
    if (this.block && this.blockLen + chunk.length <= this.block.length) {
      this.block.set(chunk, this.blockLen);
      this.blockLen += chunk.length;
      this.chunks[this.chunks.length - 1] = this.block.subarray(0, this.blockLen);
      return;
    }
    this.block = Buffer.allocUnsafe(BLOCK_BYTES);
    this.block.set(chunk, 0);
    this.blockLen = chunk.length;
    this.chunks.push(this.block.subarray(0, this.blockLen));
  }

  /** bytes the tail holds (at most capacity) */
  get length(): number {
    return Math.min(this.held, this.capacity);
  }

  /** A copy of the last `length` bytes, oldest first. */
  snapshot(): Buffer {
    const out = Buffer.allocUnsafe(this.length);
    let skip = this.held - out.length;
    let at = 0;
    for (let i = this.first; i < this.chunks.length; i++) {
      const c = this.chunks[i];
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      out.set(skip > 0 ? c.subarray(skip) : c, at);
      at += c.length - skip;
      skip = 0;
    }
    return out;
  }
}
