import { describe, expect, it } from 'vitest';
import { countNewlines, countWords, simdNewlineCounter } from '../../lib/exec/newlines';

const slow = (buf: Uint8Array, from: number, to: number) => buf.subarray(from, to).filter((x) => x === 0x0a).length;

/** bytes where about a third are newlines, from a fixed seed (the failures are reproducible) */
function bytes(len: number, seed: number): Buffer {
  const out = Buffer.alloc(len);
  let x = seed;
  for (let i = 0; i < len; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x % 3 === 0 ? 0x0a : (x >>> 16) & 0xff;
  }
  return out;
}

describe('countNewlines', () => {
  it('runs the SIMD module on this machine', () => {
    expect(simdNewlineCounter()).toBe(true);
  });

  for (const [label, count] of [['SIMD', countNewlines], ['four bytes at a time', countWords]] as const) {
    it(`${label}: the same count as byte by byte, at any alignment, range and length`, () => {
      const buf = bytes(200_000, 7);
      for (let shift = 0; shift < 4; shift++) {
        const view = buf.subarray(shift);
        for (const [from, to] of [[0, view.length], [1, view.length - 1], [3, 2050], [5, 6], [7, 7], [100, 100 + 65_536], [0, 65_537], [17, 131_089]]) {
          expect(count(view, from, to)).toBe(slow(view, from, to));
        }
      }
      for (let len = 0; len < 300; len++) expect(count(buf, 11, 11 + len)).toBe(slow(buf, 11, 11 + len));
    });

    it(`${label}: a buffer of nothing but newlines (no lane overflows) and one with none`, () => {
      for (const len of [5000, 4080, 4081, 65_536 * 2 + 3]) expect(count(Buffer.alloc(len, 0x0a))).toBe(len);
      expect(count(Buffer.alloc(100_000, 0x0b))).toBe(0);
      expect(count(Buffer.from('y\n'.repeat(100_000)))).toBe(100_000);
    });
  }

  it('what an earlier call left in the module memory never counts in the next one', () => {
    expect(countNewlines(Buffer.alloc(70_000, 0x0a))).toBe(70_000);
    expect(countNewlines(Buffer.alloc(130, 0x61))).toBe(0);
    const tail = Buffer.alloc(141, 0x61);
    tail[140] = 0x0a;
    expect(countNewlines(tail)).toBe(1);
  });
});
