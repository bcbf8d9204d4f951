import { describe, expect, it } from 'vitest';
import { byteLength, clipLine, countLines, cutHead, cutHeadTail, cutTail, headBytes, tailBytes } from '../../lib/contract/text';

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
