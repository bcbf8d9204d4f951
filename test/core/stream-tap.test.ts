import { describe, expect, it } from 'vitest';
import { tapStream } from '../../lib/contract/stream-tap';

const from = <T>(xs: T[], o: { fail?: Error; cancelled?: unknown[] } = {}) =>
  new ReadableStream<T>({
    start(c) {
      for (const x of xs) c.enqueue(x);
      if (o.fail) c.error(o.fail);
      else if (!o.cancelled) c.close();
    },
    cancel: (why) => void o.cancelled?.push(why),
  });

async function readAll<T>(s: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of s as unknown as AsyncIterable<T>) out.push(x);
  return out;
}

describe('tapStream', () => {
  it('maps every chunk in order and runs end once the source has ended', async () => {
    const ends: string[] = [];
    const s = tapStream(from([1, 2, 3]), (n) => n * 10, () => ends.push('end'));
    expect(ends).toEqual([]);
    expect(await readAll(s)).toEqual([10, 20, 30]);
    expect(ends).toEqual(['end']);
  });

  it("passes the source's error on, without end", async () => {
    const ends: string[] = [];
    const s = tapStream(from([1], { fail: new Error('provider gone') }), (n) => n, () => ends.push('end'));
    await expect(readAll(s)).rejects.toThrow('provider gone');
    expect(ends).toEqual([]);
  });

  it('a throw of each errors the stream and cancels the source', async () => {
    const cancelled: unknown[] = [];
    const s = tapStream(from([1, 2], { cancelled }), (n) => {
      if (n === 2) throw new Error('bad chunk');
      return n;
    });
    await expect(readAll(s)).rejects.toThrow('bad chunk');
    await new Promise((r) => setTimeout(r, 0));
    expect(cancelled).toHaveLength(1);
    expect((cancelled[0] as Error).message).toBe('bad chunk');
  });

  it('cancelling the result cancels the source with its reason, without end', async () => {
    const cancelled: unknown[] = [];
    const ends: string[] = [];
    const s = tapStream(from([1, 2, 3], { cancelled }), (n) => n, () => ends.push('end'));
    const reader = s.getReader();
    expect((await reader.read()).value).toBe(1);
    await reader.cancel('the page went away');
    expect(cancelled).toEqual(['the page went away']);
    expect(ends).toEqual([]);
  });

  it('reads the source only as the reader asks (no chunk is taken ahead)', async () => {
    let pulled = 0;
    const source = new ReadableStream<number>({ pull: (c) => c.enqueue(++pulled) }, { highWaterMark: 0 });
    const reader = tapStream(source, (n) => n).getReader();
    await new Promise((r) => setTimeout(r, 10));
    expect(pulled).toBe(0);
    expect((await reader.read()).value).toBe(1);
    await new Promise((r) => setTimeout(r, 10));
    expect(pulled).toBe(1);
    await reader.cancel();
  });
});
