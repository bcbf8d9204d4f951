import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { listDirTool } from '../../lib/tools/list-dir';
import { BUDGET, budgetTable } from '../../lib/contract/budget';
import { binaryType } from '../../lib/tools/read-file/binary';
import { nearNames, notFoundError } from '../../lib/tools/common/near-names';
import { clearReadIndex, readIndexStats } from '../../lib/tools/read-file/line-index';
import type { Budget } from '../../lib/contract/budget';
import { harness, tempWorkspace, toolBed } from '../helpers';

const bed = toolBed([readFileTool, listDirTool]);

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** A minimal real PNG: signature, IHDR, IDAT, IEND (CRCs are not checked by the sniffer). */
function pngBytes(): Buffer {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.concat([Buffer.from([0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]), Buffer.alloc(4)]);
  const idat = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('IDAT'), Buffer.alloc(11, 7), Buffer.alloc(4)]);
  const iend = Buffer.concat([Buffer.alloc(4), Buffer.from('IEND'), Buffer.from([0xae, 0x42, 0x60, 0x82])]);
  return Buffer.concat([sig, ihdr, idat, iend, Buffer.alloc(12_000, 0x55)]);
}

describe('read_file: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(readFileTool.schema)).toMatchSnapshot();
  });

  it('describes itself with numbers from the budget it is given and names its siblings', () => {
    const text = readFileTool.describe(budgetTable({ READ_MAX_LINES: 77, READ_MAX_LINE_BYTES: 1234 }));
    expect(text).toContain('A window is at most 77 lines (the default)');
    expect(text).toContain('Lines longer than 1,234 bytes are cut');
    expect(text).toContain('To find text across files use grep; to list a folder use list_dir');
    expect(readFileTool.effect).toBe('read');
  });
});

describe('read_file: happy path', () => {
  it('numbers lines with a width fixed by the file, not the window', async () => {
    bed.ws.write('a.txt', numbered(120));
    const r = await bed.h.call('read_file', { path: 'a.txt', offset: 8, limit: 3 });
    expect(r.status).toBe('ok');
    expect(r.output).toBe('  8\tline 8\n  9\tline 9\n 10\tline 10\n(lines 8–10 of 120; continue with offset=11)');
    expect(r.hint).toBe('To continue: read_file with path=a.txt offset=11.');
    expect(r.truncation).toBeNull();
  });

  it('reads a small file whole and says it reached the end', async () => {
    bed.ws.write('src/b.ts', 'const a = 1;\nconst b = 2;');
    const r = await bed.h.call('read_file', { path: './src/b.ts' });
    expect(r.output).toBe('1\tconst a = 1;\n2\tconst b = 2;\n(lines 1–2 of 2; end of file)');
    expect(r.hint).toBeUndefined();
    expect(r.truncation).toBeNull();
  });

  it('strips \\r of CRLF and a UTF-8 BOM for display, and decodes invalid UTF-8 lossily', async () => {
    bed.ws.write('w.txt', Buffer.concat([Buffer.from('\ufeffone\r\ntwo '), Buffer.from([0xff, 0xc3]), Buffer.from(' end\r\n')]));
    const r = await bed.h.call('read_file', { path: 'w.txt' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe('1\tone\n2\ttwo \ufffd\ufffd end\n(lines 1–2 of 2; end of file)');
  });

  it('answers an empty file plainly', async () => {
    bed.ws.write('empty.txt', '');
    const r = await bed.h.call('read_file', { path: 'empty.txt' });
    expect(r).toMatchObject({ status: 'ok', output: '(empty.txt is empty: 0 lines)' });
  });

  it('reads a text file named like an image (a Git LFS pointer) as text', async () => {
    bed.ws.write('photo.png', 'version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12345\n');
    const r = await bed.h.call('read_file', { path: 'photo.png', limit: 1 });
    expect(r.output).toBe('1\tversion https://git-lfs.github.com/spec/v1\n(lines 1–1 of 3; continue with offset=2)');
  });
});

describe('read_file: errors with a next step', () => {
  it('a PNG answers with a clear binary error naming type and size, no bytes', async () => {
    const png = pngBytes();
    bed.ws.write('assets/photo.png', png);
    const r = await bed.h.call('read_file', { path: 'assets/photo.png' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(`assets/photo.png is a binary file (PNG image, 12,068 bytes); read_file shows text only.`);
    expect(png.length).toBe(12_068);
  });

  it('a NUL in the first sniffed bytes marks an unknown file as binary data', async () => {
    bed.ws.write('blob', Buffer.concat([Buffer.from('text then '), Buffer.from([0]), Buffer.from('more')]));
    const r = await bed.h.call('read_file', { path: 'blob' });
    expect(r.output).toBe('blob is a binary file (binary data, 15 bytes); read_file shows text only.');
  });

  it('a missing file names near names', async () => {
    bed.ws.write('src/utils.ts', 'x');
    bed.ws.write('src/utlis.tsx', 'x');
    bed.ws.write('src/zzz.ts', 'x');
    const r = await bed.h.call('read_file', { path: 'src/utlis.ts' });
    expect(r.status).toBe('error');
    expect(r.output).toBe('File not found: src/utlis.ts. Did you mean src/utlis.tsx, src/utils.ts?');
  });

  it('a missing file with nothing near says where to look', async () => {
    bed.ws.write('src/utils.ts', 'x');
    const r = await bed.h.call('read_file', { path: 'src/qqqqqqqq.md' });
    expect(r.output).toBe(
      'File not found: src/qqqqqqqq.md. Nothing with a similar name is in src/; use list_dir with path=src to see what is there, or glob to search the tree by pattern.',
    );
    const deep = await bed.h.call('read_file', { path: 'nope/deeper/x.ts' });
    expect(deep.output).toBe(
      'File not found: nope/deeper/x.ts (nope does not exist); use list_dir to see the workspace root, or glob to search the tree by pattern.',
    );
  });

  it('a directory points to list_dir', async () => {
    fs.mkdirSync(path.join(bed.ws.workspace, 'src'));
    const r = await bed.h.call('read_file', { path: 'src' });
    expect(r.output).toBe('src is a directory, not a file. Use list_dir with path=src to see what it contains.');
  });

  it('a pipe is refused without blocking', async () => {
    execFileSync('mkfifo', [path.join(bed.ws.workspace, 'pipe')]);
    const r = await bed.h.call('read_file', { path: 'pipe' });
    expect(r.output).toBe('pipe is not a regular file (a device, socket or pipe); read_file reads regular files only.');
  });

  it('an offset past the end says how many lines the file has', async () => {
    bed.ws.write('a.txt', numbered(12));
    const r = await bed.h.call('read_file', { path: 'a.txt', offset: 13 });
    expect(r.status).toBe('error');
    expect(r.output).toBe('Offset 13 is past the end of a.txt: the file has 12 lines. Use an offset from 1 to 12.');
    const limited = await bed.h.call('read_file', { path: 'a.txt', offset: 50, limit: 5 });
    expect(limited.output).toBe('Offset 50 is past the end of a.txt: the file has 12 lines. Use an offset from 1 to 12 (offset=8 shows the last 5).');
  });

  it('an empty path is refused before any I/O', async () => {
    // with I/O, '' would resolve to the workspace root and answer "is a directory"
    const r = await bed.h.call('read_file', { path: '' });
    expect(r.status).toBe('error');
    expect(r.output).toBe('Invalid arguments for read_file:\n- `path`: must not be empty.\nPass a non-empty path and call read_file again.');
  });

  it('an offset of 0 is refused by validation, naming the field', async () => {
    bed.ws.write('a.txt', 'x\n');
    const r = await bed.h.call('read_file', { path: 'a.txt', offset: 0 });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^Invalid arguments for read_file:\n- `offset`: .*>=1/);
  });

  it('refuses ../ and symlink escapes', async () => {
    fs.writeFileSync(path.join(bed.ws.root, 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(bed.ws.root, 'secret.txt'), path.join(bed.ws.workspace, 'link.txt'));
    const up = await bed.h.call('read_file', { path: '../secret.txt' });
    expect(up.status).toBe('denied');
    expect(up.output).toBe(
      `Path is outside the workspace: ../secret.txt. Only paths inside ${bed.ws.workspace} can be used; pass a path relative to the workspace root.`,
    );
    const link = await bed.h.call('read_file', { path: 'link.txt' });
    expect(link.status).toBe('denied');
    expect(link.output).toBe(
      `Path is outside the workspace: link.txt (through a symlink, it resolves to ${path.join(bed.ws.root, 'secret.txt')}). Only paths inside ${bed.ws.workspace} can be used; pass a path relative to the workspace root.`,
    );
    expect(link.output).not.toContain('secret\n');
  });
});

describe('read_file: big files and cuts', () => {
  /** 100,000 lines of exactly 100 bytes each (10,000,000 bytes). */
  function writeLog(): void {
    const body = Array.from({ length: 100_000 }, (_, i) => `${String(i + 1).padStart(8, '0')} ${'x'.repeat(90)}\n`).join('');
    bed.ws.write('app.log', body);
  }

  it('a 10 MB log with no window answers with its size, line count and how to page', async () => {
    writeLog();
    const r = await bed.h.call('read_file', { path: 'app.log' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `app.log is 9.5 MB (10,000,000 bytes) and 100,000 lines, too large to read whole (the limit without a window is 4.0 MB). ` +
        `Read it in windows with offset and limit (at most ${BUDGET.READ_MAX_LINES} lines per call), starting with read_file with path=app.log offset=1 limit=${BUDGET.READ_MAX_LINES}; to find text in it use grep.`,
    );
    expect(r.hint).toBe(`Page it: read_file with path=app.log offset=1 limit=${BUDGET.READ_MAX_LINES}, then continue from the offset the footer gives.`);
  });

  it('a 10 MB log gives a window bounded by bytes, with the note and exact counts', async () => {
    writeLog();
    const r = await bed.h.call('read_file', { path: 'app.log', offset: 1 });
    expect(r.status).toBe('ok');
    // each shown line is "     1\t" (width 6, from 100,000 lines) + 99 bytes + "\n" = 107 bytes; 149 × 107 = 15,943 ≤ 16,000
    const lines = r.output.split('\n');
    expect(lines).toHaveLength(150);
    expect(lines[0]).toBe(`     1\t00000001 ${'x'.repeat(90)}`);
    expect(lines[148]).toBe(`   149\t00000149 ${'x'.repeat(90)}`);
    expect(lines[149]).toBe(
      `(lines 1–149 of 100000; the window stopped at its 16,000-byte cap after 149 of the ${BUDGET.READ_MAX_LINES} lines asked for; continue with offset=150)`,
    );
    expect(Buffer.byteLength(lines.slice(0, 149).join('\n') + '\n')).toBe(15_943);
    expect(r.truncation).toEqual({ unit: 'lines', shown: 149, total: BUDGET.READ_MAX_LINES, omittedLines: BUDGET.READ_MAX_LINES - 149, by: 'tool' });
    expect(r.hint).toBe('To continue: read_file with path=app.log offset=150.');
    const next = await bed.h.call('read_file', { path: 'app.log', offset: 99_990 });
    expect(next.output.split('\n').at(-1)).toBe('(lines 99990–100000 of 100000; end of file)');
  });

  it('pages a 1 GB sparse file at offset 5,000,000 with bounded memory', async () => {
    const GiB = 1024 * 1024 * 1024;
    const abs = path.join(bed.ws.workspace, 'huge.log');
    const fd = fs.openSync(abs, 'w');
    fs.writeSync(fd, Buffer.alloc(4_999_999, 0x0a), 0, 4_999_999, 0); // lines 1–4,999,999 are empty
    const targets = Array.from({ length: 10 }, (_, i) => `target ${5_000_000 + i}\n`).join('');
    fs.writeSync(fd, targets, 4_999_999);
    fs.ftruncateSync(fd, GiB); // the hole reads as NULs: line 5,000,010 is ~1 GB long
    fs.writeSync(fd, '\nend\n', GiB - 5);
    fs.closeSync(fd);
    const nulLineBytes = GiB - 5 - (4_999_999 + Buffer.byteLength(targets));

    const before = process.memoryUsage().rss;
    const r = await bed.h.call('read_file', { path: 'huge.log', offset: 5_000_000, limit: 20 });
    const grown = process.memoryUsage().rss - before;

    expect(r.status).toBe('ok');
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('5000000\ttarget 5000000');
    expect(lines[9]).toBe('5000009\ttarget 5000009');
    expect(lines[10]).toBe(`5000010\t${'\0'.repeat(BUDGET.READ_MAX_LINE_BYTES)}… [line cut: ${(nulLineBytes - BUDGET.READ_MAX_LINE_BYTES).toLocaleString('en-US')} more bytes]`);
    expect(lines[11]).toBe('5000011\tend');
    expect(lines[12]).toBe(`(lines 5000000–5000011 of 5000011; 1 long line cut at ${BUDGET.READ_MAX_LINE_BYTES.toLocaleString('en-US')} bytes (marked "line cut"); end of file)`);
    expect(grown).toBeLessThan(64 * 1024 * 1024);

    const whole = await bed.h.call('read_file', { path: 'huge.log' });
    expect(whole.output).toMatch(/^huge\.log is 1\.00 GB \(1,073,741,824 bytes\) and 5,000,011 lines, too large to read whole/);
  }, 60_000);

  it('cuts a long Chinese line on a character boundary with an exact byte count', async () => {
    const line = '汉字'.repeat(500); // 1,000 characters, 3,000 bytes
    bed.ws.write('zh.txt', `${line}\n短行\n`);
    const r = await bed.h.call('read_file', { path: 'zh.txt' });
    // 2,000 bytes would split a character: 666 characters (1,998 bytes) are kept, 1,002 bytes cut
    expect(r.output).toBe(
      `1\t${line.slice(0, 666)}… [line cut: 1,002 more bytes]\n2\t短行\n(lines 1–2 of 2; 1 long line cut at 2,000 bytes (marked "line cut"); end of file)`,
    );
    expect(r.output).not.toContain('\ufffd');
    expect(Buffer.byteLength(line.slice(0, 666))).toBe(1998);
  });

  it('bounds a window of Chinese lines by bytes with honest counts', async () => {
    bed.ws.write('zh.txt', Array.from({ length: 10 }, () => '中文内容').join('\n') + '\n'); // 12 bytes of text per line
    const r = await bed.h.call('read_file', { path: 'zh.txt', offset: 1 }, { budget: { READ_WINDOW_MAX_BYTES: 50 } });
    // "1\t" + 12 + "\n" = 15 bytes (width 2 for 10 lines: " 1\t" → 16); 3 × 16 = 48 ≤ 50
    expect(r.output).toBe(' 1\t中文内容\n 2\t中文内容\n 3\t中文内容\n(lines 1–3 of 10; the window stopped at its 50-byte cap after 3 of the 10 lines asked for; continue with offset=4)');
    expect(r.truncation).toEqual({ unit: 'lines', shown: 3, total: 10, omittedLines: 7, by: 'tool' });
  });
});

describe('read_file: lowered caps', () => {
  it('READ_MAX_LINES lowered: a whole-file read is cut with the note and exact counts', async () => {
    bed.ws.write('a.txt', numbered(10));
    const r = await bed.h.call('read_file', { path: 'a.txt' }, { budget: { READ_MAX_LINES: 3 } });
    expect(r.output).toBe(' 1\tline 1\n 2\tline 2\n 3\tline 3\n(lines 1–3 of 10; continue with offset=4)');
    expect(r.truncation).toEqual({ unit: 'lines', shown: 3, total: 10, omittedLines: 7, by: 'tool' });
    expect(r.hint).toBe('To continue: read_file with path=a.txt offset=4.');
  });

  it('a limit above READ_MAX_LINES is lowered and says so', async () => {
    bed.ws.write('a.txt', numbered(10));
    const r = await bed.h.call('read_file', { path: 'a.txt', offset: 2, limit: 5 }, { budget: { READ_MAX_LINES: 3 } });
    expect(r.output).toBe(' 2\tline 2\n 3\tline 3\n 4\tline 4\n(lines 2–4 of 10; limit 5 lowered to the 3-line maximum; continue with offset=5)');
  });

  it('READ_MAX_LINE_BYTES lowered: the marker counts the cut bytes exactly', async () => {
    bed.ws.write('a.txt', 'abcdefghij\r\nshort\n');
    const r = await bed.h.call('read_file', { path: 'a.txt' }, { budget: { READ_MAX_LINE_BYTES: 4 } });
    expect(r.output).toBe('1\tabcd… [line cut: 6 more bytes]\n2\tshor… [line cut: 1 more bytes]\n(lines 1–2 of 2; 2 long lines cut at 4 bytes (marked "line cut"); end of file)');
  });

  it('READ_WHOLE_FILE_MAX_BYTES lowered: no window → size and how to page', async () => {
    bed.ws.write('a.txt', numbered(10)); // 71 bytes
    const r = await bed.h.call('read_file', { path: 'a.txt' }, { budget: { READ_WHOLE_FILE_MAX_BYTES: 50 } });
    expect(r.output).toBe(
      `a.txt is 71 bytes and 10 lines, too large to read whole (the limit without a window is 50 bytes). Read it in windows with offset and limit (at most ${BUDGET.READ_MAX_LINES} lines per call), starting with read_file with path=a.txt offset=1 limit=${BUDGET.READ_MAX_LINES}; to find text in it use grep.`,
    );
    const windowed = await bed.h.call('read_file', { path: 'a.txt', limit: 2 }, { budget: { READ_WHOLE_FILE_MAX_BYTES: 50 } });
    expect(windowed.output).toBe(' 1\tline 1\n 2\tline 2\n(lines 1–2 of 10; continue with offset=3)');
  });

  it('READ_COUNT_MAX_BYTES lowered: the total becomes an honest lower bound', async () => {
    bed.ws.write('a.txt', 'x\n'.repeat(3_000_000)); // 6,000,000 bytes, more than one read chunk
    const r = await bed.h.call('read_file', { path: 'a.txt', limit: 2 }, { budget: { READ_COUNT_MAX_BYTES: 10 } });
    // the first 1 MiB chunk is scanned whole: 524,288 lines counted
    expect(r.output).toBe('     1\tx\n     2\tx\n(lines 1–2 of at least 524288 (counted in the first 1.0 MB of 5.7 MB); continue with offset=3)');
    expect(r.hint).toBe('To continue: read_file with path=a.txt offset=3.');
  });
});

describe('read_file: under a lowered exit clamp', () => {
  it('shrinks the window so the footer still arrives, and quotes a path with spaces in next steps', async () => {
    bed.ws.write('my notes.txt', numbered(100));
    const r = await bed.h.call('read_file', { path: 'my notes.txt', offset: 1 }, { budget: { TOOL_OUTPUT_MAX_BYTES: 600 } });
    // the footer is measured, not reserved: lines are kept while they and the footer fit in 600 bytes
    const lines = Array.from({ length: 39 }, (_, i) => `${String(i + 1).padStart(3)}\tline ${i + 1}\n`).join('');
    expect(r.output).toBe(`${lines}(lines 1–39 of 100; the output stopped at the result's 600-byte cap after 39 of the 100 lines asked for; continue with offset=40)`);
    // one more line (12 bytes) would not have fitted
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(600);
    expect(Buffer.byteLength(r.output) + 12).toBeGreaterThan(600);
    expect(r.hint).toBe('To continue: read_file with path="my notes.txt" offset=40.');
    expect(r.truncation).toEqual({ unit: 'lines', shown: 39, total: 100, omittedLines: 61, by: 'tool' });
  });
});

describe('read_file: abort', () => {
  it('stops a long scan when the signal is aborted', async () => {
    bed.ws.write('a.txt', 'x\n'.repeat(3_000_000)); // several read chunks
    let checks = 0;
    // aborts once the scan has started: dispatch checks once, the scan checks per chunk
    const signal = { get aborted() { return ++checks > 2; } } as unknown as AbortSignal;
    const r = await bed.h.call('read_file', { path: 'a.txt', offset: 2_900_000 }, { signal });
    expect(r).toMatchObject({ status: 'error', output: 'read_file was stopped by the user before it finished.' });
  });
});

describe('read_file: the line index', () => {
  beforeEach(() => clearReadIndex());

  /**
   * `n` lines after a BOM: mostly short, every 7th ends in CRLF, every 1000th is 5,000 bytes of "é"
   * (cut for display), multi-byte text throughout, and no newline after the last line.
   */
  function mixedLines(n: number): string {
    const out: string[] = [];
    for (let i = 1; i <= n; i++) {
      const text = i % 1000 === 0 ? 'é'.repeat(2500) : `row ${i} ${'ab'.repeat(i % 13)} 中`;
      out.push(i === n ? text : `${text}${i % 7 === 0 ? '\r\n' : '\n'}`);
    }
    return `\ufeff${out.join('')}`;
  }

  const readBytes = () => readIndexStats().bytesRead;

  it('pages a 300,000-line file with exactly the output a scan from the start gives, under any budget', async () => {
    bed.ws.write('big.log', mixedLines(300_000));
    const small: Partial<Budget> = { READ_INDEX_STRIDE_LINES: 1000, READ_INDEX_MAX_CHECKPOINTS: 16 }; // thinned many times
    const capped: Partial<Budget> = { READ_COUNT_MAX_BYTES: 2 * 1024 * 1024 + 5 }; // the total becomes "at least"
    const calls: [Record<string, unknown>, Partial<Budget>][] = [
      [{ path: 'big.log', offset: 299_990 }, {}],
      [{ path: 'big.log', offset: 1, limit: 5 }, {}],
      [{ path: 'big.log', offset: 16_384, limit: 3 }, {}],
      [{ path: 'big.log', offset: 16_385, limit: 3 }, {}],
      [{ path: 'big.log', offset: 150_000 }, {}],
      [{ path: 'big.log', offset: 123_457, limit: 40 }, small],
      [{ path: 'big.log', offset: 200_000, limit: 3 }, small],
      [{ path: 'big.log', offset: 1, limit: 2 }, capped],
      [{ path: 'big.log', offset: 40_000, limit: 2 }, capped],
      [{ path: 'big.log', offset: 299_000, limit: 2 }, capped],
      [{ path: 'big.log', offset: 300_000 }, {}],
      [{ path: 'big.log', offset: 300_001 }, {}],
      [{ path: 'big.log', offset: 400_000, limit: 10 }, capped],
      [{ path: 'big.log' }, {}],
      [{ path: 'big.log', offset: 299_990 }, {}],
    ];
    const cold = [];
    for (const [args, budget] of calls) {
      clearReadIndex();
      cold.push(await bed.h.call('read_file', args, { budget }));
    }
    clearReadIndex();
    const warm = [];
    for (const [args, budget] of calls) warm.push(await bed.h.call('read_file', args, { budget }));
    expect(warm).toEqual(cold);
    // the cases are what they claim to be
    expect(cold[0].output.split('\n').at(-1)).toBe('(lines 299990–300000 of 300000; 1 long line cut at 2,000 bytes (marked "line cut"); end of file)');
    expect(cold[7].output).toBe('    1\trow 1 ab 中\n    2\trow 2 abab 中\n(lines 1–2 of at least 98348 (counted in the first 3.0 MB of 9.4 MB); continue with offset=3)');
    expect(cold[11].output).toBe('Offset 300001 is past the end of big.log: the file has 300000 lines. Use an offset from 1 to 300000 (offset=298001 shows the last 2000).');
    expect(cold[13].output).toMatch(/^big\.log is .* and 300,000 lines, too large to read whole/);
    expect(readIndexStats().paths).toEqual([path.join(bed.ws.workspace, 'big.log')]);
  }, 30_000);

  it('never serves a changed file from stale checkpoints: append, truncate, same-size rewrite', async () => {
    const budget = { READ_INDEX_STRIDE_LINES: 100 };
    const abs = bed.ws.write('grow.log', numbered(50_000));
    const first = await bed.h.call('read_file', { path: 'grow.log', offset: 40_000, limit: 2 }, { budget });
    expect(first.output).toBe('40000\tline 40000\n40001\tline 40001\n(lines 40000–40001 of 50000; continue with offset=40002)');

    fs.appendFileSync(abs, 'line 50001\nline 50002\n');
    const appended = await bed.h.call('read_file', { path: 'grow.log', offset: 50_001 }, { budget });
    expect(appended.output).toBe('50001\tline 50001\n50002\tline 50002\n(lines 50001–50002 of 50002; end of file)');

    fs.truncateSync(abs, Buffer.byteLength(numbered(30_000)));
    const truncated = await bed.h.call('read_file', { path: 'grow.log', offset: 40_000 }, { budget });
    expect(truncated.output).toBe('Offset 40000 is past the end of grow.log: the file has 30000 lines. Use an offset from 1 to 30000 (offset=28001 shows the last 2000).');
    expect((await bed.h.call('read_file', { path: 'grow.log', offset: 29_999 }, { budget })).output).toBe(
      '29999\tline 29999\n30000\tline 30000\n(lines 29999–30000 of 30000; end of file)',
    );

    // same size, lines shifted (the first line is 4 bytes shorter, another 4 bytes longer), an older mtime
    const size = fs.statSync(abs).size;
    const rewritten = numbered(30_000).replace('line 1\n', 'e1\n').replace('line 2\n', 'line 22222\n');
    expect(Buffer.byteLength(rewritten)).toBe(size);
    await bed.h.call('read_file', { path: 'grow.log', offset: 25_000, limit: 1 }, { budget }); // index the old content
    fs.writeFileSync(abs, rewritten);
    fs.utimesSync(abs, new Date(2001, 1, 1), new Date(2001, 1, 1));
    const same = await bed.h.call('read_file', { path: 'grow.log', offset: 25_000, limit: 1 }, { budget });
    expect(same.output).toBe('25000\tline 25000\n(lines 25000–25000 of 30000; continue with offset=25001)');
    expect((await bed.h.call('read_file', { path: 'grow.log', limit: 2 }, { budget })).output).toBe('    1\te1\n    2\tline 22222\n(lines 1–2 of 30000; continue with offset=3)');
  });

  it('a second deep read starts near its window: far fewer bytes read than the first', async () => {
    bed.ws.write('big.log', mixedLines(300_000));
    const size = fs.statSync(path.join(bed.ws.workspace, 'big.log')).size;
    let before = readBytes();
    const a = await bed.h.call('read_file', { path: 'big.log', offset: 290_001, limit: 5 });
    const firstBytes = readBytes() - before;
    before = readBytes();
    const b = await bed.h.call('read_file', { path: 'big.log', offset: 290_101, limit: 5 });
    const secondBytes = readBytes() - before;
    expect(a.output.split('\n').at(-1)).toBe('(lines 290001–290005 of 300000; continue with offset=290006)');
    expect(b.output.split('\n').at(-1)).toBe('(lines 290101–290105 of 300000; continue with offset=290106)');
    expect(firstBytes).toBe(size); // the first read counted to the end
    // from the checkpoint to the end of its read chunk (1 MiB at most), plus the newline check; no count
    expect(secondBytes).toBeLessThanOrEqual(1024 * 1024 + 1);
    expect(secondBytes).toBeLessThan(firstBytes / 10);
  });

  /** What a scan of the file's current bytes gives with no index: the same file under a fresh workspace. */
  async function cold(rel: string, args: Record<string, unknown>, budget: Partial<Budget> = {}) {
    const fresh = tempWorkspace();
    try {
      fresh.write(rel, fs.readFileSync(path.join(bed.ws.workspace, rel)));
      return await harness([readFileTool], fresh).call('read_file', args, { budget });
    } finally {
      fresh.cleanup();
    }
  }

  it('keeps its checkpoints across an append: the next deep read reads its chunk and the new bytes, and answers as a cold scan', async () => {
    const abs = bed.ws.write('build.log', mixedLines(300_000)); // no newline at its end: the append continues that line
    const first = await bed.h.call('read_file', { path: 'build.log', offset: 290_001, limit: 5 });
    expect(first.output.split('\n').at(-1)).toBe('(lines 290001–290005 of 300000; continue with offset=290006)');
    const checkpoints = readIndexStats().checkpoints;
    expect(checkpoints).toBeGreaterThan(10);

    const added = ` continued\n${mixedLines(3000).slice(1)}\nlast, unterminated`;
    fs.appendFileSync(abs, added);
    const addedBytes = Buffer.byteLength(added);
    const size = fs.statSync(abs).size;
    const before = readIndexStats();
    const deep = await bed.h.call('read_file', { path: 'build.log', offset: 150_000, limit: 5 });
    const after = readIndexStats();
    // from the checkpoint to the end of its 1 MiB chunk, the newline before it, and the appended bytes counted once
    expect(after.bytesRead - before.bytesRead).toBeLessThanOrEqual(1024 * 1024 + 1 + addedBytes);
    expect(after.bytesRead - before.bytesRead).toBeLessThan(size / 5);
    // the old version's fingerprint checked, the new one's taken: three regions of 4 KiB each
    expect(after.fingerprintBytesRead - before.fingerprintBytesRead).toBeLessThanOrEqual(2 * 3 * 4096);
    expect(after.paths).toEqual([abs]);
    expect(after.checkpoints).toBeGreaterThanOrEqual(checkpoints);
    expect(deep).toEqual(await cold('build.log', { path: 'build.log', offset: 150_000, limit: 5 }));
    expect(deep.output.split('\n').at(-1)).toBe('(lines 150000–150004 of 303001; 1 long line cut at 2,000 bytes (marked "line cut"); continue with offset=150005)');

    // a second append, then windows across the old end, at the new end, past it, and the whole-file answer
    fs.appendFileSync(abs, ' more\nand a line\n');
    const calls: Record<string, unknown>[] = [
      { path: 'build.log', offset: 299_999, limit: 4 },
      { path: 'build.log', offset: 302_990 },
      { path: 'build.log', offset: 303_003 },
      { path: 'build.log', offset: 1, limit: 2 },
      { path: 'build.log' },
    ];
    for (const args of calls) expect(await bed.h.call('read_file', args)).toEqual(await cold('build.log', args));
    expect(readIndexStats().paths).toContain(abs); // beside the cold copies' entries
    // line 300,000 (5,000 bytes of "é") now ends with the appended " continued": 5,010 bytes, cut at 2,000
    expect((await bed.h.call('read_file', calls[0])).output.split('\n').slice(1)).toEqual([
      `300000\t${'é'.repeat(1000)}… [line cut: 3,010 more bytes]`,
      '300001\trow 1 ab 中',
      '300002\trow 2 abab 中',
      '(lines 299999–300002 of 303002; 1 long line cut at 2,000 bytes (marked "line cut"); continue with offset=300003)',
    ]);
  }, 30_000);

  it('drops the index when an append also rewrote bytes before the old end (head or tail), and answers as a cold scan', async () => {
    const budget = { READ_INDEX_STRIDE_LINES: 100 };
    const abs = bed.ws.write('grow.log', numbered(50_000));
    for (const [label, at, byte] of [['tail', -3, '\n'], ['head', 2, '\n']] as const) {
      bed.ws.write('grow.log', numbered(50_000));
      await bed.h.call('read_file', { path: 'grow.log', offset: 40_000, limit: 1 }, { budget }); // index this version
      const ino = fs.statSync(abs).ino;
      const fd = fs.openSync(abs, 'r+'); // same inode: "line 50000" becomes "line 500\n0" (or "line 1" becomes "li\ne 1")
      fs.writeSync(fd, byte, at < 0 ? fs.fstatSync(fd).size + at : at);
      fs.closeSync(fd);
      fs.appendFileSync(abs, 'line 50001\n');
      expect(fs.statSync(abs).ino).toBe(ino);
      const before = readIndexStats().bytesRead;
      const r = await bed.h.call('read_file', { path: 'grow.log', offset: 49_999 }, { budget });
      expect(readIndexStats().bytesRead - before, label).toBe(fs.statSync(abs).size); // rescanned from byte 0
      expect(r, label).toEqual(await cold('grow.log', { path: 'grow.log', offset: 49_999 }, budget));
      expect(r.output, label).toBe(label === 'tail'
        ? '49999\tline 49999\n50000\tline 500\n50001\t0\n50002\tline 50001\n(lines 49999–50002 of 50002; end of file)'
        : '49999\tline 49998\n50000\tline 49999\n50001\tline 50000\n50002\tline 50001\n(lines 49999–50002 of 50002; end of file)');
    }
  });

  it('drops the index when the file was truncated and then grew past its old size', async () => {
    const budget = { READ_INDEX_STRIDE_LINES: 100 };
    const abs = bed.ws.write('grow.log', numbered(50_000));
    const oldSize = fs.statSync(abs).size;
    await bed.h.call('read_file', { path: 'grow.log', offset: 45_000, limit: 1 }, { budget });
    fs.truncateSync(abs, Buffer.byteLength(numbered(30_000))); // the same inode, its head unchanged
    fs.appendFileSync(abs, Array.from({ length: 25_000 }, (_, i) => `next ${i + 1}`).join('\n') + '\n');
    expect(fs.statSync(abs).size).toBeGreaterThan(oldSize);
    const before = readIndexStats().bytesRead;
    const r = await bed.h.call('read_file', { path: 'grow.log', offset: 45_000, limit: 2 }, { budget });
    expect(readIndexStats().bytesRead - before).toBe(fs.statSync(abs).size);
    expect(r).toEqual(await cold('grow.log', { path: 'grow.log', offset: 45_000, limit: 2 }, budget));
    expect(r.output).toBe('45000\tnext 15000\n45001\tnext 15001\n(lines 45000–45001 of 55000; continue with offset=45002)');
  });

  it('a file of a few very long lines gets checkpoints by bytes', async () => {
    bed.ws.write('long.log', `head\n${'z'.repeat(6 * 1024 * 1024)}\n${numbered(100)}`);
    const budget = { READ_INDEX_STRIDE_BYTES: 1024 * 1024 };
    await bed.h.call('read_file', { path: 'long.log', offset: 50, limit: 1 }, { budget });
    const before = readBytes();
    const r = await bed.h.call('read_file', { path: 'long.log', offset: 60, limit: 1 }, { budget });
    expect(r.output).toBe(' 60\tline 58\n(lines 60–60 of 102; continue with offset=61)');
    expect(readBytes() - before).toBeLessThan(1024 * 1024);
  });

  it('stays within its bounds after many files, forgetting the least recently read first', async () => {
    const budget = { READ_INDEX_MAX_FILES: 3, READ_INDEX_STRIDE_LINES: 20, READ_INDEX_MAX_CHECKPOINTS: 8 };
    for (let i = 0; i < 40; i++) bed.ws.write(`small/${i}.txt`, numbered(10)); // no checkpoint past line 1: no entry
    for (let i = 0; i < 40; i++) await bed.h.call('read_file', { path: `small/${i}.txt`, offset: 9 }, { budget });
    expect(readIndexStats().paths).toEqual([]);

    const abs = (i: number) => path.join(bed.ws.workspace, `f${i}.txt`);
    for (let i = 0; i < 10; i++) bed.ws.write(`f${i}.txt`, numbered(500));
    for (let i = 0; i < 3; i++) await bed.h.call('read_file', { path: `f${i}.txt`, offset: 400, limit: 1 }, { budget });
    await bed.h.call('read_file', { path: 'f0.txt', offset: 450, limit: 1 }, { budget }); // f0 becomes the most recent
    await bed.h.call('read_file', { path: 'f3.txt', offset: 400, limit: 1 }, { budget });
    expect(readIndexStats().paths).toEqual([abs(2), abs(0), abs(3)]);
    for (let i = 4; i < 10; i++) {
      const r = await bed.h.call('read_file', { path: `f${i}.txt`, offset: 500 }, { budget });
      expect(r.output).toBe('500\tline 500\n(lines 500–500 of 500; end of file)');
    }
    const stats = readIndexStats();
    expect(stats.paths).toEqual([abs(7), abs(8), abs(9)]);
    expect(stats.maxCheckpointsPerFile).toBeLessThanOrEqual(8);
    expect(stats.maxCheckpointsPerFile).toBeGreaterThan(4); // thinned to half, then filled again
    expect(stats.checkpoints).toBeLessThanOrEqual(3 * 8);
  });
});

describe('shared helpers: binaryType and nearNames', () => {
  it('names binary types by magic number, NUL or extension; text stays text', () => {
    const b = (...xs: (number | string)[]) => Buffer.concat(xs.map((x) => (typeof x === 'string' ? Buffer.from(x, 'latin1') : Buffer.from([x]))));
    expect(binaryType(b(0xff, 0xd8, 0xff, 0xe0, 'JFIF'), 'x.txt')).toBe('JPEG image');
    expect(binaryType(b('PK', 3, 4, 'rest'), 'report.docx')).toBe('Word document');
    expect(binaryType(b('PK', 3, 4, 'rest'), 'bundle.zip')).toBe('ZIP archive');
    expect(binaryType(b(0x7f, 'ELF', 2, 1), 'tool')).toBe('ELF executable');
    expect(binaryType(b(0xff, 0xfe, 'h', 0, 'i', 0), 'notes.txt')).toBe('UTF-16 text');
    expect(binaryType(b('%PDF-1.7\n'), 'doc.pdf')).toBe('PDF document');
    expect(binaryType(b('abc', 0, 'def'), 'font.woff2')).toBe('WOFF2 font');
    expect(binaryType(b(0x80, 0x81, 0x82), 'clip.mp4')).toBe('MP4 video'); // invalid UTF-8 with a binary extension
    expect(binaryType(b(0x80, 0x81, 0x82), 'data.csv')).toBeNull(); // invalid UTF-8 alone is shown lossily
    expect(binaryType(Buffer.from('plain text\n'), 'a.ts')).toBeNull();
    expect(binaryType(Buffer.alloc(0), 'empty.png')).toBeNull();
  });

  it('suggests near names along the path and the same name elsewhere, at most three', () => {
    bed.ws.write('src/components/Button.tsx', 'x');
    bed.ws.write('lib/deep/utils.ts', 'x');
    bed.ws.write('README.md', 'x');
    expect(nearNames(bed.ws.workspace, 'scr/components/Button.tsx')).toEqual(['src/components/Button.tsx']);
    expect(nearNames(bed.ws.workspace, 'src/componets/buton.tsx')).toEqual(['src/components/Button.tsx']);
    expect(nearNames(bed.ws.workspace, 'Readme.md')).toEqual(['README.md']);
    expect(nearNames(bed.ws.workspace, 'utils.ts')).toEqual(['lib/deep/utils.ts']);
    expect(nearNames(bed.ws.workspace, '../README.md')).toEqual([]);
    for (const n of ['aa1', 'aa2', 'aa3', 'aa4']) bed.ws.write(n, 'x');
    expect(nearNames(bed.ws.workspace, 'aa0')).toEqual(['aa1', 'aa2', 'aa3']);
    expect(notFoundError(bed.ws.workspace, 'README.m', 'Path').message).toBe('Path not found: README.m. Did you mean README.md?');
  });
});
