import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { applyPatchTool } from '../../lib/tools/apply-patch/apply-patch';
import { budgetTable } from '../../lib/contract/budget';
import { createContext } from '../../lib/dispatch/context';
import { previewCall, toolBed, treeSnapshot } from '../helpers';

const bed = toolBed([applyPatchTool]);
afterEach(() => {
  vi.restoreAllMocks();
});

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
const apply = (text: string, extra = {}) => bed.h.call('apply_patch', { patch: text }, extra);
const exists = (rel: string) => fs.existsSync(path.join(bed.ws.workspace, rel));

describe('apply_patch: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(applyPatchTool.schema)).toMatchSnapshot();
  });

  it('describes the format, its limits from the budget, and when to prefer edit_file', () => {
    const text = applyPatchTool.describe(budgetTable({ DIFF_MAX_BYTES: 777, EDIT_MAX_FILE_BYTES: 1024 * 1024 }));
    expect(text).toContain('*** Begin Patch');
    expect(text).toContain('*** Move to: src/renamed.ts');
    expect(text).toContain('(cut to 777 bytes for you). Files up to 1.0 MB.');
    expect(text).toContain('Prefer apply_patch for several changes in one file or changes across files; use edit_file for a single replacement');
    expect(applyPatchTool.effect).toBe('write');
  });

  it('declares every header path (Move to included) for confinement', () => {
    const p = patch('*** Add File: a.txt', '+x', '*** Update File: b.txt', '*** Move to: c/d.txt', '@@', '-y', '+z', '*** Delete File: e.txt');
    expect(applyPatchTool.paths!({ patch: p })).toEqual([
      { path: 'a.txt', access: 'write', field: 'patch' },
      { path: 'b.txt', access: 'write', field: 'patch' },
      { path: 'c/d.txt', access: 'write', field: 'patch' },
      { path: 'e.txt', access: 'write', field: 'patch' },
    ]);
  });
});

describe('apply_patch: happy path', () => {
  it('adds, updates, moves and deletes in one call', async () => {
    bed.ws.write('src/a.ts', 'line1\nline2\nline3\nline4\nline5\n');
    bed.ws.write('src/old.ts', 'keep\nrename me\n');
    bed.ws.write('src/gone.ts', 'bye\nbye\n');
    const r = await apply(
      patch(
        '*** Add File: src/new/b.ts',
        '+export const b = 1;',
        '+',
        '+export const c = 2;',
        '*** Update File: src/a.ts',
        '@@',
        ' line1',
        '-line2',
        '+LINE2',
        ' line3',
        '@@ line4',
        '-line5',
        '+line5!',
        '+line6',
        '*** End of File',
        '*** Update File: src/old.ts',
        '*** Move to: src/moved/renamed.ts',
        '@@',
        ' keep',
        '-rename me',
        '+renamed',
        '*** Delete File: src/gone.ts',
      ),
    );
    expect(r.status).toBe('ok');
    const lines = r.output.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'Applied the patch: 4 files changed (+7 −5 lines).',
      'A src/new/b.ts (+3 −0 lines)',
      'M src/a.ts (+3 −2 lines)',
      'R src/old.ts → src/moved/renamed.ts (+1 −1 lines)',
      'D src/gone.ts (+0 −2 lines)',
    ]);
    expect(r.output).toContain('--- a/src/old.ts\n+++ b/src/moved/renamed.ts\n');
    expect(bed.ws.read('src/new/b.ts')).toBe('export const b = 1;\n\nexport const c = 2;\n');
    expect(bed.ws.read('src/a.ts')).toBe('line1\nLINE2\nline3\nline4\nline5!\nline6\n');
    expect(bed.ws.read('src/moved/renamed.ts')).toBe('keep\nrenamed\n');
    expect(exists('src/old.ts')).toBe(false);
    expect(exists('src/gone.ts')).toBe(false);
    expect(r.meta).toMatchObject({
      added: 7,
      removed: 5,
      files: [
        { action: 'A', path: 'src/new/b.ts', added: 3, removed: 0 },
        { action: 'M', path: 'src/a.ts', added: 3, removed: 2 },
        { action: 'R', path: 'src/old.ts', moveTo: 'src/moved/renamed.ts', added: 1, removed: 1 },
        { action: 'D', path: 'src/gone.ts', added: 0, removed: 2 },
      ],
    });
  });

  it('tolerates trailing-whitespace drift in context and says so, keeping the file\'s own lines', async () => {
    bed.ws.write('t.py', 'def f():   \n    return 1\n');
    const r = await apply(patch('*** Update File: t.py', '@@', ' def f():', '-    return 1', '+    return 2'));
    expect(r.status).toBe('ok');
    expect(r.output.split('\n')[2]).toBe('Note: t.py hunk 1 matched with trailing-whitespace drift (loose matcher: trailing-whitespace).');
    expect(bed.ws.read('t.py')).toBe('def f():   \n    return 2\n');
  });

  it('keeps CRLF line endings and a BOM, and accepts a unified-diff style @@ header', async () => {
    bed.ws.write('w.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nb\r\nc\r\n')]));
    const r = await apply(patch('*** Update File: w.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c'));
    expect(r.status).toBe('ok');
    const bytes = fs.readFileSync(path.join(bed.ws.workspace, 'w.txt'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe('a\r\nB\r\nc\r\n');
  });

  it('cuts a long diff for the model with a note; meta keeps it whole', async () => {
    const body = Array.from({ length: 60 }, (_, i) => `+row ${i}`);
    const r = await apply(patch('*** Add File: rows.txt', ...body), { budget: { DIFF_MAX_BYTES: 200 } });
    const total = Buffer.byteLength(r.meta?.diff as string);
    expect(r.truncation).toMatchObject({ unit: 'bytes', total, by: 'tool' });
    expect(r.output.endsWith(
      `[Diff cut at ${r.truncation!.shown} bytes of ${total} bytes (${r.truncation!.omittedLines} lines omitted). The change was applied in full; read_file the file to see the rest.]`,
    )).toBe(true);
    expect(r.hint).toBe('The diff was cut; read_file the changed files to see the result.');
  });
});

describe('apply_patch: all or nothing', () => {
  it('a patch whose 2nd file fails leaves the 1st untouched and names the file and hunk', async () => {
    bed.ws.write('one.txt', 'alpha\nbeta\n');
    const two = 'const x = 1;\nconst y = 2;\nconst z = 3;\nconst w = 4;\n';
    bed.ws.write('two.txt', two);
    const r = await apply(
      patch(
        '*** Update File: one.txt',
        '@@',
        '-alpha',
        '+ALPHA',
        '*** Update File: two.txt',
        '@@',
        ' const x = 1;',
        '-const y = 2;',
        '+const y = 20;',
        '@@',
        ' const z = 3;',
        '-const w = 5;',
        '+const w = 6;',
      ),
    );
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      [
        'apply_patch failed; nothing was written.',
        'two.txt, hunk 2 of 2 (patch line 11): context not found at or after line 3 (compared exactly and ignoring trailing whitespace). Expected these lines:',
        ' const z = 3;',
        '-const w = 5;',
        'The closest region is lines 3–4:',
        '3\tconst z = 3;',
        '4\tconst w = 4;',
        'read_file two.txt around the change and rebuild hunk 2 from lines copied exactly (or make this change with edit_file), then send the whole patch again.',
      ].join('\n'),
    );
    expect(r.hint).toBe('Nothing was written. Fix hunk 2 of two.txt and send the whole patch again.');
    expect(r.meta).toMatchObject({ file: 'two.txt', hunk: 2 });
    expect(bed.ws.read('one.txt')).toBe('alpha\nbeta\n');
    expect(bed.ws.read('two.txt')).toBe(two);
  });

  it('a failed write rolls back the files already written', async () => {
    bed.ws.write('a.txt', 'a\n');
    bed.ws.write('b.txt', 'b\n');
    const real = fs.renameSync;
    let calls = 0;
    vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (++calls === 3) throw Object.assign(new Error('disk on fire'), { code: 'EIO' });
      return real(from, to);
    });
    const r = await apply(patch('*** Update File: a.txt', '-a', '+A', '*** Add File: new/c.txt', '+c', '*** Update File: b.txt', '-b', '+B'));
    expect(r.status).toBe('error');
    expect(r.output).toBe('apply_patch failed while writing b.txt (EIO). The 2 files already written were restored, so nothing changed.');
    expect(r.hint).toBe('Check the paths and permissions, then send the patch again.');
    vi.restoreAllMocks();
    expect(bed.ws.read('a.txt')).toBe('a\n');
    expect(bed.ws.read('b.txt')).toBe('b\n');
    expect(exists('new/c.txt')).toBe(false);
    expect(exists('new')).toBe(false);
    expect(fs.readdirSync(bed.ws.workspace).sort()).toEqual(['a.txt', 'b.txt']);
  });
});

describe('apply_patch: errors with a next step', () => {
  const parseError = (line: string) =>
    `apply_patch failed; nothing was written.\nInvalid patch, ${line}.`;

  it.each([
    ['no Begin line', '*** Update File: a\n*** End Patch', 'line 1: the patch must start with "*** Begin Patch"'],
    ['no End line', '*** Begin Patch\n*** Delete File: a', 'line 2: the patch must end with "*** End Patch"'],
    ['nothing inside', '*** Begin Patch\n*** End Patch', 'the patch has no file operations between its Begin and End lines'],
    ['an unknown header', patch('*** Rename File: a'), 'line 2: expected "*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>", got "*** Rename File: a"'],
    ['a header without a path', patch('*** Add File: ', '+x'), 'line 2: "*** Add File:" needs a path after the colon'],
    ['an Add line without +', patch('*** Add File: a.txt', 'oops'), 'line 3: every line of "*** Add File: a.txt" must start with "+", got "oops"'],
    ['a bad hunk line', patch('*** Update File: a.txt', '@@', '*nope'), 'line 4: a hunk line must start with " " (context), "-" (remove) or "+" (add), or be an "@@" line; got "*nope"'],
    ['an Update with nothing in it', patch('*** Update File: a.txt'), 'line 2: "*** Update File: a.txt" has no hunks and no "*** Move to:"'],
    ['a hunk that changes nothing', patch('*** Update File: a.txt', '@@', ' same'), 'line 3: hunk 1 of a.txt has no "-" or "+" lines; it changes nothing'],
    ['a file named twice', patch('*** Delete File: a.txt', '*** Add File: a.txt', '+x'), 'line 3: a.txt already appears at line 2; put every change to one file under a single operation'],
    ['End of File outside a hunk', patch('*** Update File: a.txt', '*** End of File'), 'line 3: "*** End of File" must close a hunk'],
    ['Move to in the wrong place', patch('*** Update File: a.txt', '@@', '-x', '*** Move to: b.txt'), 'line 5: "*** Move to:" must come right after its "*** Update File:" line'],
    ['Delete with a body', patch('*** Delete File: a.txt', '-x'), 'line 3: "*** Delete File: a.txt" takes no lines after it'],
  ])('parse error: %s', async (_name, text, msg) => {
    bed.ws.write('a.txt', 'x\n');
    const r = await apply(text);
    expect(r.status).toBe('error');
    expect(r.output).toBe(parseError(msg));
    expect(r.hint).toBe('Fix the patch format (see the apply_patch description) and send it again; nothing was written.');
    expect(bed.ws.read('a.txt')).toBe('x\n');
  });

  it('Update or Delete of a missing file: "File not found" with near names', async () => {
    bed.ws.write('src/utils.ts', 'x\n');
    let r = await apply(patch('*** Update File: src/utlis.ts', '-x', '+y'));
    expect(r.output).toBe('apply_patch failed; nothing was written.\nUpdate File src/utlis.ts: File not found: src/utlis.ts. Did you mean src/utils.ts?');
    r = await apply(patch('*** Delete File: src/nothing-like-it.ts'));
    expect(r.output).toBe(
      'apply_patch failed; nothing was written.\nDelete File src/nothing-like-it.ts: File not found: src/nothing-like-it.ts. ' +
        'Nothing with a similar name is in src/; use list_dir with path=src to see what is there, or glob to search the tree by pattern.',
    );
  });

  it('Add of an existing file, Move onto an existing file, an anchor that is not there', async () => {
    bed.ws.write('a.txt', 'a\n');
    bed.ws.write('b.txt', 'b\n');
    let r = await apply(patch('*** Add File: a.txt', '+x'));
    expect(r.output).toBe(
      'apply_patch failed; nothing was written.\nAdd File a.txt: the file already exists. Use "*** Update File:" to change it, or delete it first.',
    );
    expect(r.hint).toBe('Fix the patch and send it again; nothing was written.');
    r = await apply(patch('*** Update File: a.txt', '*** Move to: b.txt'));
    expect(r.output).toBe(
      'apply_patch failed; nothing was written.\nUpdate File a.txt: cannot move it to b.txt, which already exists. Delete it first or choose another name.',
    );
    r = await apply(patch('*** Update File: a.txt', '@@ class Missing', '-a', '+A'));
    expect(r.output).toBe(
      [
        'apply_patch failed; nothing was written.',
        'a.txt, hunk 1 of 1 (patch line 3): the @@ anchor line was not found at or after line 1:',
        'class Missing',
        'read_file a.txt around the change and rebuild hunk 1 from lines copied exactly (or make this change with edit_file), then send the whole patch again.',
      ].join('\n'),
    );
    expect(bed.ws.read('a.txt')).toBe('a\n');
    expect(bed.ws.read('b.txt')).toBe('b\n');
  });

  it('a binary file and a file over the cap are refused by name', async () => {
    bed.ws.write('bin.dat', Buffer.from([0, 1, 2]));
    let r = await apply(patch('*** Update File: bin.dat', '-x', '+y'));
    expect(r.output).toBe('apply_patch failed; nothing was written.\nUpdate File bin.dat: bin.dat looks binary (a NUL byte in its first 3 bytes); apply_patch only changes text files.');
    bed.ws.write('big.txt', 'z'.repeat(40));
    r = await apply(patch('*** Delete File: big.txt'), { budget: { EDIT_MAX_FILE_BYTES: 20 } });
    expect(r.output).toBe('apply_patch failed; nothing was written.\nDelete File big.txt: big.txt is 40 bytes, over the 20 bytes limit of apply_patch; it was not changed.');
    expect(exists('big.txt')).toBe(true);
  });

  it('confinement: outside paths, Move to outside, and .git are denied before anything runs', async () => {
    bed.ws.write('a.txt', 'a\n');
    let r = await apply(patch('*** Add File: ../evil.txt', '+x'));
    expect(r.status).toBe('denied');
    expect(r.output).toContain('Path is outside the workspace: ../evil.txt');
    r = await apply(patch('*** Update File: a.txt', '*** Move to: ../../moved.txt'));
    expect(r.status).toBe('denied');
    r = await apply(patch('*** Add File: .git/hooks/post-commit', '+x'));
    expect(r.status).toBe('denied');
    expect(r.output).toContain('Writes into .git/ are refused: .git/hooks/post-commit.');
    expect(bed.ws.read('a.txt')).toBe('a\n');
    expect(exists('.git')).toBe(false);
  });

  it('an empty patch is refused before any I/O', async () => {
    const r = await apply('  ');
    expect(r.output).toBe('Invalid arguments for apply_patch:\n- `patch`: must not be empty.\nPass a non-empty patch and call apply_patch again.');
  });
});

describe('apply_patch: preview (approval bar)', () => {
  const preview = (text: string) => previewCall(applyPatchTool, { patch: text }, createContext({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir }));

  it('shows every file and the same diff run produces; creates, moves and deletes nothing', async () => {
    bed.ws.write('src/a.ts', 'line1\nline2\nline3\n');
    bed.ws.write('src/old.ts', 'keep\nrename me\n');
    bed.ws.write('src/gone.ts', 'bye\n');
    const p = patch(
      '*** Add File: src/new/b.ts',
      '+export const b = 1;',
      '*** Update File: src/a.ts',
      '@@',
      ' line1',
      '-line2',
      '+LINE2',
      '*** Update File: src/old.ts',
      '*** Move to: src/moved/renamed.ts',
      '@@',
      ' keep',
      '-rename me',
      '+renamed',
      '*** Delete File: src/gone.ts',
    );
    const before = treeSnapshot(bed.ws.workspace);
    const pv = await preview(p);
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
    expect(exists('src/new')).toBe(false);
    expect(exists('src/moved')).toBe(false);
    expect(pv.summary).toBe(
      'apply_patch: A src/new/b.ts (+1 −0 lines), M src/a.ts (+1 −1 lines), R src/old.ts → src/moved/renamed.ts (+1 −1 lines), D src/gone.ts (+0 −1 lines)',
    );
    const r = await apply(p);
    expect(r.status).toBe('ok');
    expect(pv.diff).toBe(r.meta?.diff);
    expect(pv.diff).toContain('--- a/src/gone.ts\n+++ b/src/gone.ts\n@@ -1,1 +0,0 @@\n-bye\n');
  });

  it('a patch that would fail says why, with no diff, and writes nothing; never throws', async () => {
    bed.ws.write('one.txt', 'a\n');
    const before = treeSnapshot(bed.ws.workspace);
    const pv = await preview(patch('*** Add File: two.txt', '+x', '*** Delete File: missing.txt'));
    expect(pv.diff).toBeUndefined();
    expect(pv.summary).toBe(
      'apply_patch — would fail: Delete File missing.txt: File not found: missing.txt. Nothing with a similar name is in the workspace root; use list_dir to see the workspace root, or glob to search the tree by pattern.',
    );
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
    expect(await preview('not a patch')).toEqual({ summary: expect.stringMatching(/^apply_patch — would fail: Invalid patch, /) });
  });
});
