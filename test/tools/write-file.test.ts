import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { writeFileTool } from '../../lib/tools/write-file';
import { budgetTable } from '../../lib/contract/budget';
import { createContext } from '../../lib/dispatch/context';
import { previewCall, toolBed, treeSnapshot } from '../helpers';

const bed = toolBed([writeFileTool]);

const write = (args: Record<string, unknown>, extra = {}) => bed.h.call('write_file', args, extra);

describe('write_file: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(writeFileTool.schema)).toMatchSnapshot();
  });

  it('describes itself with numbers from the budget it is given and points to edit_file', () => {
    const text = writeFileTool.describe(budgetTable({ DIFF_MAX_BYTES: 999, EDIT_MAX_FILE_BYTES: 3 * 1024 * 1024 }));
    expect(text).toContain('cut to 999 bytes for you');
    expect(text).toContain('Content up to 3.0 MB');
    expect(text).toContain('To change part of an existing file use edit_file (or apply_patch for several changes at once)');
    expect(writeFileTool.effect).toBe('write');
  });
});

describe('write_file: happy path', () => {
  it('creates a file and its parent folders; the result is a summary, meta has the diff', async () => {
    const r = await write({ path: 'a/b/c.txt', content: 'hello\nworld\n' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe('Created a/b/c.txt (+2 −0 lines, 12 bytes).');
    expect(r.truncation).toBeNull();
    expect(r.meta).toMatchObject({ path: 'a/b/c.txt', added: 2, removed: 0, created: true });
    expect(r.meta?.diff).toBe('--- a/a/b/c.txt\n+++ b/a/b/c.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n');
    expect(bed.ws.read('a/b/c.txt')).toBe('hello\nworld\n');
  });

  it('overwrites a file and shows the diff', async () => {
    bed.ws.write('f.txt', 'one\ntwo\nthree\n');
    const r = await write({ path: 'f.txt', content: 'one\n2\nthree\nfour\n' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      ['Overwrote f.txt (+2 −1 lines).', '--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,4 @@', ' one', '-two', '+2', ' three', '+four'].join('\n'),
    );
    expect(r.meta).toMatchObject({ path: 'f.txt', added: 2, removed: 1, created: false });
    expect(bed.ws.read('f.txt')).toBe('one\n2\nthree\nfour\n');
  });

  it('says when nothing changed and does not touch the file', async () => {
    const abs = bed.ws.write('same.txt', 'x\n');
    const before = fs.statSync(abs).mtimeMs;
    const r = await write({ path: 'same.txt', content: 'x\n' });
    expect(r.output).toBe('same.txt is unchanged: content is identical to what the file already holds.');
    expect(fs.statSync(abs).mtimeMs).toBe(before);
  });

  it('keeps an existing file\'s CRLF line endings, BOM and mode, and says so', async () => {
    const abs = bed.ws.write('w.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nb\r\n')]));
    fs.chmodSync(abs, 0o640);
    const r = await write({ path: 'w.txt', content: 'a\nc\n' });
    expect(r.output.split('\n').slice(0, 3)).toEqual([
      'Overwrote w.txt (+1 −1 lines).',
      "Kept the file's UTF-8 byte-order mark.",
      "Kept the file's CRLF line endings.",
    ]);
    const bytes = fs.readFileSync(abs);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe('a\r\nc\r\n');
    expect(fs.statSync(abs).mode & 0o777).toBe(0o640);
    expect(fs.readdirSync(bed.ws.workspace)).toEqual(['w.txt']);
  });

  it('replaces a binary file whole, saying there is no line diff', async () => {
    bed.ws.write('blob.bin', Buffer.from([0, 1, 2, 3]));
    const r = await write({ path: 'blob.bin', content: 'text\n' });
    expect(r.output).toBe('Overwrote blob.bin, which held 4 bytes of binary or non-UTF-8 data (no line diff), with 1 line (5 bytes).');
    expect(bed.ws.read('blob.bin')).toBe('text\n');
  });

  it('cuts a diff over DIFF_MAX_BYTES for the model, with a note and the hint; meta keeps it whole', async () => {
    bed.ws.write('big.txt', Array.from({ length: 50 }, (_, i) => `old ${i}`).join('\n'));
    const r = await write({ path: 'big.txt', content: Array.from({ length: 50 }, (_, i) => `new ${i}`).join('\n') }, { budget: { DIFF_MAX_BYTES: 300 } });
    const total = Buffer.byteLength(r.meta?.diff as string);
    expect(r.truncation).toMatchObject({ unit: 'bytes', total, by: 'tool' });
    expect(r.output.endsWith(
      `[Diff cut at ${r.truncation!.shown} bytes of ${total} bytes (${r.truncation!.omittedLines} lines omitted). The change was applied in full; read_file the file to see the rest.]`,
    )).toBe(true);
    expect(r.hint).toBe('The diff was cut; read_file big.txt to see the result.');
  });
  it('when the minimal diff runs out of time it gives one correct, coarse hunk', async () => {
    bed.ws.write('c.txt', 'a\nb\nc\nd\ne\nf\ng\nh\n');
    // a negative time budget makes the minimal search give up at once
    const r = await write({ path: 'c.txt', content: 'a\nb\nc\nd\nE\nf\nG\nh\n' }, { budget: { DIFF_COMPUTE_MAX_MS: -1 } });
    expect(r.output).toBe(
      ['Overwrote c.txt (+3 −3 lines).', '--- a/c.txt', '+++ b/c.txt', '@@ -2,7 +2,7 @@', ' b', ' c', ' d', '-e', '-f', '-g', '+E', '+f', '+G', ' h'].join('\n'),
    );
    expect(bed.ws.read('c.txt')).toBe('a\nb\nc\nd\nE\nf\nG\nh\n');
  });
});

describe('write_file: errors with a next step', () => {
  it('content over EDIT_MAX_FILE_BYTES is refused and nothing is written', async () => {
    const r = await write({ path: 'x.txt', content: 'x'.repeat(20) }, { budget: { EDIT_MAX_FILE_BYTES: 10 } });
    expect(r.status).toBe('error');
    expect(r.output).toBe('content is 20 bytes, over the 10 bytes limit of write_file; nothing was written.');
    expect(r.hint).toBe('Split the content into smaller files.');
    expect(fs.existsSync(path.join(bed.ws.workspace, 'x.txt'))).toBe(false);
  });

  it('an existing file over the cap is not replaced', async () => {
    bed.ws.write('huge.log', 'y'.repeat(30));
    const r = await write({ path: 'huge.log', content: 'small' }, { budget: { EDIT_MAX_FILE_BYTES: 10 } });
    expect(r.output).toBe('huge.log is 30 bytes, over the 10 bytes limit of write_file; it was not changed.');
    expect(bed.ws.read('huge.log')).toBe('y'.repeat(30));
  });

  it('a directory path, and a parent that is a file', async () => {
    fs.mkdirSync(path.join(bed.ws.workspace, 'dir'));
    let r = await write({ path: 'dir', content: 'x' });
    expect(r.output).toBe('dir is a directory, not a file; write_file changes files.');
    expect(r.hint).toBe('Pass the path of a file (list_dir dir shows what it contains).');
    bed.ws.write('plain', 'x');
    r = await write({ path: 'plain/sub/f.txt', content: 'x' });
    expect(r.output).toBe('Cannot create plain/sub/f.txt: plain is a file, not a folder.');
    expect(r.hint).toBe('Choose a path whose folders are folders (list_dir shows them).');
  });

  it('empty path before any I/O; .git and outside the workspace are refused', async () => {
    let r = await write({ path: ' ', content: 'x' });
    expect(r.output).toBe('Invalid arguments for write_file:\n- `path`: must not be empty.\nPass a non-empty path and call write_file again.');
    r = await write({ path: '.git/hooks/pre-commit', content: 'x' });
    expect(r.status).toBe('denied');
    expect(r.output).toBe(
      'Writes into .git/ are refused: .git/hooks/pre-commit. Change the repository through git commands (run_command or git tools) instead.',
    );
    expect(fs.existsSync(path.join(bed.ws.workspace, '.git'))).toBe(false);
    r = await write({ path: '../escape.txt', content: 'x' });
    expect(r.status).toBe('denied');
    expect(fs.existsSync(path.join(bed.ws.root, 'escape.txt'))).toBe(false);
  });

  it('a missing content field names the field', async () => {
    const r = await write({ path: 'a.txt' });
    expect(r.output).toBe('Invalid arguments for write_file:\n- `content`: expected string, got nothing (the field is missing)\nFix the arguments and call write_file again.');
  });
});

describe('write_file: preview (approval bar)', () => {
  const preview = (args: Parameters<typeof writeFileTool.run>[0], budget = {}) =>
    previewCall(writeFileTool, args, createContext({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir, budget }));

  it('an overwrite: the same diff run produces, and nothing written', async () => {
    bed.ws.write('f.txt', 'one\ntwo\nthree\n');
    const args = { path: 'f.txt', content: 'one\n2\nthree\nfour\n' };
    const before = treeSnapshot(bed.ws.workspace);
    const p = await preview(args);
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
    expect(p.summary).toBe('write_file f.txt (+2 −1 lines)');
    const r = await write(args);
    expect(p.diff).toBe(r.meta?.diff);
    expect(p.diff).toBe('--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n');
  });

  it('a new file: summary and full diff, no file or folder created', async () => {
    const before = treeSnapshot(bed.ws.workspace);
    const p = await preview({ path: 'a/b/c.txt', content: 'hello\nworld\n' });
    expect(p).toEqual({
      summary: 'write_file a/b/c.txt (new file, +2 −0 lines, 12 bytes)',
      diff: '--- a/a/b/c.txt\n+++ b/a/b/c.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n',
    });
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
    expect(fs.existsSync(path.join(bed.ws.workspace, 'a'))).toBe(false);
  });

  it('keeps CRLF in the preview as run would, and says when nothing would change', async () => {
    bed.ws.write('w.txt', 'a\r\nb\r\n');
    expect(await preview({ path: 'w.txt', content: 'a\nb\n' })).toEqual({ summary: 'write_file w.txt (no change: the file already holds this text)' });
    const p = await preview({ path: 'w.txt', content: 'a\nc\n' });
    expect(p.summary).toBe('write_file w.txt (+1 −1 lines)');
    expect(bed.ws.read('w.txt')).toBe('a\r\nb\r\n');
  });

  it('a binary file replaced whole says so, with no diff', async () => {
    bed.ws.write('blob.bin', Buffer.from([0, 1, 2, 3]));
    expect(await preview({ path: 'blob.bin', content: 'text\n' })).toEqual({
      summary: 'write_file blob.bin (replaces 4 bytes of binary or non-UTF-8 data with 1 line (5 bytes))',
    });
    expect([...fs.readFileSync(path.join(bed.ws.workspace, 'blob.bin'))]).toEqual([0, 1, 2, 3]);
  });

  it('a plan error becomes "would fail" with the error text and no diff; never throws', async () => {
    fs.mkdirSync(path.join(bed.ws.workspace, 'dir'));
    expect(await preview({ path: 'dir', content: 'x' })).toEqual({
      summary: 'write_file dir — would fail: dir is a directory, not a file; write_file changes files.',
    });
    expect(await preview({ path: 'x.txt', content: 'x'.repeat(20) }, { EDIT_MAX_FILE_BYTES: 10 })).toEqual({
      summary: 'write_file x.txt — would fail: content is 20 bytes, over the 10 bytes limit of write_file; nothing was written.',
    });
    expect(fs.existsSync(path.join(bed.ws.workspace, 'x.txt'))).toBe(false);
  });
});
