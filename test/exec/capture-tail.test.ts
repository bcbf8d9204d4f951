import { describe, expect, it } from 'vitest';
import { ByteRing, HeadTailCapture } from '../../lib/exec/ring';

/** a fixed-seed generator, so a failure can be replayed */
function rng(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) >>> 0;
    return x % n;
  };
}

describe('the capture\'s tail (a ByteRing that does not count what it drops)', () => {
  it('holds exactly the last capacity bytes, whatever the chunk sizes', () => {
    for (const cap of [1, 100, 4096, 50_000]) {
      const rand = rng(cap);
      const tail = new ByteRing(cap, { countDropped: false });
      const all: Buffer[] = [];
      for (let i = 0; i < 400; i++) {
        const size = [1, 10, 4095, 4096, 9000, 65_536, 70_000][rand(7)]!;
        const chunk = Buffer.allocUnsafe(size);
        for (let j = 0; j < size; j++) chunk[j] = rand(256);
        all.push(chunk);
        tail.push(chunk);
        if (i % 37 === 0) {
          const whole = Buffer.concat(all);
          expect(tail.peek().equals(whole.subarray(Math.max(0, whole.length - cap)))).toBe(true);
        }
      }
      const whole = Buffer.concat(all);
      expect(tail.length).toBe(Math.min(cap, whole.length));
      expect(tail.peek().equals(whole.subarray(whole.length - cap))).toBe(true);
    }
  });

  it('copies every chunk: the buffer a chunk came in may be overwritten by the next read, and memory stays at the capacity', () => {
    const tail = new ByteRing(8192, { countDropped: false });
    const read = Buffer.alloc(64 * 1024, 0x61);
    tail.push(read.subarray(0, 5000));
    // the reader reuses its buffer for the next read
    read.fill(0x62);
    expect(tail.peek().toString()).toBe('a'.repeat(5000));
    tail.push(read.subarray(0, 5000));
    read.fill(0x63);
    expect(tail.peek().toString()).toBe('a'.repeat(3192) + 'b'.repeat(5000));
    const small = Buffer.from('x\n');
    for (let i = 0; i < 10_000; i++) tail.push(small);
    expect(tail.peek().toString()).toBe('x\n'.repeat(4096));
    // one ring of the capacity, however many chunks came
    expect((tail as unknown as { buf: Buffer }).buf.length).toBe(8192);
  });

  it('drops without counting lines when told so (the capture counts every line itself), and counts them by default', () => {
    const lines = Buffer.from('a\n'.repeat(100));
    const tail = new ByteRing(50, { countDropped: false });
    const counting = new ByteRing(50);
    expect(tail.push(lines)).toEqual({ bytes: 150, newlines: 0 });
    expect(counting.push(lines)).toEqual({ bytes: 150, newlines: 75 });
    expect(tail.peek().equals(counting.peek())).toBe(true);
  });

  it('gives HeadTailCapture the same head and tail as one contiguous stream', () => {
    const c = new HeadTailCapture(1000);
    let all = '';
    for (let i = 1; i <= 3000; i++) {
      const piece = `line ${i}\n`.repeat(1 + (i % 5));
      all += piece;
      c.push(Buffer.from(piece));
    }
    const s = c.snapshot();
    expect(s.head.toString()).toBe(all.slice(0, 250));
    expect(s.tail.toString()).toBe(all.slice(-750));
    expect(s.gapBytes).toBe(all.length - 1000);
  });
});
