import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compilePattern, grepTool, requiredLiteral } from '../../lib/tools/grep/grep';
import { search } from '../../lib/tools/grep/engine';
import { findRg } from '../../lib/tools/grep/ripgrep';
import { budgetTable } from '../../lib/contract/budget';
import { toolBed } from '../helpers';

const bed = toolBed([grepTool], { services: { grepEngine: 'builtin' } });

describe('grep: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(grepTool.schema)).toMatchSnapshot();
  });

  it('describes itself with numbers from the budget it is given and names its siblings', () => {
    const text = grepTool.describe(budgetTable({ GREP_MAX_MATCHES: 77, GREP_MAX_LINE_BYTES: 99, GREP_MAX_CONTEXT_LINES: 4, GREP_MAX_FILE_BYTES: 2 * 1024 * 1024 }));
    expect(text).toContain('at most 77 matching lines');
    expect(text).toContain('Lines are cut at 99 bytes');
    expect(text).toContain('context at most 4 lines');
    expect(text).toContain('Files over 2.0 MB are skipped');
    expect(text).toContain('To find files by name use glob');
    expect(text).toContain('literal: true');
    expect(grepTool.effect).toBe('read');
  });
});

describe('grep: happy path', () => {
  it('finds regex matches as path:line:text, sorted by path then line, with a summary', async () => {
    bed.ws.write('src/b.ts', 'const b = loadUser();\nnothing\nloadUsers()\n');
    bed.ws.write('src/a.ts', 'x\nfunction loadUser(id) {}\n');
    bed.ws.write('README.md', 'call loadUser to load\n');
    const r = await bed.h.call('grep', { pattern: 'load\\w+\\(' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      ['src/a.ts:2:function loadUser(id) {}', 'src/b.ts:1:const b = loadUser();', 'src/b.ts:3:loadUsers()', '', 'Found 3 matching lines in 2 files (3 files searched).'].join('\n'),
    );
    expect(r.truncation).toBeNull();
    expect(r.hint).toBeUndefined();
  });

  it('sorts by path segment by segment, whatever order the files were created in', async () => {
    for (const f of ['b.txt', 'a/z.txt', 'a-c.txt', 'A.txt', 'a/b/c.txt', 'a.txt']) bed.ws.write(f, 'hit\n');
    const r = await bed.h.call('grep', { pattern: 'hit', output_mode: 'files_with_matches' });
    expect(r.output).toBe(['A.txt', 'a/b/c.txt', 'a/z.txt', 'a-c.txt', 'a.txt', 'b.txt', '', '6 files match (6 files searched).'].join('\n'));
  });

  it('searches literally on request: regex characters are plain text', async () => {
    bed.ws.write('a.js', 'x = a.b(c[0]);\ny = aXb(c[0]);\n');
    const r = await bed.h.call('grep', { pattern: 'a.b(c[0]', literal: true });
    expect(r.output).toBe('a.js:1:x = a.b(c[0]);\n\nFound 1 matching line in 1 file (1 file searched).');
  });

  it('ignores case on request, and accepts a leading (?i)', async () => {
    bed.ws.write('a.txt', 'Hello\nHELLO\nhello\nhelo\n');
    const r = await bed.h.call('grep', { pattern: 'hello', ignore_case: true, output_mode: 'count' });
    expect(r.output).toBe('a.txt:3\n\nFound 3 matching lines in 1 file (1 file searched).');
    expect((await bed.h.call('grep', { pattern: '(?i)HeLLo', output_mode: 'count' })).output).toBe(r.output);
    expect((await bed.h.call('grep', { pattern: 'HELLO', literal: true, ignore_case: true, output_mode: 'count' })).output).toBe(r.output);
  });

  it('searches a single file given as path, and a subfolder', async () => {
    bed.ws.write('src/x.ts', 'needle\n');
    bed.ws.write('lib/y.ts', 'needle\n');
    expect((await bed.h.call('grep', { pattern: 'needle', path: 'src/x.ts' })).output).toBe('src/x.ts:1:needle\n\nFound 1 matching line in 1 file (1 file searched).');
    expect((await bed.h.call('grep', { pattern: 'needle', path: 'lib' })).output).toBe('lib/y.ts:1:needle\n\nFound 1 matching line in 1 file (1 file searched).');
  });

  it('strips CRLF line ends and a BOM, so $ and ^ work per line', async () => {
    bed.ws.write('w.txt', '\uFEFFfirst;\r\nsecond;\r\n');
    const r = await bed.h.call('grep', { pattern: '^\\w+;$' });
    expect(r.output).toBe('w.txt:1:first;\nw.txt:2:second;\n\nFound 2 matching lines in 1 file (1 file searched).');
  });

  it('lists files or counts per file in the other output modes', async () => {
    bed.ws.write('a.txt', 'x\nx\n');
    bed.ws.write('b.txt', 'y\n');
    bed.ws.write('c.txt', 'x\n');
    expect((await bed.h.call('grep', { pattern: 'x', output_mode: 'files_with_matches' })).output).toBe('a.txt\nc.txt\n\n2 files match (3 files searched).');
    expect((await bed.h.call('grep', { pattern: 'x', output_mode: 'count' })).output).toBe('a.txt:2\nc.txt:1\n\nFound 3 matching lines in 2 files (3 files searched).');
  });
});

describe('grep: include', () => {
  beforeEach(() => {
    bed.ws.write('src/app/page.tsx', 'TODO one\n');
    bed.ws.write('src/util.ts', 'TODO two\n');
    bed.ws.write('test/util.test.ts', 'TODO three\n');
    bed.ws.write('notes.md', 'TODO four\n');
  });

  it('matches the file name', async () => {
    const r = await bed.h.call('grep', { pattern: 'TODO', include: '*.ts', output_mode: 'files_with_matches' });
    expect(r.output).toBe('src/util.ts\ntest/util.test.ts\n\n2 files match (2 files searched).');
  });

  it('matches the relative path, with ** and braces', async () => {
    const r = await bed.h.call('grep', { pattern: 'TODO', include: 'src/**/*.{ts,tsx}', output_mode: 'files_with_matches' });
    expect(r.output).toBe('src/app/page.tsx\nsrc/util.ts\n\n2 files match (2 files searched).');
  });

  it('matches the path relative to path', async () => {
    const r = await bed.h.call('grep', { pattern: 'TODO', path: 'src', include: 'app/*.tsx', output_mode: 'files_with_matches' });
    expect(r.output).toBe('src/app/page.tsx\n\n1 file matches (1 file searched).');
  });

  it('says so when include selects no file', async () => {
    const r = await bed.h.call('grep', { pattern: 'TODO', include: '*.py' });
    expect(r.output).toBe(
      'No files in the workspace match include "*.py" (4 files seen). include is matched against the path relative to the workspace, the path relative to path, and the file name; check the glob.',
    );
  });
});

describe('grep: context', () => {
  it('shows context lines as path-line-text and separates groups with --', async () => {
    bed.ws.write('a.txt', ['l1', 'l2', 'hit3', 'l4', 'l5', 'l6', 'l7', 'hit8', 'hit9', 'l10'].join('\n') + '\n');
    bed.ws.write('b.txt', 'hit1\nl2\n');
    const r = await bed.h.call('grep', { pattern: 'hit', context: 1 });
    expect(r.output).toBe(
      ['a.txt-2-l2', 'a.txt:3:hit3', 'a.txt-4-l4', '--', 'a.txt-7-l7', 'a.txt:8:hit8', 'a.txt:9:hit9', 'a.txt-10-l10', '--', 'b.txt:1:hit1', 'b.txt-2-l2', '', 'Found 4 matching lines in 2 files (2 files searched).'].join(
        '\n',
      ),
    );
  });

  it('caps context at GREP_MAX_CONTEXT_LINES and says so', async () => {
    bed.ws.write('a.txt', 'a\nb\nc\nhit\nd\ne\n');
    const r = await bed.h.call('grep', { pattern: 'hit', context: 9 }, { budget: { GREP_MAX_CONTEXT_LINES: 1 } });
    expect(r.output).toBe('a.txt-3-c\na.txt:4:hit\na.txt-5-d\n\nFound 1 matching line in 1 file (1 file searched).\ncontext was capped at 1 line.');
  });
});

describe('grep: caps', () => {
  it('stops at the match cap with exact counts and the next step; the kept lines are the first in path order', async () => {
    bed.ws.write('c.txt', 'm\n');
    bed.ws.write('b.txt', 'm\nm\nm\n');
    bed.ws.write('a.txt', 'm\nm\n');
    const r = await bed.h.call('grep', { pattern: 'm' }, { budget: { GREP_MAX_MATCHES: 3 } });
    expect(r.output).toBe(
      [
        'a.txt:1:m',
        'a.txt:2:m',
        'b.txt:1:m',
        '',
        '[Capped at 3 matching lines: showing the first 3 of at least 5 matching lines (sorted by path, then line). The search stopped in b.txt after 2 files searched; later files were not searched. Narrow it with path, include or a more specific pattern, or use output_mode "files_with_matches" to list the matching files.]',
      ].join('\n'),
    );
    expect(r.truncation).toEqual({ unit: 'matches', shown: 3, total: 5, by: 'tool' });
    expect(r.hint).toBe('Showing the first 3 of at least 5 matching lines (sorted by path, then line). Narrow it with path, include or a more specific pattern.');
    expect(r.meta?.totalIsLowerBound).toBe(true);
  });

  it('exactly the cap of matches is not capped', async () => {
    bed.ws.write('a.txt', 'm\nm\n');
    bed.ws.write('b.txt', 'm\n');
    bed.ws.write('c.txt', 'none\n');
    const r = await bed.h.call('grep', { pattern: 'm' }, { budget: { GREP_MAX_MATCHES: 3 } });
    expect(r.output).toBe('a.txt:1:m\na.txt:2:m\nb.txt:1:m\n\nFound 3 matching lines in 2 files (3 files searched).');
    expect(r.truncation).toBeNull();
  });

  it('caps files in files_with_matches mode', async () => {
    for (const f of ['a', 'b', 'c', 'd']) bed.ws.write(`${f}.txt`, 'm\n');
    const r = await bed.h.call('grep', { pattern: 'm', output_mode: 'files_with_matches' }, { budget: { GREP_MAX_MATCHES: 2 } });
    expect(r.output).toBe(
      'a.txt\nb.txt\n\n[Capped at 2 files: showing the first 2 of at least 3 files with matches (sorted by path). The search stopped in c.txt after 3 files searched; later files were not searched. Narrow it with path, include or a more specific pattern.]',
    );
    expect(r.truncation).toEqual({ unit: 'files', shown: 2, total: 3, by: 'tool' });
  });

  it('stops before the exit clamp would cut, so the counts and next step arrive whole', async () => {
    for (let i = 0; i < 30; i++) bed.ws.write(`f${String(i).padStart(2, '0')}.txt`, `${'m'.repeat(100)}\n`);
    // the notes are measured, not reserved: the search stops at 2,100 bytes of lines (18), then lines go until lines and notes fit
    const r = await bed.h.call('grep', { pattern: 'm' }, { budget: { TOOL_OUTPUT_MAX_BYTES: 2100 } });
    const lines = r.output.split('\n');
    expect(lines.slice(0, 15)).toEqual(Array.from({ length: 15 }, (_, i) => `f${String(i).padStart(2, '0')}.txt:1:${'m'.repeat(100)}`));
    expect(lines.slice(15).join('\n')).toBe(
      '\n[Output limit of 1,665 bytes reached: showing the first 15 of at least 19 matching lines (sorted by path, then line). The search stopped in f18.txt after 19 files searched; later files were not searched. Narrow it with path, include or a more specific pattern, or use output_mode "files_with_matches" to list the matching files.]',
    );
    // one more line (111 bytes) would not have fitted
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(2100);
    expect(Buffer.byteLength(r.output) + 111).toBeGreaterThan(2100);
    expect(r.truncation).toEqual({ unit: 'matches', shown: 15, total: 19, by: 'tool' });
  });

  it('a search that finished but does not fit says all files were searched, with exact totals', async () => {
    for (let i = 0; i < 12; i++) bed.ws.write(`g${String(i).padStart(2, '0')}.txt`, `${'m'.repeat(100)}\n`);
    // 12 lines of 111 bytes fit in 1,350 bytes, but not with their summary
    const r = await bed.h.call('grep', { pattern: 'm' }, { budget: { TOOL_OUTPUT_MAX_BYTES: 1350 } });
    expect(r.output).toMatch(/\n\n\[Output limit of [\d,]+ bytes reached: showing the first (\d+) of 12 matching lines \(sorted by path, then line\)\. All 12 files were searched\. Narrow it/);
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(1350);
    expect(r.truncation).toMatchObject({ unit: 'matches', total: 12, by: 'tool' });
  });

  it('cuts long lines at GREP_MAX_LINE_BYTES with a marker, on a character boundary', async () => {
    bed.ws.write('a.txt', `汉字${'x'.repeat(50)}\n`);
    const r = await bed.h.call('grep', { pattern: '汉' }, { budget: { GREP_MAX_LINE_BYTES: 4 } });
    expect(r.output).toBe('a.txt:1:汉… [line cut: 53 more bytes]\n\nFound 1 matching line in 1 file (1 file searched).');
  });

  it('a match only in a file over the size cap: no matches, and the skipped file is named', async () => {
    bed.ws.write('small.txt', 'nothing here\n');
    bed.ws.write('logs/big.log', `${'x'.repeat(200)}\nthe needle\n`);
    const r = await bed.h.call('grep', { pattern: 'needle' }, { budget: { GREP_MAX_FILE_BYTES: 100 } });
    expect(r.output).toBe(
      'No matches for /needle/ in the workspace (1 file searched).\n1 file over 100 bytes skipped (not searched): logs/big.log. It may contain matches; page through it with read_file (offset/limit).',
    );
    expect(r.hint).toBe('Files over the size cap were skipped; page through them with read_file (offset/limit).');
    expect(r.meta?.skipped).toMatchObject({ oversize: { count: 1, samples: ['logs/big.log'] } });
  });

  it('reads files past the first 64 KB read, and measures files near the cap exactly', async () => {
    bed.ws.write('a-long.txt', `${'filler line\n'.repeat(9000)}needle at the end\n`); // 108,018 bytes
    bed.ws.write('b-over.txt', `${'x'.repeat(120_000)}\nneedle\n`);
    bed.ws.write('c-exact.txt', `needle${'y'.repeat(110_000 - 7)}\n`); // exactly the cap: searched
    const r = await bed.h.call('grep', { pattern: 'needle', output_mode: 'count' }, { budget: { GREP_MAX_FILE_BYTES: 110_000 } });
    expect(r.output).toBe(
      'a-long.txt:1\nc-exact.txt:1\n\nFound 2 matching lines in 2 files (2 files searched).\n1 file over 107.4 KB skipped (not searched): b-over.txt. It may contain matches; page through it with read_file (offset/limit).',
    );
    expect((await bed.h.call('grep', { pattern: 'end$', path: 'a-long.txt' })).output).toBe('a-long.txt:9001:needle at the end\n\nFound 1 matching line in 1 file (1 file searched).');
  });

  it('names at most three skipped files and counts the rest', async () => {
    for (const f of ['a', 'b', 'c', 'd']) bed.ws.write(`${f}.log`, 'y'.repeat(50));
    bed.ws.write('e.txt', 'y\n');
    const r = await bed.h.call('grep', { pattern: 'y' }, { budget: { GREP_MAX_FILE_BYTES: 10 } });
    expect(r.output).toBe(
      'e.txt:1:y\n\nFound 1 matching line in 1 file (1 file searched).\n4 files over 10 bytes skipped (not searched): a.log, b.log, c.log and 1 more. They may contain matches; page through one with read_file (offset/limit).',
    );
  });

  it('does not show binary files, but counts those that contain a match', async () => {
    bed.ws.write('img.bin', Buffer.concat([Buffer.from('PNG\0\0needle\n'), Buffer.alloc(10)]));
    bed.ws.write('other.bin', Buffer.from('\0\0nothing'));
    bed.ws.write('a.txt', 'needle\n');
    const r = await bed.h.call('grep', { pattern: 'needle' });
    expect(r.output).toBe('a.txt:1:needle\n\nFound 1 matching line in 1 file (3 files searched).\n1 binary file with a match not shown: img.bin.');
  });

  it('stops after GREP_MAX_FILES_VISITED files and says where', async () => {
    for (const f of ['a', 'b', 'c']) bed.ws.write(`${f}.txt`, 'x\n');
    const r = await bed.h.call('grep', { pattern: 'x' }, { budget: { GREP_MAX_FILES_VISITED: 2 } });
    expect(r.output).toBe(
      'a.txt:1:x\nb.txt:1:x\n\n[Stopped after visiting 2 files (the limit): files from c.txt on were not searched. Narrow it with path, include or a more specific pattern.]',
    );
    expect(r.truncation).toEqual({ unit: 'files', shown: 2, total: 3, by: 'tool' });
    expect(r.hint).toBe('Stopped after 2 files. Narrow it with path, include or a more specific pattern.');
  });
});

describe('grep: errors', () => {
  it('rejects an empty pattern before any I/O', async () => {
    const r = await bed.h.call('grep', { pattern: '', path: 'does-not-exist' });
    expect(r.status).toBe('error');
    expect(r.output).toBe('Invalid arguments for grep:\n- `pattern`: must not be empty.\nPass a non-empty pattern and call grep again.');
  });

  it('reports an invalid regex with the parse message and the literal hint', async () => {
    const r = await bed.h.call('grep', { pattern: 'foo(bar' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'Invalid regular expression /foo(bar/: Unterminated group. grep uses JavaScript RegExp syntax; fix the pattern, or pass literal: true to search for the text exactly as typed.',
    );
    expect(r.hint).toBe('Pass literal: true to search for the text as typed.');
  });

  it('refuses a pattern with a line break', async () => {
    const r = await bed.h.call('grep', { pattern: 'a\nb' });
    expect(r.output).toBe(
      'grep matches one line at a time, and the pattern contains a line break. Search for a single line of the text (or a distinctive part of it).',
    );
  });

  it('reports a missing path with near names', async () => {
    bed.ws.write('src/utils.ts', 'x\n');
    const r = await bed.h.call('grep', { pattern: 'x', path: 'src/utlis.ts' });
    expect(r.status).toBe('error');
    expect(r.output).toBe('Path not found: src/utlis.ts. Did you mean src/utils.ts? Check the path with list_dir or glob.');
  });

  it('refuses a path outside the workspace', async () => {
    const r = await bed.h.call('grep', { pattern: 'x', path: '../' });
    expect(r.status).toBe('denied');
    expect(r.output).toContain('Path is outside the workspace: ../.');
  });

  it('reports an invalid include glob', async () => {
    bed.ws.write('a.txt', 'x\n');
    const r = await bed.h.call('grep', { pattern: 'x', include: '[z-a]' });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^Invalid include glob "\[z-a\]": .*Range out of order.*\. Use a glob such as '\*\.ts' or 'src\/\*\*\/\*\.tsx'\.$/);
  });

  it('stops when the user aborts', async () => {
    for (let i = 0; i < 20; i++) bed.ws.write(`f${i}.txt`, 'x\n');
    let reads = 0;
    const signal = { get aborted() { return ++reads > 5; }, addEventListener() {}, removeEventListener() {} } as unknown as AbortSignal;
    const r = await bed.h.call('grep', { pattern: 'x' }, { signal });
    expect(r.status).toBe('error');
    expect(r.output).toBe('grep was stopped by the user before it finished.');
  });
});

describe('grep: ignore rules', () => {
  it('skips node_modules and build output; the no-match note says what was not searched', async () => {
    bed.ws.write('node_modules/lib/index.js', 'secret\n');
    bed.ws.write('dist/out.js', 'secret\n');
    bed.ws.write('src/a.ts', 'other\n');
    const r = await bed.h.call('grep', { pattern: 'secret' });
    expect(r.output).toBe(
      'No matches for /secret/ in the workspace (1 file searched).\nNot searched by the ignore rules (default skip list, .gitignore, .clampignore): 2 folders (dist, node_modules); pass path to search inside an ignored folder.',
    );
    const inside = await bed.h.call('grep', { pattern: 'secret', path: 'node_modules' });
    expect(inside.output).toBe('node_modules/lib/index.js:1:secret\n\nFound 1 matching line in 1 file (1 file searched).');
  });

  it('honours the root and nested .gitignore files, with negation', async () => {
    bed.ws.write('.gitignore', '*.log\n/tmp/\n');
    bed.ws.write('a.log', 'hit\n');
    bed.ws.write('tmp/x.txt', 'hit\n');
    bed.ws.write('sub/tmp/y.txt', 'hit\n'); // /tmp/ is anchored at the root
    bed.ws.write('sub/.gitignore', '!keep.log\ngen/\n');
    bed.ws.write('sub/keep.log', 'hit\n');
    bed.ws.write('sub/gen/z.txt', 'hit\n');
    bed.ws.write('keep.txt', 'hit\n');
    const r = await bed.h.call('grep', { pattern: 'hit', output_mode: 'files_with_matches' });
    expect(r.output).toBe('keep.txt\nsub/keep.log\nsub/tmp/y.txt\n\n3 files match (5 files searched).');
    // an explicitly given ignored folder is searched
    expect((await bed.h.call('grep', { pattern: 'hit', path: 'tmp', output_mode: 'files_with_matches' })).output).toBe('tmp/x.txt\n\n1 file matches (1 file searched).');
  });

  it('adds patterns from .clampignore and CLAMP_IGNORE; .clampignore can re-include a gitignored path', async () => {
    bed.ws.write('.gitignore', 'generated/\n');
    bed.ws.write('.clampignore', 'fixtures/\n!generated/\n');
    bed.ws.write('generated/api.ts', 'hit\n');
    bed.ws.write('fixtures/big.json', 'hit\n');
    bed.ws.write('snap/a.snap', 'hit\n');
    bed.ws.write('src/a.ts', 'hit\n');
    const before = process.env.CLAMP_IGNORE;
    process.env.CLAMP_IGNORE = '*.snap, nothing-else';
    try {
      const r = await bed.h.call('grep', { pattern: 'hit', output_mode: 'files_with_matches' });
      expect(r.output).toBe('generated/api.ts\nsrc/a.ts\n\n2 files match (4 files searched).');
    } finally {
      if (before === undefined) delete process.env.CLAMP_IGNORE;
      else process.env.CLAMP_IGNORE = before;
    }
  });

  it('does not follow symlinks', async () => {
    const outside = path.join(bed.ws.root, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'x.txt'), 'hit\n');
    fs.symlinkSync(outside, path.join(bed.ws.workspace, 'link'));
    fs.symlinkSync(path.join(outside, 'x.txt'), path.join(bed.ws.workspace, 'file-link.txt'));
    bed.ws.write('real.txt', 'hit\n');
    expect((await bed.h.call('grep', { pattern: 'hit', output_mode: 'files_with_matches' })).output).toBe('real.txt\n\n1 file matches (1 file searched).');
  });
});

describe('grep: engines', () => {
  it('the rg-assisted engine gives byte-identical results to the built-in one', async () => {
    bed.ws.write('.gitignore', 'ignored/\n');
    bed.ws.write('ignored/a.txt', 'needle\n');
    bed.ws.write('node_modules/m/a.js', 'needle\n');
    bed.ws.write('big/huge.txt', `${'needle '.repeat(40)}\n`);
    bed.ws.write('bin/blob.bin', Buffer.from('needle\0\0\0'));
    bed.ws.write('bin/other.bin', Buffer.from('\0\0\0'));
    bed.ws.write('crlf.txt', 'Needle one\r\nneedle two\r\n');
    bed.ws.write('exact.txt', 'x needle_1234 y\nneedle_12 no\n');
    bed.ws.write('deep/a/b/c/d.ts', 'const NEEDLE = 1;\n');
    bed.ws.write('utf8/中文.txt', '针 needle 汉字\n');
    bed.ws.write('utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('needle\n', 'utf16le')]));
    bed.ws.write('weird name with spaces.md', 'a needle\n');
    for (let i = 0; i < 40; i++) bed.ws.write(`many/f${String(i).padStart(2, '0')}.txt`, i % 7 === 0 ? 'needle\n' : 'nothing\n');
    const queries: Record<string, unknown>[] = [
      { pattern: 'needle' },
      { pattern: 'needle', ignore_case: true },
      { pattern: 'NEEDLE', literal: true, ignore_case: true, output_mode: 'count' },
      { pattern: 'needle_\\d{4}' },
      { pattern: 'ne+dle', context: 1 },
      { pattern: 'needle', output_mode: 'files_with_matches', include: '*.txt' },
      { pattern: 'zzz never' },
      { pattern: '针', literal: true },
    ];
    const rg = findRg(process.env.PATH);
    for (const q of queries) {
      for (const budget of [{ GREP_MAX_FILE_BYTES: 200 }, { GREP_MAX_FILE_BYTES: 200, GREP_MAX_MATCHES: 4 }]) {
        const a = await bed.h.call('grep', q, { budget, services: { grepEngine: 'builtin' } });
        const b = await bed.h.call('grep', q, { budget, services: { grepEngine: 'rg' } });
        const c = await bed.h.call('grep', q, { budget, services: { grepEngine: 'auto' } });
        expect(b.output, JSON.stringify(q)).toBe(a.output);
        expect(b.truncation).toEqual(a.truncation);
        expect(c.output).toBe(a.output);
        expect(a.meta?.engine).toBe('builtin');
        // when rg is installed the forced engine must really have used it (every query above has a literal)
        expect(b.meta?.engine).toBe(rg ? 'builtin+rg' : 'builtin');
        // a string that never hits: rg ruled out every searched file, so the built-in path read none
        if (rg && q.pattern === 'zzz never') expect(b.meta?.rgRuledOut).toBe(b.meta?.filesSearched);
      }
    }
    expect((await bed.h.call('grep', { pattern: 'needle' }, { budget: { GREP_MAX_FILE_BYTES: 200 } })).output).toContain('1 file over 200 bytes skipped (not searched): big/huge.txt');
  });
});

describe('grep: the auto engine racing rg', () => {
  it('gives the built-in result while rg answers part-way through the walk', async () => {
    for (let i = 0; i < 300; i++) bed.ws.write(`d${i % 7}/f${String(i).padStart(3, '0')}.txt`, i % 37 === 0 ? `x\nneedle ${i}\n` : 'nothing\n');
    bed.ws.write('d1/big.txt', 'needle '.repeat(100));
    const base = {
      workspace: bed.ws.workspace, startAbs: bed.ws.workspace, startRel: '.', startIsFile: false,
      pattern: compilePattern('needle \\d+', false, false), mode: 'content' as const, context: 0,
      maxEntries: 200, maxOutputBytes: 100_000, maxLineBytes: 240, maxFileBytes: 500, maxFilesVisited: 10_000, sniffBytes: 8192,
      envPath: process.env.PATH, signal: new AbortController().signal,
    };
    const builtin = await search({ ...base, engine: 'builtin' });
    const raced = await search({ ...base, engine: 'auto', autoRgAfterFiles: 1, autoRgMinCores: 1 });
    expect(builtin.lines).toHaveLength(9);
    expect(raced.lines).toEqual(builtin.lines);
    expect({ ...raced, engine: 'builtin', rgRuledOut: 0 }).toEqual(builtin);
    expect(raced.engine).toBe(findRg(process.env.PATH) ? 'builtin+rg' : 'builtin');
  });
});

describe('grep: prefilter literal', () => {
  it('extracts only text every match must contain', () => {
    expect(requiredLiteral('foo\\(bar')).toBe('foo(bar');
    expect(requiredLiteral('ab?c')).toBe('a');
    expect(requiredLiteral('abc?d')).toBe('ab');
    expect(requiredLiteral('a|b')).toBe('');
    expect(requiredLiteral('foo.*barbaz')).toBe('barbaz');
    expect(requiredLiteral('(foo)bar')).toBe('bar');
    expect(requiredLiteral('\\bword\\b')).toBe('word');
    expect(requiredLiteral('x{2}yz')).toBe('yz');
    expect(requiredLiteral('ab+cd')).toBe('ab');
    expect(requiredLiteral('\\x41bc')).toBe('bc');
    expect(requiredLiteral('[abc]def')).toBe('def');
    expect(requiredLiteral('a{,2}bc')).toBe('a{,2}bc'); // not a quantifier in JS: literal braces
  });
});
