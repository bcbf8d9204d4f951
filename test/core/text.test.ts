import { describe, expect, it, vi } from 'vitest';
import { byteLength, clipLine, countLines, cutHead, cutHeadTail, cutTail, decodeCut, fitWithNote, formatCount, formatDuration, headBytes, tailBytes, utf8End, utf8Start } from '../../lib/contract/text';

describe('UTF-8 byte cuts', () => {
  const zh = '中文字符'; // 4 characters, 3 bytes each
  it('never cuts inside a character', () => {
    expect(byteLength(zh)).toBe(12);
    expect(headBytes(zh, 7)).toBe('中文');
    expect(headBytes(zh, 6)).toBe('中文');
    expect(tailBytes(zh, 7)).toBe('字符');
    expect(headBytes('a😀b', 3)).toBe('a');
    expect(tailBytes('a😀b', 4)).toBe('b');
    expect(headBytes(zh, 100)).toBe(zh);
  });
  it('counts lines', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
  });
  it('head and tail cuts report honest counts', () => {
    const s = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const h = cutHead(s, 100);
    expect(h.cut).toBe(true);
    expect(h.shownBytes).toBe(byteLength(h.text));
    expect(h.totalBytes).toBe(byteLength(s));
    expect(h.totalLines).toBe(100);
    expect(s.startsWith(h.text)).toBe(true);
    const t = cutTail(s, 100);
    expect(s.endsWith(t.text)).toBe(true);
    expect(t.text.startsWith('line')).toBe(true);
  });
  it('head+tail marks the middle with exact omitted counts', () => {
    const s = Array.from({ length: 1000 }, (_, i) => `row ${i}`).join('\n') + '\n';
    const c = cutHeadTail(s, 500);
    expect(byteLength(c.text)).toBeLessThanOrEqual(500);
    const m = /\[(\d[\d,]*) bytes, (\d[\d,]*) lines omitted\]/.exec(c.text);
    expect(m).not.toBeNull();
    const omittedBytes = Number(m![1].replace(/,/g, ''));
    expect(omittedBytes).toBe(c.totalBytes - c.shownBytes);
    expect(c.text.startsWith('row 0\n')).toBe(true);
    expect(c.text.endsWith('row 999\n')).toBe(true);
  });
  it('clips a Chinese line on a boundary and says how much was cut', () => {
    const line = '汉'.repeat(100); // 300 bytes
    const clipped = clipLine(line, 10);
    expect(clipped).toBe('汉汉汉… [line cut: 291 more bytes]');
    expect(clipped).not.toContain('\uFFFD');
  });
});

describe('the one UTF-8 cut', () => {
  const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
  it('ends a prefix before a character cut in two, judging only the bytes before the cut', () => {
    const b = bytes('a中😀'); // 1 + 3 + 4 bytes
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => utf8End(b, k))).toEqual([0, 1, 1, 1, 4, 4, 4, 4, 8]);
    // a captured head whose next byte is unknown: the half character at its end is dropped
    expect(utf8End(b.subarray(0, 6))).toBe(4);
    expect(decodeCut(b.subarray(0, 6), { end: true })).toBe('a中');
    expect(decodeCut(b.subarray(2), { start: true })).toBe('😀');
  });
  it('starts a suffix on a character; invalid bytes are cut as they are (at most 3 steps)', () => {
    const b = bytes('a中😀');
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => utf8Start(b, k))).toEqual([0, 1, 4, 4, 4, 8, 8, 8, 8]);
    const junk = new Uint8Array(10).fill(0x80);
    expect(utf8End(junk, 7)).toBe(7);
    expect(utf8Start(junk, 2)).toBe(5);
  });
  it('head and tail cuts of long mixed text match a whole-string cut (surrogate pairs split at the slice are dropped)', () => {
    const chars = ['a', 'é', '中', '😀', '\n'];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let k = 0; k < 300; k++) {
      const s = Array.from({ length: 1 + rnd(40) }, () => chars[rnd(chars.length)]).join('');
      const b = Buffer.from(s, 'utf8');
      const max = rnd(b.length + 3);
      const head = headBytes(s, max);
      const tail = tailBytes(s, max);
      expect(Buffer.byteLength(head)).toBeLessThanOrEqual(max);
      expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(max);
      expect(s.startsWith(head) && s.endsWith(tail)).toBe(true);
      // nothing more fits: the next character would pass max
      expect(head === s || Buffer.byteLength(s.slice(0, [...head].join('').length + ([...s.slice(head.length)][0]?.length ?? 0))) > max).toBe(true);
      expect(head + tail).not.toContain('\uFFFD');
    }
  });
  it('counts UTF-8 bytes the same without Buffer (the page)', () => {
    const s = 'a é 中 😀 \ud800 end';
    const want = Buffer.byteLength(s, 'utf8');
    vi.stubGlobal('Buffer', undefined);
    try {
      expect(byteLength(s)).toBe(want);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('fitWithNote: the note is measured, never guessed', () => {
  const text = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
  const note = (c: { shownBytes: number; cut: boolean }) =>
    c.cut ? `\n[cut: ${formatCount(c.shownBytes)} of ${formatCount(byteLength(text))} bytes shown; the rest is in /tmp/spill-file.txt]` : '';
  it('fits text plus note into every cap, with the note whole whenever the text was cut', () => {
    for (let cap = 0; cap <= 400; cap++) {
      const f = fitWithNote(cap, (room) => cutHead(text, room), (c) => c.text + note(c));
      expect(byteLength(f.text)).toBeLessThanOrEqual(cap);
      if (cap >= 120) {
        expect(f.text.endsWith(note(f.cut))).toBe(true);
        expect(f.text).toBe(f.cut.text + note(f.cut));
      }
    }
  });
  it('uses the room the note leaves: at most a line short of the cap', () => {
    const cap = 2000;
    const f = fitWithNote(cap, (room) => cutHead(text, room), (c) => c.text + note(c));
    expect(byteLength(f.text)).toBeLessThanOrEqual(cap);
    expect(byteLength(f.text)).toBeGreaterThan(cap - 12);
  });
  it('leaves a text that fits as it is', () => {
    const f = fitWithNote(100, (room) => cutHead('short', room), (c) => c.text + note(c));
    expect(f.text).toBe('short');
  });
  it('cutHeadTail measures its marker: the result lands right under the cap', () => {
    const s = 'x'.repeat(100_000);
    for (const cap of [60, 61, 100, 1000, 20_000]) {
      const c = cutHeadTail(s, cap);
      expect(byteLength(c.text)).toBeLessThanOrEqual(cap);
      expect(c.text).toContain(`[${formatCount(c.totalBytes - c.shownBytes)} bytes, 0 lines omitted]`);
      expect(byteLength(c.text)).toBeGreaterThanOrEqual(cap - 1);
    }
  });
});

describe('the one duration wording', () => {
  it('ms under a second, seconds (one decimal, none when whole), then minutes and hours', () => {
    expect([0, 12, 300, 999.4, 999.6, 1000, 1500, 2345, 59_940, 59_960, 60_000, 65_000, 120_000, 3_599_000, 3_600_000, 7_380_000].map((ms) => formatDuration(ms))).toEqual([
      '0 ms', '12 ms', '300 ms', '999 ms', '1 s', '1 s', '1.5 s', '2.3 s', '59.9 s', '1 m', '1 m', '1 m 05 s', '2 m', '59 m 59 s', '1 h', '2 h 03 m',
    ]);
  });
  it('a ticking clock in whole seconds', () => {
    expect([0, 400, 4_900, 65_000, 2 * 3_600_000 + 3 * 60_000].map((ms) => formatDuration(ms, { wholeSeconds: true }))).toEqual(['0 s', '0 s', '4 s', '1 m 05 s', '2 h 03 m']);
  });
});

describe('formatCount', () => {
  it('groups thousands as en-US does, without Intl for whole numbers', () => {
    const values = [0, 7, 999, 1_000, 12_345, 123_456, 1_234_567, -1_234_567, 10 ** 15, Number.MAX_SAFE_INTEGER, 2.5, 1234.5678, 1e21];
    expect(values.map(formatCount)).toEqual(values.map((n) => n.toLocaleString('en-US')));
    expect(formatCount(1_234_567)).toBe('1,234,567');
  });
});
