import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { globTool } from '../../lib/tools/glob';
import { budgetTable } from '../../lib/contract/budget';
import { toolBed } from '../helpers';

const bed = toolBed([globTool]);

describe('glob: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(globTool.schema)).toMatchSnapshot();
  });

  it('describes itself with the cap from the budget it is given and names grep and list_dir', () => {
    const text = globTool.describe(budgetTable({ GLOB_MAX_RESULTS: 1234 }));
    expect(text).toContain('at most 1,234 (the note then says how many matched in all)');
    expect(text).toContain('To search file contents use grep');
    expect(text).toContain('use list_dir');
    expect(globTool.effect).toBe('read');
  });
});

describe('glob: happy path', () => {
  it('returns matching files relative to the workspace, sorted by path', async () => {
    for (const f of ['src/b.ts', 'src/a/z.ts', 'src/a-c.ts', 'top.ts', 'src/readme.md', '.github/x.ts']) bed.ws.write(f, '');
    const r = await bed.h.call('glob', { pattern: '**/*.ts' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(['.github/x.ts', 'src/a/z.ts', 'src/a-c.ts', 'src/b.ts', 'top.ts', '', '5 files match.'].join('\n'));
    expect(r.truncation).toBeNull();
  });

  it('matches below path, but still answers with workspace-relative paths', async () => {
    bed.ws.write('src/lib/x.ts', '');
    bed.ws.write('src/y.ts', '');
    bed.ws.write('other/z.ts', '');
    expect((await bed.h.call('glob', { pattern: '**/*.ts', path: 'src' })).output).toBe('src/lib/x.ts\nsrc/y.ts\n\n2 files match.');
    expect((await bed.h.call('glob', { pattern: '*.ts', path: 'src/lib' })).output).toBe('src/lib/x.ts\n\n1 file matches.');
    expect((await bed.h.call('glob', { pattern: './src/*.{ts,js}' })).output).toBe('src/y.ts\n\n1 file matches.');
  });

  it('says what to try when nothing matches a pattern without a folder part', async () => {
    bed.ws.write('src/a.rs', '');
    const r = await bed.h.call('glob', { pattern: '*.rs' });
    expect(r.output).toBe('No files match "*.rs" in the workspace.\n"*.rs" only matches files directly in the workspace; use "**/*.rs" to search every folder below it.');
    expect(r.status).toBe('ok');
  });
});

describe('glob: cap', () => {
  it('exactly the cap of matches is not truncated', async () => {
    for (let i = 0; i < 5; i++) bed.ws.write(`f${i}.txt`, '');
    const r = await bed.h.call('glob', { pattern: '*.txt' }, { budget: { GLOB_MAX_RESULTS: 5 } });
    expect(r.output).toBe('f0.txt\nf1.txt\nf2.txt\nf3.txt\nf4.txt\n\n5 files match.');
    expect(r.output).not.toContain('Capped');
    expect(r.truncation).toBeNull();
    expect(r.hint).toBeUndefined();
  });

  it('one over the cap: the first N in path order, the total, and the next step', async () => {
    for (let i = 5; i >= 0; i--) bed.ws.write(`f${i}.txt`, '');
    const r = await bed.h.call('glob', { pattern: '*.txt' }, { budget: { GLOB_MAX_RESULTS: 5 } });
    expect(r.output).toBe(
      'f0.txt\nf1.txt\nf2.txt\nf3.txt\nf4.txt\n\n[Capped at 5 files: showing the first 5 of 6 matching files (sorted by path). Narrow the pattern (e.g. "src/**/*.ts") or pass a narrower path.]',
    );
    expect(r.truncation).toEqual({ unit: 'files', shown: 5, total: 6, by: 'tool' });
    expect(r.hint).toBe('Showing the first 5 of 6 matching files. Narrow the pattern (e.g. "src/**/*.ts") or pass a narrower path.');
  });

  it('keeps the first N in path order when far more match', async () => {
    for (let i = 299; i >= 0; i--) bed.ws.write(`d${i % 3}/f${String(i).padStart(3, '0')}.txt`, '');
    const r = await bed.h.call('glob', { pattern: '**/*.txt' }, { budget: { GLOB_MAX_RESULTS: 2 } });
    expect(r.output.split('\n').slice(0, 2)).toEqual(['d0/f000.txt', 'd0/f003.txt']);
    expect(r.truncation).toEqual({ unit: 'files', shown: 2, total: 300, by: 'tool' });
  });

  it('stops before the exit clamp would cut, so the total and next step arrive whole', async () => {
    for (let i = 0; i < 40; i++) bed.ws.write(`${'d'.repeat(90)}/f${String(i).padStart(2, '0')}.txt`, '');
    // the note is measured, not reserved: 18 paths of 99 bytes and the note make 1,946 bytes; a 19th would not fit in 2,000
    const r = await bed.h.call('glob', { pattern: '**/*.txt' }, { budget: { TOOL_OUTPUT_MAX_BYTES: 2000 } });
    const lines = r.output.split('\n');
    expect(lines.slice(0, 18)).toEqual(Array.from({ length: 18 }, (_, i) => `${'d'.repeat(90)}/f${String(i).padStart(2, '0')}.txt`));
    expect(lines.slice(18).join('\n')).toBe(
      '\n[Output limit of 1,782 bytes reached: showing the first 18 of 40 matching files (sorted by path). Narrow the pattern (e.g. "src/**/*.ts") or pass a narrower path.]',
    );
    expect(Buffer.byteLength(r.output)).toBe(1946);
    expect(r.truncation).toEqual({ unit: 'files', shown: 18, total: 40, by: 'tool' });
  });
});

describe('glob: errors', () => {
  it('rejects an empty pattern before any I/O', async () => {
    const r = await bed.h.call('glob', { pattern: ' ', path: 'missing' });
    expect(r.output).toBe('Invalid arguments for glob:\n- `pattern`: must not be empty.\nPass a non-empty pattern and call glob again.');
  });

  it('refuses an absolute pattern', async () => {
    const r = await bed.h.call('glob', { pattern: '/etc/*.conf' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'Pattern must be relative: "/etc/*.conf". glob matches below path (default: the workspace root); give a relative pattern such as "**/*.ts" and set path to choose the folder.',
    );
    expect(r.hint).toBe('Use a relative pattern and set path.');
  });

  it('refuses a pattern that climbs out', async () => {
    const r = await bed.h.call('glob', { pattern: 'src/../../*.ts' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'Pattern climbs out of the search folder: "src/../../*.ts". Patterns cannot contain ".."; set path to the folder to search (inside the workspace) and give a pattern relative to it.',
    );
  });

  it('refuses a path outside the workspace', async () => {
    const r = await bed.h.call('glob', { pattern: '*', path: '../..' });
    expect(r.status).toBe('denied');
    expect(r.output).toContain('Path is outside the workspace: ../..');
  });

  it('reports a missing folder with near names, and a file given as path', async () => {
    bed.ws.write('source/a.ts', '');
    expect((await bed.h.call('glob', { pattern: '*', path: 'sourc' })).output).toBe('Path not found: sourc. Did you mean source? Check the path with list_dir.');
    expect((await bed.h.call('glob', { pattern: '*', path: 'source/a.ts' })).output).toBe(
      'Not a folder: source/a.ts. glob searches below a folder; pass its parent folder as path, or read the file with read_file.',
    );
  });

  it('stops when the user aborts', async () => {
    for (let i = 0; i < 20; i++) bed.ws.write(`f${i}.txt`, '');
    let reads = 0;
    // aborts once the walk is under way (the first read is dispatch's own check before run)
    const signal = { get aborted() { return ++reads > 3; }, addEventListener() {}, removeEventListener() {} } as unknown as AbortSignal;
    const r = await bed.h.call('glob', { pattern: '**/*' }, { signal });
    expect(r.status).toBe('error');
    expect(r.output).toBe('glob was stopped by the user before it finished.');
  });
});

describe('glob: ignore rules', () => {
  it('skips .git, node_modules and build output; the empty result says so; an explicit path looks inside', async () => {
    for (const f of ['node_modules/x/a.js', 'dist/a.js', '.git/hooks/a.js', 'build/a.js']) bed.ws.write(f, '');
    bed.ws.write('src/a.ts', '');
    const r = await bed.h.call('glob', { pattern: '**/*.js' });
    expect(r.output).toBe(
      'No files match "**/*.js" in the workspace.\nNot searched by the ignore rules (default skip list, .gitignore, .clampignore): 4 folders (.git, build, dist and 1 more); pass path to look inside an ignored folder.',
    );
    expect((await bed.h.call('glob', { pattern: '**/*.js', path: 'node_modules' })).output).toBe('node_modules/x/a.js\n\n1 file matches.');
  });

  it('honours root and nested .gitignore files, .clampignore and CLAMP_IGNORE', async () => {
    bed.ws.write('.gitignore', '*.log\n/tmp/\n');
    bed.ws.write('.clampignore', 'fixtures/\n');
    bed.ws.write('sub/.gitignore', '!keep.log\n');
    for (const f of ['a.log', 'tmp/x.txt', 'sub/keep.log', 'sub/drop.log', 'fixtures/f.txt', 'snap/s.snap', 'ok.txt', 'sub/tmp/y.txt']) bed.ws.write(f, '');
    const before = process.env.CLAMP_IGNORE;
    process.env.CLAMP_IGNORE = '*.snap';
    try {
      const r = await bed.h.call('glob', { pattern: '**/*' });
      expect(r.output).toBe(['.clampignore', '.gitignore', 'ok.txt', 'sub/.gitignore', 'sub/keep.log', 'sub/tmp/y.txt', '', '6 files match.'].join('\n'));
    } finally {
      if (before === undefined) delete process.env.CLAMP_IGNORE;
      else process.env.CLAMP_IGNORE = before;
    }
  });

  it('does not follow symlinks out of the workspace', async () => {
    const outside = path.join(bed.ws.root, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'x');
    fs.symlinkSync(outside, path.join(bed.ws.workspace, 'link'));
    bed.ws.write('in.txt', '');
    expect((await bed.h.call('glob', { pattern: '**/*.txt' })).output).toBe('in.txt\n\n1 file matches.');
  });
});
