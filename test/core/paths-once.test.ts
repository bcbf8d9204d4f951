/** A path argument is resolved once, by dispatch, and the tool receives the resolved path. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../lib/contract/types';
import { confinedPath } from '../../lib/contract/paths';
import { harness, tempWorkspace } from '../helpers';

const where = defineTool({
  name: 'where',
  effect: 'read',
  schema: z.object({ path: z.string(), other: z.string().optional() }),
  paths: (i) => [{ path: i.path, access: 'read', field: 'path' }],
  describe: () => 'Says where a path lies.',
  summary: (i) => i.path,
  async run(i, ctx) {
    const p = confinedPath(ctx, i.path);
    // a path the tool did not declare was never confined: asking for it is the tool's bug, and fails
    if (i.other !== undefined) confinedPath(ctx, i.other);
    return { output: `${p.rel} ${p.abs}` };
  },
});

describe('paths are resolved once, by dispatch', () => {
  it('the tool gets the resolved, confined path of each declared argument (through symlinks)', async () => {
    const ws = tempWorkspace();
    try {
      ws.write('real/a.txt', 'a');
      fs.symlinkSync(path.join(ws.workspace, 'real'), path.join(ws.workspace, 'link'));
      const h = harness([where], ws);
      expect((await h.call('where', { path: 'link/../real/./a.txt' })).output).toBe(`real/a.txt ${path.join(ws.workspace, 'real/a.txt')}`);
      expect((await h.call('where', { path: 'link/a.txt' })).output).toBe(`real/a.txt ${path.join(ws.workspace, 'real/a.txt')}`);
      const out = await h.call('where', { path: '../x' });
      expect(out.status).toBe('denied');
      const undeclared = await h.call('where', { path: 'real/a.txt', other: 'real' });
      expect(undeclared.status).toBe('error');
      expect(undeclared.output).toContain('was not confined by dispatch');
    } finally {
      ws.cleanup();
    }
  });

  it('no tool module resolves a path argument itself', () => {
    const root = path.resolve(__dirname, '../../lib/tools');
    const offenders = fs
      .readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => path.join(e.parentPath, e.name))
      .filter((f) => /\bresolveInWorkspace\b/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    expect(offenders).toEqual([]);
  });
});
