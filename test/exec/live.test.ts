import { describe, expect, it } from 'vitest';
import { LiveBatcher } from '../../lib/exec/live';
import { formatBytes } from '../../lib/contract/text';

/** A batcher whose events are kept; flushed by hand (the interval is long). */
function batcher(maxBytes: number) {
  const events: string[] = [];
  const b = new LiveBatcher((t) => events.push(t), 60_000, maxBytes);
  return { b, events };
}

describe('live output batches', () => {
  it('an event holds at most maxBytes of the output, even when one chunk is larger; the rest is named', () => {
    const { b, events } = batcher(4096);
    b.push(Buffer.from('x'.repeat(65_536)));
    b.push(Buffer.from('y'.repeat(100)));
    b.flush();
    expect(events).toHaveLength(1);
    const [text] = events;
    expect(text.startsWith('x'.repeat(4096) + '\n[… ')).toBe(true);
    expect(text).not.toContain('y');
    expect(text.endsWith(`\n[… ${formatBytes(65_536 - 4096 + 100)} not shown live; the log file has them]\n`)).toBe(true);
    // the next interval starts afresh
    b.push(Buffer.from('next\n'));
    b.end();
    expect(events[1]).toBe('next\n');
  });

  it('small chunks fill an event up to maxBytes exactly', () => {
    const { b, events } = batcher(10);
    for (const c of ['abcd', 'efgh', 'ijkl']) b.push(Buffer.from(c));
    b.flush();
    expect(events[0]).toBe('abcdefghij\n[… 2 bytes not shown live; the log file has them]\n');
  });

  it('a character cut at maxBytes is dropped, never joined to later bytes', () => {
    const { b, events } = batcher(5);
    // "aaaa" then "é" (2 bytes): the cut falls inside it
    b.push(Buffer.from('aaaaé'));
    b.flush();
    b.push(Buffer.from('ok\n'));
    b.end();
    expect(events[0].startsWith('aaaa\n[… ')).toBe(true);
    expect(events[1]).toBe('ok\n');
  });

  it('a character split between two chunks at maxBytes is dropped whole, however many chunks go unshown after it', () => {
    const { b, events } = batcher(5);
    const e = Buffer.from('é');
    // the first chunk fills the event and ends inside "é"; the next chunks find no room
    b.push(Buffer.concat([Buffer.from('aaaa'), e.subarray(0, 1)]));
    b.push(e.subarray(1));
    b.push(Buffer.from('zz'));
    b.flush();
    expect(events[0]).toBe('aaaa\n[… 3 bytes not shown live; the log file has them]\n');
    b.push(Buffer.from('ok\n'));
    b.end();
    expect(events[1]).toBe('ok\n');
  });
});
