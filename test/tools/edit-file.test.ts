import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { editFileTool } from '../../lib/tools/edit-file/edit-file';
import { budgetTable } from '../../lib/contract/budget';
import { createContext } from '../../lib/dispatch/context';
import { previewCall, toolBed, treeSnapshot } from '../helpers';

const bed = toolBed([editFileTool]);

const edit = (args: Record<string, unknown>, extra = {}) => bed.h.call('edit_file', args, extra);

describe('edit_file: contract', () => {
  it('has a stable JSON schema', () => {
    expect(z.toJSONSchema(editFileTool.schema)).toMatchSnapshot();
  });

  it('describes itself with numbers from the budget it is given and names its siblings', () => {
    const text = editFileTool.describe(budgetTable({ DIFF_MAX_BYTES: 1234, EDIT_LOOSE_SPAN_MAX_RATIO: 1.7, EDIT_MAX_FILE_BYTES: 2 * 1024 * 1024 }));
    expect(text).toContain('cut to 1,234 bytes for you');
    expect(text).toContain('A loose match over 1.7× the lines or bytes of old_string is refused.');
    expect(text).toContain('Files up to 2.0 MB.');
    expect(text).toContain('To replace a whole file use write_file. To make several changes in one or more files at once use apply_patch.');
    expect(editFileTool.effect).toBe('write');
  });
});

describe('edit_file: exact matches', () => {
  it('replaces a unique match and returns the diff', async () => {
    bed.ws.write('src/a.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const r = await edit({ path: 'src/a.ts', old_string: 'const b = 2;', new_string: 'const b = 20;\nconst bb = 21;' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      [
        'Edited src/a.ts: replaced 1 match at line 2 (+2 −1 lines).',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -1,3 +1,4 @@',
        ' const a = 1;',
        '-const b = 2;',
        '+const b = 20;',
        '+const bb = 21;',
        ' const c = 3;',
      ].join('\n'),
    );
    expect(bed.ws.read('src/a.ts')).toBe('const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n');
    expect(r.truncation).toBeNull();
    expect(r.meta).toMatchObject({ path: 'src/a.ts', added: 2, removed: 1, created: false, matcher: 'exact', matches: 1, lines: [2] });
    expect(r.meta?.diff).toContain('+const bb = 21;');
  });

  it('inserts the replacement literally: $& and $$ stay as typed', async () => {
    bed.ws.write('a.js', 'price = X;\n');
    const r = await edit({ path: 'a.js', old_string: 'X', new_string: "'$&' + '$$' + '$1' + \"$'\"" });
    expect(r.status).toBe('ok');
    expect(bed.ws.read('a.js')).toBe("price = '$&' + '$$' + '$1' + \"$'\";\n");
  });

  it('keeps CRLF line endings (old_string and new_string written with LF)', async () => {
    bed.ws.write('win.txt', 'one\r\ntwo\r\nthree\r\n');
    const r = await edit({ path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos\ndos-bis' });
    expect(r.status).toBe('ok');
    expect(r.meta?.matcher).toBe('exact');
    expect(fs.readFileSync(path.join(bed.ws.workspace, 'win.txt'), 'latin1')).toBe('uno\r\ndos\r\ndos-bis\r\nthree\r\n');
  });

  it('keeps a UTF-8 byte-order mark', async () => {
    bed.ws.write('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\r\nworld\r\n')]));
    const r = await edit({ path: 'bom.txt', old_string: 'héllo', new_string: 'bonjour' });
    expect(r.status).toBe('ok');
    const bytes = fs.readFileSync(path.join(bed.ws.workspace, 'bom.txt'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe('bonjour\r\nworld\r\n');
  });

  it('keeps the file mode', async () => {
    const abs = bed.ws.write('run.sh', '#!/bin/sh\necho hi\n');
    fs.chmodSync(abs, 0o751);
    await edit({ path: 'run.sh', old_string: 'echo hi', new_string: 'echo bye' });
    expect(fs.statSync(abs).mode & 0o777).toBe(0o751);
    expect(fs.readdirSync(bed.ws.workspace)).toEqual(['run.sh']); // no temp file left behind
  });

  it('several matches: error with the count and line numbers, asking for context or replace_all', async () => {
    bed.ws.write('m.txt', 'x = 1\ny = 2\nx = 1\nz\nx = 1\n');
    const r = await edit({ path: 'm.txt', old_string: 'x = 1', new_string: 'x = 9' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'old_string matches 3 places in m.txt (lines 1, 3, 5); it must match exactly one.\n' +
        'Add surrounding lines to old_string so it matches one place, or set replace_all=true to replace all 3.',
    );
    expect(r.hint).toBe('Give more context in old_string, or set replace_all=true.');
    expect(bed.ws.read('m.txt')).toBe('x = 1\ny = 2\nx = 1\nz\nx = 1\n');
  });

  it('lists at most EDIT_MATCH_LINES_MAX_LISTED line numbers and counts the rest', async () => {
    bed.ws.write('m.txt', 'a\n'.repeat(5));
    const r = await edit({ path: 'm.txt', old_string: 'a', new_string: 'b' }, { budget: { EDIT_MATCH_LINES_MAX_LISTED: 2 } });
    expect(r.output.split('\n')[0]).toBe('old_string matches 5 places in m.txt (lines 1, 2 and 3 more); it must match exactly one.');
  });

  it('replace_all replaces every match and says where', async () => {
    bed.ws.write('m.txt', 'x = 1\ny = 2\nx = 1\n');
    const r = await edit({ path: 'm.txt', old_string: 'x = 1', new_string: 'x = 9', replace_all: true });
    expect(r.status).toBe('ok');
    expect(r.output.split('\n')[0]).toBe('Edited m.txt: replaced 2 matches at lines 1, 3 (+2 −2 lines).');
    expect(bed.ws.read('m.txt')).toBe('x = 9\ny = 2\nx = 9\n');
  });
});

describe('edit_file: errors with a next step', () => {
  it('identical strings', async () => {
    bed.ws.write('a.txt', 'a\n');
    const r = await edit({ path: 'a.txt', old_string: 'a', new_string: 'a' });
    expect(r.status).toBe('error');
    expect(r.output).toBe('old_string and new_string are identical; there is nothing to change.');
    expect(r.hint).toBe('Put the new text in new_string. If the file already says what you want, no edit is needed.');
  });

  it('empty old_string on a file with content points to write_file', async () => {
    bed.ws.write('a.txt', 'one\ntwo\n');
    const r = await edit({ path: 'a.txt', old_string: '', new_string: 'x' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'old_string is empty but a.txt already exists (2 lines). To replace the whole file use write_file; to change part of it, give old_string copied exactly from read_file.',
    );
    expect(r.hint).toBe('Use write_file to replace the whole file, or give old_string.');
    expect(bed.ws.read('a.txt')).toBe('one\ntwo\n');
  });

  it('empty old_string on a missing file creates it (with parents); on an empty file fills it', async () => {
    const r = await edit({ path: 'new/dir/f.txt', old_string: '', new_string: 'hello\nworld\n' });
    expect(r.status).toBe('ok');
    expect(r.output).toBe('Created new/dir/f.txt with new_string (+2 −0 lines, 12 bytes).');
    expect(r.meta).toMatchObject({ created: true, added: 2, removed: 0 });
    expect(bed.ws.read('new/dir/f.txt')).toBe('hello\nworld\n');
    bed.ws.write('empty.txt', '');
    const r2 = await edit({ path: 'empty.txt', old_string: '', new_string: 'x\n' });
    expect(r2.output).toBe('Filled the empty file empty.txt with new_string (+1 −0 lines, 2 bytes).');
    expect(bed.ws.read('empty.txt')).toBe('x\n');
  });

  it('missing file: "File not found" with near names and how to create one', async () => {
    bed.ws.write('src/utils.ts', 'x\n');
    const r = await edit({ path: 'src/utlis.ts', old_string: 'x', new_string: 'y' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'File not found: src/utlis.ts. Did you mean src/utils.ts? To create a new file use write_file (or edit_file with an empty old_string).',
    );
    expect(fs.existsSync(path.join(bed.ws.workspace, 'src/utlis.ts'))).toBe(false);
  });

  it('not found: says so, shows the closest region with line numbers, and asks to copy old_string exactly', async () => {
    bed.ws.write('f.py', 'import os\n\ndef main():\n    print("hello world")\n    return 0\n\nmain()\n');
    const r = await edit({ path: 'f.py', old_string: 'def main():\n    print("hello, world")\n    return 1', new_string: 'pass' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      [
        'old_string was not found in f.py (tried an exact match, then trailing whitespace, indentation, tabs/spaces, escaped characters, blank lines and first/last-line anchors).',
        'The closest region is lines 3–5:',
        '3\tdef main():',
        '4\t    print("hello world")',
        '5\t    return 0',
        'read_file the region and copy old_string exactly (every space and line break), then call edit_file again.',
      ].join('\n'),
    );
    expect(r.hint).toBe('read_file f.py with offset=3, then copy old_string exactly.');
  });

  it('not found with nothing alike', async () => {
    bed.ws.write('f.txt', 'alpha\nbeta\n');
    const r = await edit({ path: 'f.txt', old_string: 'zzqq', new_string: 'y' });
    expect(r.output).toBe(
      'old_string was not found in f.txt (tried an exact match, then trailing whitespace, indentation, tabs/spaces, escaped characters, blank lines and first/last-line anchors). Nothing in the file looks like it.\n' +
        'read_file the region and copy old_string exactly (every space and line break), then call edit_file again.',
    );
    expect(r.hint).toBe('read_file f.txt to find the text, then copy old_string exactly.');
  });

  it('a directory, a binary file, invalid UTF-8 and a file over the cap are refused', async () => {
    fs.mkdirSync(path.join(bed.ws.workspace, 'dir'));
    let r = await edit({ path: 'dir', old_string: 'a', new_string: 'b' });
    expect(r.output).toBe('dir is a directory, not a file; edit_file changes files.');
    expect(r.hint).toBe('Pass the path of a file (list_dir dir shows what it contains).');

    bed.ws.write('img.bin', Buffer.from([1, 2, 0, 3]));
    r = await edit({ path: 'img.bin', old_string: 'a', new_string: 'b' });
    expect(r.output).toBe('img.bin looks binary (a NUL byte in its first 4 bytes); edit_file only changes text files.');

    bed.ws.write('latin.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    r = await edit({ path: 'latin.txt', old_string: 'caf', new_string: 'x' });
    expect(r.output).toBe('latin.txt is not valid UTF-8 text; edit_file would corrupt the bytes it cannot decode, so it leaves the file alone.');

    bed.ws.write('big.txt', 'x'.repeat(100));
    r = await edit({ path: 'big.txt', old_string: 'x', new_string: 'y', replace_all: true }, { budget: { EDIT_MAX_FILE_BYTES: 50 } });
    expect(r.output).toBe('big.txt is 100 bytes, over the 50 bytes limit of edit_file; it was not changed.');
    expect(r.hint).toBe('Change a file that large with a command-line tool (run_command), or split it; ask the user if unsure.');
  });

  it('an edit that would grow the file past the cap is refused', async () => {
    bed.ws.write('g.txt', 'ab\n');
    const r = await edit({ path: 'g.txt', old_string: 'ab', new_string: 'x'.repeat(60) }, { budget: { EDIT_MAX_FILE_BYTES: 50 } });
    expect(r.output).toBe('The edit would make g.txt 61 bytes, over the 50 bytes limit of edit_file; nothing was written.');
    expect(bed.ws.read('g.txt')).toBe('ab\n');
  });

  it('empty path is refused before any I/O; .git and escapes are refused by confinement', async () => {
    let r = await edit({ path: '', old_string: 'a', new_string: 'b' });
    expect(r.output).toBe('Invalid arguments for edit_file:\n- `path`: must not be empty.\nPass a non-empty path and call edit_file again.');
    bed.ws.write('.git/config', 'x\n');
    r = await edit({ path: '.git/config', old_string: 'x', new_string: 'y' });
    expect(r.status).toBe('denied');
    expect(bed.ws.read('.git/config')).toBe('x\n');
    r = await edit({ path: '../outside.txt', old_string: 'x', new_string: 'y' });
    expect(r.status).toBe('denied');
    expect(r.output).toContain('Path is outside the workspace: ../outside.txt');
  });

  it('a diff over DIFF_MAX_BYTES is cut for the model with a note; meta keeps it whole', async () => {
    const body = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    bed.ws.write('d.txt', `${body}\n`);
    const r = await edit({ path: 'd.txt', old_string: body, new_string: body.toUpperCase() }, { budget: { DIFF_MAX_BYTES: 200 } });
    expect(r.status).toBe('ok');
    const total = Buffer.byteLength(r.meta?.diff as string);
    expect(r.truncation).toMatchObject({ unit: 'bytes', total, by: 'tool' });
    expect(r.truncation!.shown).toBeLessThanOrEqual(200);
    expect(r.output).toMatch(
      new RegExp(`\\[Diff cut at ${r.truncation!.shown} bytes of ${total} bytes \\(${r.truncation!.omittedLines} lines omitted\\)\\. The change was applied in full; read_file the file to see the rest\\.\\]$`),
    );
    expect(r.hint).toBe('The diff was cut; read_file d.txt to see the result.');
  });
});

describe('edit_file: loose matchers say which one matched', () => {
  it('drifted indentation succeeds, re-indents new_string and says so', async () => {
    bed.ws.write('c.ts', 'class A {\n    foo() {\n        if (x) {\n            return 1;\n        }\n    }\n}\n');
    const r = await edit({
      path: 'c.ts',
      old_string: 'foo() {\n    if (x) {\n        return 1;\n    }\n}',
      new_string: 'foo() {\n    if (y) {\n        return 2;\n    }\n}',
    });
    expect(r.status).toBe('ok');
    expect(r.output.split('\n').slice(0, 2)).toEqual([
      'Edited c.ts: replaced 1 match at line 2 (+2 −2 lines).',
      'Note: matched with indentation drift (loose matcher: indentation); new_string was re-indented to fit. Check the diff.',
    ]);
    expect(r.meta?.matcher).toBe('indentation');
    expect(bed.ws.read('c.ts')).toBe('class A {\n    foo() {\n        if (y) {\n            return 2;\n        }\n    }\n}\n');
  });

  it('trailing whitespace', async () => {
    bed.ws.write('t.txt', 'a = 1   \nb = 2\n');
    const r = await edit({ path: 't.txt', old_string: 'a = 1\nb = 2', new_string: 'a = 3\nb = 4' });
    expect(r.output.split('\n')[1]).toBe('Note: matched with trailing-whitespace drift (loose matcher: trailing-whitespace). Check the diff.');
    expect(bed.ws.read('t.txt')).toBe('a = 3\nb = 4\n');
  });

  it('tabs vs spaces: new_string follows the file (tabs)', async () => {
    bed.ws.write('g.go', 'func f() {\n\tif x {\n\t\treturn\n\t}\n}\n');
    const r = await edit({ path: 'g.go', old_string: 'if x {\n    return\n}', new_string: 'if y {\n    return 1\n}' });
    expect(r.meta?.matcher).toBe('tabs');
    expect(r.output.split('\n')[1]).toBe('Note: matched with tabs/spaces drift (loose matcher: tabs); new_string was re-indented to fit. Check the diff.');
    expect(bed.ws.read('g.go')).toBe('func f() {\n\tif y {\n\t\treturn 1\n\t}\n}\n');
  });

  it('escaped characters written literally', async () => {
    bed.ws.write('p.js', 'print("hi")\nfoo()\n');
    const r = await edit({ path: 'p.js', old_string: 'print(\\"hi\\")\\nfoo()', new_string: 'print(\\"bye\\")\\nbar()' });
    expect(r.output.split('\n')[1]).toBe(
      'Note: matched with escaped characters written literally (\\n, \\t, \\", \\\', \\$ …) (loose matcher: escapes); new_string was unescaped the same way. Check the diff.',
    );
    expect(bed.ws.read('p.js')).toBe('print("bye")\nbar()\n');
  });

  it('blank-line differences', async () => {
    bed.ws.write('b.py', 'a()\n\n\nb()\nc()\n');
    const r = await edit({ path: 'b.py', old_string: 'a()\nb()\nc()', new_string: 'z()' });
    expect(r.meta?.matcher).toBe('blank-lines');
    expect(bed.ws.read('b.py')).toBe('z()\n');
  });

  it('first/last-line anchors with a similar middle', async () => {
    bed.ws.write('f.js', 'x\nfunction foo() {\n  const a = 1;\n  return a + 1;\n}\ny\n');
    const r = await edit({ path: 'f.js', old_string: 'function foo() {\n  const a = 1;\n  return a + 2;\n}', new_string: 'function foo() {}' });
    expect(r.meta?.matcher).toBe('anchors');
    expect(r.output.split('\n')[1]).toBe('Note: matched with first/last-line anchors and a similar middle (loose matcher: anchors). Check the diff.');
    expect(bed.ws.read('f.js')).toBe('x\nfunction foo() {}\ny\n');
  });

  it('a 3-line old_string that loosely matches a 50-line span is refused', async () => {
    const file = `function foo() {\n${Array.from({ length: 48 }, (_, i) => `  step${i}();`).join('\n')}\n}\n`;
    bed.ws.write('big.js', file);
    const r = await edit({ path: 'big.js', old_string: 'function foo() {\n  step0();\n}', new_string: 'function foo() {}' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'Refused a loose match in big.js: old_string matched with first/last-line anchors and a similar middle (loose matcher: anchors) lines 1–50, ' +
        "a span much larger than old_string (50 lines against old_string's 3; the limit is 1.5× plus a little slack). " +
        'Replacing it could overwrite text you did not mean to change, so nothing was written.\n' +
        'read_file lines 1–50 and give old_string exactly as the file has it (or a smaller piece copied exactly).',
    );
    expect(r.hint).toBe('read_file big.js with offset=1, then copy old_string exactly.');
    expect(bed.ws.read('big.js')).toBe(file);
  });

  it('the guard also counts bytes: few lines spanning far more text are refused', async () => {
    const long = 'x'.repeat(400);
    bed.ws.write('w.txt', `a()\n\n${long}\nb()\nc()\n`);
    // the anchors a() … c() span 5 lines (within the line limit for 3 lines) but 413 bytes of text against 11
    const r = await edit({ path: 'w.txt', old_string: 'a()\nzzz\nc()', new_string: 'q' });
    expect(r.status).toBe('error');
    expect(r.output.split('\n')[0]).toContain("lines 1–5, a span much larger than old_string (413 bytes of text against old_string's 11;");
    expect(bed.ws.read('w.txt')).toBe(`a()\n\n${long}\nb()\nc()\n`);
  });
});

describe('edit_file: whitespace runs inside lines', () => {
  it('several spaces where old_string has one: matched, and the note names the matcher', async () => {
    bed.ws.write('x.js', 'let a;\nconst   x    =     5;\n');
    const r = await edit({ path: 'x.js', old_string: 'const x = 5;', new_string: 'const x = 10;' });
    expect(r.status).toBe('ok');
    expect(r.output.split('\n')[1]).toBe('Note: matched with different runs of spaces or tabs inside lines (loose matcher: inner-whitespace). Check the diff.');
    expect(r.meta).toMatchObject({ matcher: 'inner-whitespace', matches: 1, lines: [2] });
    expect(bed.ws.read('x.js')).toBe('let a;\nconst x = 10;\n');
  });

  it('tabs and mixed runs inside lines, across lines, re-indented to the file (tabs)', async () => {
    bed.ws.write('f.js', 'function f() {\n\tif\t \t(  ready\t )\t{\n\t\tgo( 1,\t2 );\n\t}\n}\n');
    const r = await edit({ path: 'f.js', old_string: '  if ( ready ) {\n    go( 1, 2 );\n  }', new_string: '  if (ready) {\n    go(1, 2);\n    again();\n  }' });
    expect(r.status).toBe('ok');
    expect(r.meta?.matcher).toBe('inner-whitespace');
    expect(bed.ws.read('f.js')).toBe('function f() {\n\tif (ready) {\n\t\tgo(1, 2);\n\t\tagain();\n\t}\n}\n');
  });

  it('whitespace that separates words is not forgiven: "ab" is not "a b"', async () => {
    bed.ws.write('w.txt', 'call(ab);\n');
    const r = await edit({ path: 'w.txt', old_string: 'call(a b);', new_string: 'x' });
    expect(r.status).toBe('error');
    expect(bed.ws.read('w.txt')).toBe('call(ab);\n');
  });
});

describe('edit_file: escaped characters in old_string', () => {
  it('\\$ in a template literal where the file has $', async () => {
    bed.ws.write('t.js', 'const t = `Hello ${name}`;\n');
    const r = await edit({ path: 't.js', old_string: 'const t = `Hello \\${name}`;', new_string: 'const t = `Hi \\${name}`;' });
    expect(r.status).toBe('ok');
    expect(r.meta?.matcher).toBe('escapes');
    expect(bed.ws.read('t.js')).toBe('const t = `Hi ${name}`;\n');
  });

  it('\\" and \\$ in a shell line; \\\' inside a word', async () => {
    bed.ws.write('run.sh', 'echo "$HOME"\nconst str = \'It\'s working\';\n');
    let r = await edit({ path: 'run.sh', old_string: 'echo \\"\\$HOME\\"', new_string: 'echo \\"\\$USER\\"' });
    expect(r.status).toBe('ok');
    r = await edit({ path: 'run.sh', old_string: "const str = 'It\\'s working';", new_string: "const str = 'It\\'s fixed';" });
    expect(r.status).toBe('ok');
    expect(r.output.split('\n')[1]).toContain('(loose matcher: escapes); new_string was unescaped the same way.');
    expect(bed.ws.read('run.sh')).toBe("echo \"$USER\"\nconst str = 'It's fixed';\n");
  });

  it('a file that uses an escape itself keeps it: only the kinds the file has plain are unescaped in new_string', async () => {
    // the file has plain quotes, and a real backslash-n inside the string
    bed.ws.write('l.js', 'log("a\\nb");\n');
    const r = await edit({ path: 'l.js', old_string: 'log(\\"a\\nb\\");', new_string: 'log(\\"a\\nc\\");' });
    expect(r.status).toBe('ok');
    expect(r.meta?.matcher).toBe('escapes');
    expect(bed.ws.read('l.js')).toBe('log("a\\nc");\n');
  });

  it('backslash-n written literally spans lines; the replacement stays literal ($& and $$ as typed)', async () => {
    bed.ws.write('m.py', 'a = 1\nb = 2\n');
    const r = await edit({ path: 'm.py', old_string: 'a = 1\\nb = 2', new_string: 'a = \\"$&\\"\\nb = \\"$$\\"' });
    expect(r.status).toBe('ok');
    expect(bed.ws.read('m.py')).toBe('a = "$&"\nb = "$$"\n');
  });
});

describe('edit_file: re-indenting across tabs and spaces', () => {
  it('new_string in two-space levels goes into a tab-indented file as tabs, with no stray spaces', async () => {
    bed.ws.write('m.go', 'func main() {\n\tfmt.Println("a")\n}\n');
    const r = await edit({ path: 'm.go', old_string: '  fmt.Println("a")', new_string: '  if ok {\n    fmt.Println("b")\n  }' });
    expect(r.status).toBe('ok');
    expect(r.meta?.matcher).toBe('indentation');
    expect(bed.ws.read('m.go')).toBe('func main() {\n\tif ok {\n\t\tfmt.Println("b")\n\t}\n}\n');
  });

  it('tab levels go into a two-space file as two spaces per level', async () => {
    bed.ws.write('s.js', 'function f() {\n  a();\n  b();\n}\n');
    const r = await edit({ path: 's.js', old_string: '\ta();', new_string: '\tif (x) {\n\t\ta();\n\t}' });
    expect(r.status).toBe('ok');
    expect(bed.ws.read('s.js')).toBe('function f() {\n  if (x) {\n    a();\n  }\n  b();\n}\n');
  });

  it('a block comment keeps its one-space alignment; an odd width in new_string is not turned into a level', async () => {
    bed.ws.write('c.go', 'type T struct {\n\tA int\n}\n');
    const r = await edit({ path: 'c.go', old_string: '    A int', new_string: '    /**\n     * A is a.\n     */\n    A int' });
    expect(r.status).toBe('ok');
    expect(bed.ws.read('c.go')).toBe('type T struct {\n\t/**\n\t * A is a.\n\t */\n\tA int\n}\n');
    expect(bed.ws.read('c.go')).not.toMatch(/\t {2,}/);
  });
});

describe('edit_file: preview (approval bar)', () => {
  const preview = (args: Parameters<typeof editFileTool.run>[0]) =>
    previewCall(editFileTool, args, createContext({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir }));

  it('shows the same diff run produces, and writes nothing', async () => {
    bed.ws.write('src/a.ts', 'one\ntwo\nthree\n');
    const args = { path: 'src/a.ts', old_string: 'two\n', new_string: '2\n2b\n2c\n' };
    const before = treeSnapshot(bed.ws.workspace);
    const p = await preview(args);
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
    expect(p.summary).toBe('edit_file src/a.ts (+3 −1 lines)');
    const r = await edit(args);
    expect(r.status).toBe('ok');
    expect(p.diff).toBe(r.meta?.diff);
    expect(p.diff).toBe('--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,5 @@\n one\n-two\n+2\n+2b\n+2c\n three\n');
  });

  it('previews creating a file without creating it', async () => {
    const before = treeSnapshot(bed.ws.workspace);
    const p = await preview({ path: 'new/b.txt', old_string: '', new_string: 'x\n' });
    expect(p).toEqual({ summary: 'edit_file new/b.txt (+1 −0 lines)', diff: '--- a/new/b.txt\n+++ b/new/b.txt\n@@ -0,0 +1,1 @@\n+x\n' });
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
    expect(fs.existsSync(path.join(bed.ws.workspace, 'new'))).toBe(false);
  });

  it('says when the edit would change nothing', async () => {
    bed.ws.write('s.txt', 'a  \nb\n');
    const p = await preview({ path: 's.txt', old_string: 'a\nb\n', new_string: 'a  \nb\n' });
    expect(p).toEqual({ summary: 'edit_file s.txt (no change: the file already holds this text)' });
  });

  it('turns a plan error into "would fail" with the error text and no diff; never throws', async () => {
    bed.ws.write('c.txt', 'alpha\n');
    const before = treeSnapshot(bed.ws.workspace);
    const p = await preview({ path: 'c.txt', old_string: 'zzz', new_string: 'y' });
    expect(p.diff).toBeUndefined();
    expect(p.summary).toBe(
      'edit_file c.txt — would fail: old_string was not found in c.txt (tried an exact match, then trailing whitespace, indentation, tabs/spaces, escaped characters, blank lines and first/last-line anchors). Nothing in the file looks like it.\n' +
        'read_file the region and copy old_string exactly (every space and line break), then call edit_file again.',
    );
    // dispatch refuses a path outside the workspace before any preview; one asked for anyway (no confined path) still never throws
    expect(await editFileTool.preview!({ path: '../outside.txt', old_string: '', new_string: 'x' }, createContext({ workspace: bed.ws.workspace, dataDir: bed.ws.dataDir }))).toEqual({
      summary: expect.stringMatching(/^edit_file \.\.\/outside\.txt — would fail: /),
    });
    expect(treeSnapshot(bed.ws.workspace)).toEqual(before);
  });
});
