import { describe, expect, it } from 'vitest';
import { ByteRing, HeadTailCapture, UnreadQueue, countNewlines } from '../../lib/exec/ring';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('ByteRing', () => {
  it('keeps the newest bytes and counts what it drops', () => {
    const r = new ByteRing(8);
    expect(r.push(b('abc\n'))).toEqual({ bytes: 0, newlines: 0 });
    expect(r.push(b('def\n'))).toEqual({ bytes: 0, newlines: 0 });
    expect(r.push(b('gh'))).toEqual({ bytes: 2, newlines: 0 });
    expect(r.peek().toString()).toBe('c\ndef\ngh');
    expect(r.push(b('0123456789\n'))).toEqual({ bytes: 11, newlines: 2 });
    expect(r.peek().toString()).toBe('3456789\n');
    expect(r.shift(3).toString()).toBe('345');
    expect(r.length).toBe(5);
  });

  it('grows on demand and wraps around', () => {
    const r = new ByteRing(40_000);
    let all = '';
    for (let i = 0; i < 100; i++) {
      const chunk = `${String(i).padStart(4, '0')}\n`.repeat(100 + (i % 7));
      all += chunk;
      r.push(b(chunk));
      if (i % 3 === 1) r.shift(17);
    }
    expect(r.length).toBe(40_000);
    expect(r.peek().toString()).toBe(all.slice(-40_000));
  });
});

describe('HeadTailCapture', () => {
  it('holds a small stream whole', () => {
    const c = new HeadTailCapture(100);
    c.push(b('one\ntwo\n'));
    c.push(b('three'));
    const s = c.snapshot();
    expect(s.gapBytes).toBe(0);
    expect(Buffer.concat([s.head, s.tail]).toString()).toBe('one\ntwo\nthree');
    expect(s.totalBytes).toBe(13);
    expect(s.totalLines).toBe(3);
  });

  it('keeps the head and the tail of a large stream and counts every line', () => {
    const c = new HeadTailCapture(1000);
    for (let i = 1; i <= 10_000; i++) c.push(b(`line ${i}\n`));
    const s = c.snapshot();
    expect(s.head.length).toBe(250);
    expect(s.tail.length).toBe(750);
    expect(s.head.toString().startsWith('line 1\nline 2\n')).toBe(true);
    expect(s.tail.toString().endsWith('line 9999\nline 10000\n')).toBe(true);
    expect(s.totalLines).toBe(10_000);
    expect(s.gapBytes).toBe(s.totalBytes - 1000);
  });

  it('counts newlines in dense output', () => {
    expect(countNewlines(b('y\n'.repeat(1000)))).toBe(1000);
  });

  it('counts newlines word-wise the same as byte by byte, at any alignment and range', () => {
    const bytes = Buffer.alloc(3000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 7 === 0 || i % 11 === 0 ? 0x0a : (i * 31) & 0xff;
    const slow = (buf: Uint8Array, from: number, to: number) => buf.subarray(from, to).filter((x) => x === 0x0a).length;
    for (let shift = 0; shift < 4; shift++) {
      const view = bytes.subarray(shift);
      for (const [from, to] of [[0, view.length], [1, view.length - 1], [3, 2050], [5, 6], [7, 7]]) {
        expect(countNewlines(view, from, to)).toBe(slow(view, from, to));
      }
    }
    // past 255 words the per-lane sums are folded; all-newline bytes would overflow a lane without it
    expect(countNewlines(Buffer.alloc(5000, 0x0a))).toBe(5000);
  });
});

describe('UnreadQueue', () => {
  it('hands out new output in order, cut on a line boundary, and says what remains', () => {
    const q = new UnreadQueue(1000);
    q.push(b('alpha\nbeta\ngamma\n'));
    const first = q.take(12);
    expect(first.text).toBe('alpha\nbeta\n');
    expect(first.startLine).toBe(1);
    expect(first.remainingBytes).toBe(6);
    const second = q.take(100);
    expect(second.text).toBe('gamma\n');
    expect(second.startLine).toBe(3);
    expect(q.take(100).bytes).toBe(0);
  });

  it('never splits a UTF-8 character', () => {
    const q = new UnreadQueue(100);
    q.push(b('ééé'));
    const s = q.take(3);
    expect(s.text).toBe('é');
    expect(q.take(10).text).toBe('éé');
  });

  it('drops the oldest unread bytes past its capacity and names the dropped lines', () => {
    const q = new UnreadQueue(20);
    q.push(b('line 1\nline 2\nline 3\nline 4\nline 5\n'));
    const s = q.take(100);
    expect(s.droppedBytes).toBe(15);
    expect(s.droppedLines).toEqual({ from: 1, to: 3 });
    expect(s.text).toBe('ine 3\nline 4\nline 5\n');
    expect(s.startLine).toBe(3);
    q.push(b('line 6\n'));
    const t = q.take(100);
    expect(t.droppedBytes).toBe(0);
    expect(t.droppedLines).toBeUndefined();
    expect(t.startLine).toBe(6);
  });
});
