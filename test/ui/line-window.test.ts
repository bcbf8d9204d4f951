import { describe, expect, it } from 'vitest';
import type { FilePage } from '../../lib/contract/protocol';
import {
  appendPage,
  displayLines,
  emptyWindow,
  fromTail,
  isComplete,
  positionLabel,
  prependPage,
  prevRequest,
  tailRequest,
  type LineWindow,
} from '../../lib/ui/line-window';

/**
 * The server's paging, simulated: cut the end back to a line boundary; optionally move a mid-line start
 * forward; number the page's first line and count the file's lines unless `uncounted` (a huge file the
 * server has not counted that far yet).
 */
function server(content: string, opts: { alignStart?: boolean; uncounted?: boolean } = {}) {
  const buf = Buffer.from(content, 'utf8');
  return (offset: number, limit: number): FilePage => {
    let start = Math.min(offset, buf.length);
    if (opts.alignStart && start > 0 && buf[start - 1] !== 0x0a) {
      const nl = buf.indexOf(0x0a, start);
      start = nl < 0 ? buf.length : nl + 1;
    }
    let end = Math.min(buf.length, start + limit);
    if (end < buf.length) {
      const nl = buf.lastIndexOf(0x0a, end - 1);
      if (nl >= start) end = nl + 1;
      else while (end > start && (buf[end] & 0xc0) === 0x80) end--; // one line longer than the page: cut on a character
    }
    // as the server numbers pages (lib/server/line-index.ts): the line at start, and the file's lines
    const newlines = (to: number) => buf.subarray(0, to).reduce((n, b) => n + (b === 0x0a ? 1 : 0), 0);
    const totalLines = newlines(buf.length) + (buf.length > 0 && buf[buf.length - 1] !== 0x0a ? 1 : 0);
    const numbers = opts.uncounted ? { firstLine: start === 0 ? 1 : null, totalLines: null } : { firstLine: newlines(start) + 1, totalLines };
    return { path: '/d/log', text: buf.subarray(start, end).toString('utf8'), offset: start, nextOffset: end, totalBytes: buf.length, eof: end >= buf.length, ...numbers };
  };
}

const numbered = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1));

function loadForward(get: ReturnType<typeof server>, pageBytes: number, w = emptyWindow(), maxLines?: number): LineWindow {
  for (let guard = 0; guard < 10_000; guard++) {
    w = appendPage(w, get(w.endOffset, pageBytes), maxLines);
    if (w.eof) return w;
  }
  throw new Error('no progress');
}

function loadUp(get: ReturnType<typeof server>, pageBytes: number, w: LineWindow): LineWindow {
  for (let guard = 0; guard < 10_000; guard++) {
    const r = prevRequest(w, pageBytes);
    if (!r) return w;
    w = prependPage(w, get(r.offset, r.limit));
  }
  throw new Error('no progress');
}

describe('line window: paging down', () => {
  it('rebuilds every line from pages, with line numbers and the end reached', () => {
    const lines = numbered(1000);
    const w = loadForward(server(lines.join('\n') + '\n'), 700);
    expect(w.lines).toEqual(lines);
    expect(w.firstLine).toBe(1);
    expect(isComplete(w)).toBe(true);
    expect(w.endOffset).toBe(w.totalBytes);
    expect(positionLabel(w, 0, 39, w.lines.length)).toBe('lines 1–40 of 1,000 · 8,893 bytes');
  });

  it('states the file’s exact line count from its first page; says "≥" only while the server has not counted it', () => {
    const content = numbered(5000).join('\n') + '\n';
    const w = appendPage(emptyWindow(), server(content)(0, 4096));
    expect(w.eof).toBe(false);
    expect(positionLabel(w, 10, 49, w.lines.length)).toBe('lines 11–50 of 5,000 · 47.7 KB');
    const u = appendPage(emptyWindow(), server(content, { uncounted: true })(0, 4096));
    expect(positionLabel(u, 10, 49, u.lines.length)).toBe(`lines 11–50 of ≥ ${u.lines.length} · 47.7 KB`);
  });

  it('keeps multi-byte text whole and offsets in bytes', () => {
    const lines = numbered(300, (i) => `第${i}行 ✓ 😀 ${'é'.repeat(i % 7)}`);
    const content = lines.join('\n') + '\n';
    const w = loadForward(server(content), 333);
    expect(w.lines).toEqual(lines);
    expect(w.endOffset).toBe(Buffer.byteLength(content));
  });

  it('shows a line still being written and completes it without a duplicate when the log grows', () => {
    const w1 = loadForward(server('a\nb\nhalf'), 100);
    expect(displayLines(w1)).toEqual(['a', 'b', 'half']);
    expect(w1.endOffset).toBe(4); // the pending line is asked for again
    const w2 = loadForward(server('a\nb\nhalf done\nc\n'), 100, w1);
    expect(displayLines(w2)).toEqual(['a', 'b', 'half done', 'c']);
    expect(w2.pending).toBe('');
  });

  it('joins the pieces of a line longer than a page', () => {
    const long = 'x'.repeat(2500);
    const w = loadForward(server(`a\n${long}\nb\n`), 1000);
    expect(w.lines).toEqual(['a', long, 'b']);
  });

  it('ignores a stale page the window already holds', () => {
    const get = server('a\nb\nc\n');
    const w = appendPage(emptyWindow(), get(0, 4));
    expect(appendPage(w, get(0, 4))).toBe(w);
  });

  it('drops the top past the line cap and keeps offsets and numbers consistent', () => {
    const lines = numbered(1000);
    const get = server(lines.join('\n') + '\n');
    const w = loadForward(get, 500, emptyWindow(), 200);
    expect(w.lines.length).toBeLessThanOrEqual(200);
    expect(w.firstLine).toBe(1000 - w.lines.length + 1);
    expect(w.lines[0]).toBe(lines[(w.firstLine as number) - 1]);
    expect(w.anchor).toBe((w.firstLine as number) - 1);
    // the evicted part comes back exactly when scrolling up again
    const up = prependPage(w, get(prevRequest(w, 300)!.offset, prevRequest(w, 300)!.limit));
    expect(up.lines).toEqual(lines.slice((up.firstLine as number) - 1, (up.firstLine as number) - 1 + up.lines.length));
  });
});

describe('line window: from the end, then up', () => {
  for (const alignStart of [false, true]) {
    it(`rebuilds the file upwards (server ${alignStart ? 'moves' : 'keeps'} a mid-line start)`, () => {
      const lines = numbered(2000, (i) => `\u001b[32mline ${i}\u001b[0m ${'·'.repeat(i % 5)}`);
      const content = lines.join('\n') + '\n';
      const get = server(content, { alignStart });
      const t = tailRequest(Buffer.byteLength(content), 1500);
      const tail = fromTail(get(t.offset, t.limit));
      // the server numbered the page: the last page of the file knows its line numbers
      const first = lines.length - tail.lines.length + 1;
      expect(tail.firstLine).toBe(first);
      expect(tail.eof).toBe(true);
      expect(tail.lines).toEqual(lines.slice(lines.length - tail.lines.length));
      expect(positionLabel(tail, 0, 5, tail.lines.length)).toMatch(new RegExp(`^lines ${first.toLocaleString('en-US')}–${(first + 5).toLocaleString('en-US')} of 2,000 · `));
      let w = tail;
      for (let guard = 0; guard < 10_000 && prevRequest(w, 1500); guard++) {
        const r = prevRequest(w, 1500)!;
        w = prependPage(w, get(r.offset, r.limit));
        // every page up keeps the numbers right
        expect(lines[w.firstLine! - 1]).toBe(w.lines[0]);
      }
      expect(w.lines).toEqual(lines);
      expect(w.firstLine).toBe(1);
      expect(w.anchor).toBe(tail.anchor - (lines.length - tail.lines.length));
      expect(isComplete(w)).toBe(true);
    });
  }

  it('a file the server has not counted: the end is placed by bytes until the top is reached', () => {
    const lines = numbered(2000);
    const content = lines.join('\n') + '\n';
    const get = server(content, { uncounted: true });
    const t = tailRequest(Buffer.byteLength(content), 1500);
    const tail = fromTail(get(t.offset, t.limit));
    expect(tail.firstLine).toBeNull();
    expect(positionLabel(tail, 0, 5, tail.lines.length)).toMatch(/^\d+ lines loaded from the end \(.+ above not loaded\) · /);
    const full = loadUp(get, 1500, tail);
    expect(full.firstLine).toBe(1);
    expect(full.lines).toEqual(lines);
  });

  it('keeps the pending last line of a running log', () => {
    const get = server('one\ntwo\nthr');
    const w = fromTail(get(0, 1000));
    expect(w.firstLine).toBe(1);
    expect(displayLines(w)).toEqual(['one', 'two', 'thr']);
  });

  it('a file smaller than a page: tail request starts at 0', () => {
    expect(tailRequest(100, 4096)).toEqual({ offset: 0, limit: 4096 });
    expect(tailRequest(10_000, 4096)).toEqual({ offset: 5904, limit: 4096 });
  });

  it('labels an empty file and a window not loaded yet', () => {
    expect(positionLabel(emptyWindow(), 0, 0, 0)).toBe('loading…');
    const w = appendPage(emptyWindow(), { path: 'p', text: '', offset: 0, nextOffset: 0, totalBytes: 0, eof: true, firstLine: 1, totalLines: 0 });
    expect(positionLabel(w, 0, 0, 0)).toBe('empty · 0 bytes');
  });
});

describe('line window against the server’s own paging (lib/server/files.ts)', () => {
  it('pages a 100,000-line coloured log down from the top and up from the end', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { readFilePage } = await import('../../lib/server/files');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-ui-'));
    try {
      const file = path.join(dir, 'task.log');
      const lines = numbered(100_000, (i) => `\u001b[32mline ${i}\u001b[0m ✓`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
      const get = (offset: number, limit: number) => readFilePage(file, offset, limit);
      const down = loadForward(get, 512 * 1024);
      expect(down.lines.length).toBe(100_000);
      expect(down.lines[99_999]).toBe(lines[99_999]);
      expect(positionLabel(down, 0, 49, down.lines.length)).toBe(`lines 1–50 of 100,000 · ${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB`);
      const t = tailRequest(fs.statSync(file).size, 512 * 1024);
      const up = loadUp(get, 512 * 1024, fromTail(get(t.offset, t.limit)));
      expect(up.lines).toEqual(lines);
      expect(up.firstLine).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
