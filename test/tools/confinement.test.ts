import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createContext } from '../../lib/dispatch/context';
import { createRegistry } from '../../lib/dispatch/registry';
import { prepareCall } from '../../lib/dispatch/dispatch';
import { ToolError, type ToolDefinition } from '../../lib/contract/types';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { writeFileTool } from '../../lib/tools/write-file';
import { editFileTool } from '../../lib/tools/edit-file/edit-file';
import { applyPatchTool } from '../../lib/tools/apply-patch/apply-patch';
import { listDirTool } from '../../lib/tools/list-dir';
import { globTool } from '../../lib/tools/glob';
import { grepTool } from '../../lib/tools/grep/grep';
import { skillTool } from '../../lib/tools/skills/skills';
import { scanSkills } from '../../lib/tools/skills/skill-files';
import { holdFolder, listExact, openInHeldFolder, releaseFolder } from '../../lib/policy/confined-fs';
import { scanPool } from '../../lib/tools/grep/scan-pool';
import { completePaths } from '../../lib/server/mention-paths';
import { PathPolicyError } from '../../lib/policy/workspace';
import { fileState, harness, tempWorkspace } from '../helpers';

/**
 * A path checked by dispatch, then changed before the tool opens it: the folder is swapped for a link to a
 * folder outside the workspace (what a command racing the tools does). The tool must refuse, touch nothing
 * outside and show nothing from there.
 */

const SECRET = 'SECRET-outside-the-workspace';
const TOOLS: ToolDefinition[] = [readFileTool, writeFileTool, editFileTool, applyPatchTool, listDirTool, globTool, grepTool];

let ws: ReturnType<typeof tempWorkspace>;
let outside: string;
beforeEach(() => {
  ws = tempWorkspace('clamp-confine-');
  outside = path.join(ws.root, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
  ws.write('dir/inside.txt', 'inside\n');
});
afterEach(() => ws.cleanup());

/** Put a link to `outside` where the folder ws/<rel> was (the folder moves aside to <rel>.real). */
function swapForLinkOut(rel: string): void {
  const abs = path.join(ws.workspace, rel);
  fs.renameSync(abs, `${abs}.real`);
  fs.symlinkSync(outside, abs);
}

/** Prepare a call (dispatch confines its paths now), run `between`, then run the tool on what dispatch resolved. */
async function raced(name: string, args: unknown, between: () => void): Promise<{ output?: string; refused?: string; error?: string }> {
  const ctx = createContext({ workspace: ws.workspace, dataDir: ws.dataDir, mode: 'auto' });
  const prep = prepareCall(createRegistry(TOOLS), name, args, ctx);
  if (!prep.ok) throw new Error(`not prepared: ${prep.result.output}`);
  between();
  try {
    const out = await prep.tool.run(prep.input as never, { ...ctx, paths: prep.paths });
    return { output: out.output };
  } catch (err) {
    if (err instanceof PathPolicyError) return { refused: err.message };
    if (err instanceof ToolError) return { error: err.message };
    throw err;
  }
}

describe('a folder swapped for a link out between the check and the open', () => {
  it('read_file refuses and says what happened and what to do', async () => {
    const r = await raced('read_file', { path: 'dir/secret.txt' }, () => swapForLinkOut('dir'));
    expect(r.refused).toBe(
      `dir/secret.txt now leads outside ${ws.workspace} (to ${outside}/secret.txt): a link was put in its way after the path was checked, so nothing was read. ` +
        'Something, likely a command you ran, is changing this path; see what it is with list_dir, and use paths that stay inside the workspace.',
    );
  });

  it('read_file refuses a file that became a link after the check', async () => {
    const r = await raced('read_file', { path: 'dir/inside.txt' }, () => {
      fs.unlinkSync(path.join(ws.workspace, 'dir/inside.txt'));
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws.workspace, 'dir/inside.txt'));
    });
    expect(r.refused).toMatch(/^dir\/inside\.txt became a link \(to .*secret\.txt\) after the path was checked, so nothing was read\./);
  });

  it('write_file, edit_file and apply_patch write nothing outside (new folders included)', async () => {
    const before = fileState(outside);
    const cases: [string, unknown][] = [
      ['write_file', { path: 'dir/new.txt', content: 'x\n' }],
      ['write_file', { path: 'dir/a/b/new.txt', content: 'x\n' }],
      ['write_file', { path: 'dir/secret.txt', content: 'overwritten\n' }],
      ['edit_file', { path: 'dir/secret.txt', old_string: 'SECRET', new_string: 'edited' }],
      ['edit_file', { path: 'dir/created.txt', old_string: '', new_string: 'x\n' }],
      ['apply_patch', { patch: '*** Begin Patch\n*** Add File: dir/p.txt\n+x\n*** End Patch' }],
      ['apply_patch', { patch: '*** Begin Patch\n*** Delete File: dir/secret.txt\n*** End Patch' }],
      ['apply_patch', { patch: '*** Begin Patch\n*** Update File: dir/secret.txt\n@@\n-SECRET-outside-the-workspace\n+x\n*** End Patch' }],
    ];
    for (const [name, args] of cases) {
      const r = await raced(name, args, () => swapForLinkOut('dir'));
      const said = r.refused ?? r.error ?? '';
      // refused as it opened the path, or seen while planning: a link where a folder was checked
      expect(said, `${name} ${JSON.stringify(args)}: ${said}`).toMatch(/now leads outside|is not a folder any more|dir is a link, not a folder|became a link/);
      expect(`${r.output}${said}`).not.toContain(SECRET);
      expect(fileState(outside)).toEqual(before);
      // put the folder back for the next case
      fs.unlinkSync(path.join(ws.workspace, 'dir'));
      fs.renameSync(path.join(ws.workspace, 'dir.real'), path.join(ws.workspace, 'dir'));
    }
  });

  it('apply_patch rolls back the files it wrote before the one that leads out', async () => {
    const patch = '*** Begin Patch\n*** Add File: first.txt\n+one\n*** Add File: dir/second.txt\n+two\n*** End Patch';
    // the swap comes after the plan (which would see the link): between the first write and the second
    const ctx = createContext({ workspace: ws.workspace, dataDir: ws.dataDir, mode: 'auto' });
    const prep = prepareCall(createRegistry(TOOLS), 'apply_patch', { patch }, ctx);
    if (!prep.ok) throw new Error(prep.result.output);
    const realRename = fs.renameSync;
    let swapped = false;
    const spy = vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      realRename(from, to);
      if (!swapped && String(to).endsWith('/first.txt')) {
        swapped = true;
        swapForLinkOut('dir');
      }
    });
    let refused = '';
    try {
      await prep.tool.run(prep.input as never, { ...ctx, paths: prep.paths });
    } catch (err) {
      refused = (err as Error).message;
    } finally {
      spy.mockRestore();
    }
    expect(swapped).toBe(true);
    expect(refused).toMatch(/^apply_patch stopped: dir\/second\.txt was not written: dir is not a folder any more .* Nothing was changed\.$/);
    expect(fs.existsSync(path.join(ws.workspace, 'first.txt'))).toBe(false);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('list_dir, glob and grep list nothing from outside', async () => {
    for (const [name, args] of [
      ['list_dir', { path: 'dir' }],
      ['glob', { pattern: '*', path: 'dir' }],
      ['grep', { pattern: 'SECRET', path: 'dir' }],
    ] as const) {
      const r = await raced(name, args, () => swapForLinkOut('dir'));
      expect(r.refused, name).toMatch(/^dir (now leads outside .*|became a link \(to .*\) after the path was checked, )so nothing was (listed|read)\./);
      fs.unlinkSync(path.join(ws.workspace, 'dir'));
      fs.renameSync(path.join(ws.workspace, 'dir.real'), path.join(ws.workspace, 'dir'));
    }
    for (const [name, args] of [
      ['glob', { pattern: 'dir/*' }],
      ['glob', { pattern: 'dir/secret.txt' }],
      ['glob', { pattern: '**/*.txt' }],
      ['grep', { pattern: 'SECRET' }],
    ] as const) {
      const r = await raced(name, args, () => swapForLinkOut('dir'));
      // (the pattern itself is echoed back when nothing matches)
      expect((r.output ?? '').split(String(args.pattern)).join(''), `${name} ${JSON.stringify(args)}`).not.toMatch(/secret\.txt|SECRET-/);
      fs.unlinkSync(path.join(ws.workspace, 'dir'));
      fs.renameSync(path.join(ws.workspace, 'dir.real'), path.join(ws.workspace, 'dir'));
    }
  });
});

describe('links that stay inside the workspace still work', () => {
  it('glob follows a pattern folder that links inside, read_file and write_file go where dispatch resolved', async () => {
    ws.write('src/a.ts', 'export const a = 1;\n');
    fs.symlinkSync(path.join(ws.workspace, 'src'), path.join(ws.workspace, 'src-link'));
    fs.symlinkSync(outside, path.join(ws.workspace, 'out-link'));
    const h = harness(TOOLS, ws);
    expect((await h.call('glob', { pattern: 'src-link/**' })).output).toBe('src-link/a.ts\n\n1 file matches.');
    expect((await h.call('glob', { pattern: 'src-link/a.ts' })).output).toBe('src-link/a.ts\n\n1 file matches.');
    expect((await h.call('glob', { pattern: 'out-link/**' })).output).toMatch(/^No files match/);
    expect((await h.call('glob', { pattern: 'out-link/secret.txt' })).output).toMatch(/^No files match/);
    expect((await h.call('read_file', { path: 'src-link/a.ts' })).output).toContain('export const a = 1;');
    expect((await h.call('write_file', { path: 'src-link/b.ts', content: 'b\n' })).status).toBe('ok');
    expect(ws.read('src/b.ts')).toBe('b\n');
    // a "did you mean" never looks through a link out
    const near = await h.call('read_file', { path: 'out-lnk/secret.tx' });
    expect(near.output).not.toContain('secret.txt');
  });
});

describe('@-mention completion', () => {
  it('lists the workspace through its folders, never through a link', () => {
    fs.symlinkSync(outside, path.join(ws.workspace, 'out-link'));
    const items = completePaths(ws.workspace, '').items.map((i) => i.path);
    expect(items).toContain('dir/inside.txt');
    expect(items.join('\n')).not.toContain('secret.txt');
  });
});

describe('a workspace skill that links out', () => {
  it('is skipped, not loaded', async () => {
    fs.mkdirSync(path.join(outside, 'skill'));
    fs.writeFileSync(path.join(outside, 'skill', 'SKILL.md'), `---\nname: evil\ndescription: reads what lies outside\n---\n${SECRET}\n`);
    fs.mkdirSync(path.join(ws.workspace, '.claude', 'skills'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'skill'), path.join(ws.workspace, '.claude', 'skills', 'evil'));
    const scan = scanSkills(ws.workspace, ws.dataDir);
    expect(scan.skills).toEqual([]);
    expect(scan.skipped).toEqual([{ path: path.join(ws.workspace, '.claude/skills/evil/SKILL.md'), reason: 'it leads outside the workspace (through a link)' }]);
    const r = await harness([skillTool], ws).call('skill', { name: 'evil' });
    expect(r.output).not.toContain(SECRET);
  });
});

describe('the primitives', () => {
  it("grep's worker threads read a file only through its folder where the walk found it", async () => {
    const pool = scanPool();
    if (!pool) return; // worker threads cannot start here: the main thread's scan is the same code (above)
    ws.write('dir/secret.txt', `${SECRET} inside\n`);
    const spec = { regex: null, flags: '', includes: 'SECRET', literalBytes: 'SECRET', whole: null, wholeFlags: '' };
    const job = (files: string[]) => pool.run({ files, spec, maxFileBytes: 1 << 20, sniffBytes: 8000, maxTextBytes: 1 << 20 });
    const file = path.join(ws.workspace, 'dir', 'secret.txt');
    const before = await job([file]);
    expect(before[0]).toEqual([false, `${SECRET} inside\n`, [1]]);
    swapForLinkOut('dir');
    // the same path now leads to outside/secret.txt: unreadable (2), not read
    expect(await job([file])).toEqual([2]);
  });

  it('a held folder keeps reading the folder that was checked, and a new hold refuses a link in its place', () => {
    ws.write('dir/secret.txt', 'the inside one\n');
    const abs = path.join(ws.workspace, 'dir');
    const hold = { dir: holdFolder(abs) };
    expect(hold.dir.fd).toBeGreaterThanOrEqual(0);
    swapForLinkOut('dir');
    const fd = openInHeldFolder(path.join(abs, 'secret.txt'), hold);
    expect(fs.readFileSync(fd, 'utf8')).toBe('the inside one\n');
    fs.closeSync(fd);
    releaseFolder(hold.dir);
    const again = { dir: null };
    expect(openInHeldFolder(path.join(abs, 'secret.txt'), again)).toBe(-1);
    expect(listExact(abs)).toBeNull();
    expect(listExact(`${abs}.real`)?.map((d) => d.name).sort()).toEqual(['inside.txt', 'secret.txt']);
  });
});
