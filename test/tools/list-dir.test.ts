import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listDirTool } from '../../lib/tools/list-dir';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { budgetTable } from '../../lib/contract/budget';
import { toolBed } from '../helpers';

const bed = toolBed([listDirTool, readFileTool]);

describe('list_dir: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(listDirTool.schema)).toMatchSnapshot();
  });

  it('describes itself with the cap from the budget it is given and names glob', () => {
    const text = listDirTool.describe(budgetTable({ LIST_DIR_MAX_ENTRIES: 33 }));
    expect(text).toContain('At most 33 entries per call');
    expect(text).toContain('To find files by pattern across the tree use glob');
    expect(listDirTool.effect).toBe('read');
  });
});

describe('list_dir: happy path', () => {
  it('lists directories first, then files, each in byte order, with exact sizes; hides nothing', async () => {
    bed.ws.write('b.txt', 'hello'); // 5 bytes
    bed.ws.write('B.md', '汉字'); // 6 bytes
    bed.ws.write('_a', '');
    bed.ws.write('é.txt', 'x'.repeat(1234));
    bed.ws.write('.env', 'K=V\n');
    for (const d of ['src', 'node_modules', 'dist', '.git', 'Vendor']) fs.mkdirSync(path.join(bed.ws.workspace, d));
    const r = await bed.h.call('list_dir', {});
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      ['.git/', 'Vendor/', 'dist/', 'node_modules/', 'src/', '.env  4', 'B.md  6', '_a  0', 'b.txt  5', 'é.txt  1234', '(10 entries: 5 directories, 5 files)'].join('\n'),
    );
    expect(r.truncation).toBeNull();
    expect(r.hint).toBeUndefined();
  });

  it('lists a subfolder, and path "." or "" is the root', async () => {
    bed.ws.write('src/lib/x.ts', 'export {};\n');
    expect((await bed.h.call('list_dir', { path: 'src' })).output).toBe('lib/\n(1 entry: 1 directory, 0 files)');
    expect((await bed.h.call('list_dir', { path: 'src/lib/' })).output).toBe('x.ts  11\n(1 entry: 0 directories, 1 file)');
    expect((await bed.h.call('list_dir', { path: '.' })).output).toBe('src/\n(1 entry: 1 directory, 0 files)');
    expect((await bed.h.call('list_dir', { path: '' })).output).toBe('src/\n(1 entry: 1 directory, 0 files)');
  });

  it('marks symlinks with their target; a link to a folder sorts with the folders', async () => {
    bed.ws.write('real/file.txt', 'abc');
    fs.symlinkSync('real', path.join(bed.ws.workspace, 'alias'));
    fs.symlinkSync('real/file.txt', path.join(bed.ws.workspace, 'f-link'));
    fs.symlinkSync('missing.txt', path.join(bed.ws.workspace, 'dangling'));
    fs.symlinkSync(bed.ws.root, path.join(bed.ws.workspace, 'up'));
    const r = await bed.h.call('list_dir', {});
    expect(r.output).toBe(
      [
        'alias/ -> real',
        'real/',
        `up/ -> ${bed.ws.root}  (outside the workspace)`,
        'dangling -> missing.txt  (broken link)',
        'f-link -> real/file.txt',
        '(5 entries: 3 directories, 2 files)',
      ].join('\n'),
    );
  });

  it('quotes a name holding a newline so it cannot pass for two entries', async () => {
    bed.ws.write('a\nb.txt', 'x');
    const r = await bed.h.call('list_dir', {});
    expect(r.output).toBe('"a\\nb.txt"  1\n(1 entry: 0 directories, 1 file)');
  });

  it('answers an empty folder plainly', async () => {
    fs.mkdirSync(path.join(bed.ws.workspace, 'empty'));
    expect((await bed.h.call('list_dir', { path: 'empty' })).output).toBe('(empty/ is empty: 0 entries)');
  });
});

describe('list_dir: caps and paging', () => {
  it('a directory of 5,000 files is capped with the count, and paging reaches the last entry exactly', async () => {
    const dir = path.join(bed.ws.workspace, 'many');
    fs.mkdirSync(dir);
    for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(dir, `f${String(i).padStart(4, '0')}.txt`), 'x'.repeat(i % 7));
    fs.mkdirSync(path.join(dir, 'sub'));

    const first = await bed.h.call('list_dir', { path: 'many' });
    const lines = first.output.split('\n');
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe('sub/');
    expect(lines[1]).toBe('f0000.txt  0');
    expect(lines[199]).toBe('f0198.txt  2');
    expect(lines[200]).toBe('(5,001 entries, showing 1–200; offset=200 for more; 1 directory, 5,000 files in all)');
    expect(first.truncation).toEqual({ unit: 'entries', shown: 200, total: 5001, by: 'tool' });
    expect(first.hint).toBe('Next page: list_dir with path=many offset=200.');

    const second = await bed.h.call('list_dir', { path: 'many', offset: 200 });
    expect(second.output.split('\n')[0]).toBe('f0199.txt  3');

    // follow the notes page by page: every entry exactly once, ending on the last one
    const seen: string[] = [];
    let offset: number | undefined = 0;
    let footer = '';
    for (let calls = 0; offset !== undefined && calls < 30; calls++) {
      const page = await bed.h.call('list_dir', { path: 'many', offset });
      const pageLines = page.output.split('\n');
      footer = pageLines.pop() as string;
      seen.push(...pageLines);
      const m = /offset=(\d+) for more/.exec(footer);
      offset = m ? Number(m[1]) : undefined;
      if (offset === undefined) expect(page.truncation).toBeNull();
    }
    expect(seen).toHaveLength(5001);
    expect(new Set(seen).size).toBe(5001);
    expect(seen.at(-1)).toBe('f4999.txt  1');
    expect(footer).toBe('(5,001 entries, showing 5001–5001; end of listing; 1 directory, 5,000 files in all)');

    const tail = await bed.h.call('list_dir', { path: 'many', offset: 4801 });
    const tailLines = tail.output.split('\n');
    expect(tailLines).toHaveLength(201);
    expect(tailLines[0]).toBe('f4800.txt  5');
    expect(tailLines[199]).toBe('f4999.txt  1');
    expect(tailLines[200]).toBe('(5,001 entries, showing 4802–5001; end of listing; 1 directory, 5,000 files in all)');
    expect(tail.truncation).toBeNull();
    expect(tail.hint).toBeUndefined();
  });

  it('a lowered cap gives exact counts in the note', async () => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) bed.ws.write(n, n);
    const r = await bed.h.call('list_dir', {}, { budget: { LIST_DIR_MAX_ENTRIES: 2 } });
    expect(r.output).toBe('a  1\nb  1\n(5 entries, showing 1–2; offset=2 for more; 0 directories, 5 files in all)');
    expect(r.truncation).toEqual({ unit: 'entries', shown: 2, total: 5, by: 'tool' });
    const mid = await bed.h.call('list_dir', { offset: 3 }, { budget: { LIST_DIR_MAX_ENTRIES: 2 } });
    expect(mid.output).toBe('d  1\ne  1\n(5 entries, showing 4–5; end of listing; 0 directories, 5 files in all)');
  });
});

describe('list_dir: errors with a next step', () => {
  it('a file points to read_file', async () => {
    bed.ws.write('src/a.ts', 'x');
    expect((await bed.h.call('list_dir', { path: 'src/a.ts' })).output).toBe(
      'src/a.ts is a file, not a directory. Use read_file with path=src/a.ts to read it, or list_dir with path=src to see its folder.',
    );
    bed.ws.write('top.md', 'x');
    expect((await bed.h.call('list_dir', { path: 'top.md' })).output).toBe('top.md is a file, not a directory. Use read_file with path=top.md to read it.');
  });

  it('a missing folder names near names, or where to look', async () => {
    bed.ws.write('src/components/x.tsx', 'x');
    const near = await bed.h.call('list_dir', { path: 'src/compnents' });
    expect(near.status).toBe('error');
    expect(near.output).toBe('Directory not found: src/compnents. Did you mean src/components?');
    const far = await bed.h.call('list_dir', { path: 'src/qqqqqqqqqq' });
    expect(far.output).toBe(
      'Directory not found: src/qqqqqqqqqq. Nothing with a similar name is in src/; use list_dir with path=src to see what is there, or glob to search the tree by pattern.',
    );
  });

  it('an offset past the end says how many entries there are', async () => {
    for (const n of ['a', 'b', 'c']) bed.ws.write(n, n);
    const r = await bed.h.call('list_dir', { offset: 3 }, { budget: { LIST_DIR_MAX_ENTRIES: 2 } });
    expect(r.status).toBe('error');
    expect(r.output).toBe('Offset 3 is past the end: the workspace root has 3 entries. Use an offset from 0 to 2 (offset=2 shows the last page).');
  });

  it('refuses ../ and symlink escapes', async () => {
    fs.symlinkSync(bed.ws.root, path.join(bed.ws.workspace, 'up'));
    const r = await bed.h.call('list_dir', { path: '..' });
    expect(r.status).toBe('denied');
    expect(r.output).toBe(`Path is outside the workspace: ... Only paths inside ${bed.ws.workspace} can be used; pass a path relative to the workspace root.`);
    const link = await bed.h.call('list_dir', { path: 'up' });
    expect(link.status).toBe('denied');
    expect(link.output).toBe(
      `Path is outside the workspace: up (through a symlink, it resolves to ${bed.ws.root}). Only paths inside ${bed.ws.workspace} can be used; pass a path relative to the workspace root.`,
    );
  });
});
