import fs from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool } from '../../lib/tools/glob';
import { FAST_GLOB_OPTIONS, WALK_SLICE_MS } from '../../lib/tools/glob-walk';
import { comparePaths, IgnoreRules } from '../../lib/tools/grep/ignore';
import { formatCount } from '../../lib/contract/text';
import { harness, tempWorkspace } from '../helpers';

/**
 * What glob must answer, computed the plain way: fast-glob walks (its promise API, the tool's options) and
 * is kept out of folders the ignore rules skip as it reads them; the ignore rules then judge every path it
 * returns; everything is sorted. The tool walks on its own, in path order, with fast-glob's filters.
 */
async function expected(workspace: string, pattern: string, given: string) {
  // a path through a link is searched where it leads, as the tool resolves it
  const rel = path.relative(workspace, fs.realpathSync(path.join(workspace, given))) || '.';
  const rules = new IgnoreRules(workspace, rel, process.env.CLAMP_IGNORE);
  const abs = rel === '.' ? workspace : path.join(workspace, rel);
  const relOf = (p: string) => (p === workspace ? '' : path.relative(workspace, p).split(path.sep).join('/'));
  type Readdir = (p: string, ...rest: unknown[]) => void;
  const readdir: Readdir = (p, ...rest) => {
    const cb = rest[rest.length - 1] as (err: null, entries: unknown[]) => void;
    if (rules.dir(relOf(p)) === null) return cb(null, []);
    (fs.readdir as unknown as Readdir)(p, ...rest);
  };
  const found = await fg(pattern, { ...FAST_GLOB_OPTIONS, cwd: abs, fs: { readdir: readdir as unknown as typeof fs.readdir } });
  const prefix = rel === '.' ? '' : `${rel}/`;
  const files = found.map((f) => prefix + f).filter((f) => !rules.pathIgnored(f)).sort(comparePaths);
  return { files, ignored: { dirs: rules.stats.dirs, files: rules.stats.files } };
}

/** A tree with what the ignore rules and the walk must get right: rule files at several depths, dot files, links, skipped folders. */
function fixedTree(ws: ReturnType<typeof tempWorkspace>) {
  ws.write('.gitignore', '*.log\n/tmp/\nsecret*\n!secret-ok.txt\n');
  ws.write('.clampignore', 'fixtures/\n');
  ws.write('sub/.gitignore', '!keep.log\ndeep/\n*.tmp\n');
  ws.write('sub/inner/.gitignore', '!x.tmp\n');
  for (const f of [
    'a.log', 'tmp/x.txt', 'sub/keep.log', 'sub/drop.log', 'sub/deep/d.ts', 'sub/y.tmp', 'sub/inner/x.tmp', 'sub/inner/z.tmp',
    'fixtures/f.txt', 'secret.txt', 'secret-ok.txt', 'ok.txt', 'sub/tmp/y.txt', '.env', '.github/workflows/ci.yml',
    'src/a.ts', 'src/a-b.ts', 'src/a/z.ts', 'src/a.b/c.ts', 'src/node_modules/m/i.js', 'src/lib/l.ts', 'src/lib/deep/e.ts',
    'node_modules/p/index.js', 'dist/out.js', 'pkg/dist/x.js', 'a b/[c].ts', 'ü/é.ts', 'lib/x.ts', 'lib/sub/x.ts',
  ]) ws.write(f, 'x\n');
  fs.mkdirSync(path.join(ws.workspace, 'empty'));
  fs.symlinkSync(path.join(ws.workspace, 'src'), path.join(ws.workspace, 'src-link'));
  fs.symlinkSync(path.join(ws.workspace, 'ok.txt'), path.join(ws.workspace, 'ok-link.txt'));
  fs.symlinkSync(path.join(ws.workspace, 'nowhere'), path.join(ws.workspace, 'broken.txt'));
}

/** A random tree of folders, files, links and .gitignore files (deterministic per seed). */
function randomTree(ws: ReturnType<typeof tempWorkspace>, seed: number): string[] {
  const names = ['a', 'b', 'a-c', 'a.txt', 'x.ts', 'y.js', '.hidden', 'node_modules', 'dist', 'src', 'lib', 'keep.log', 'drop.log', 'B', 'a b', 'file1.md', 'tmp', 'sub'];
  const rules = ['*.log', '!keep.log', 'tmp/', '/lib', 'sub/*.ts', '**/b', 'a-c', '!dist', 'src/a/', '.hidden', 'x.*', '!x.ts', '[ab]'];
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T,>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const dirs = [''];
  for (let i = 0; i < 100; i++) {
    const parent = pick(dirs);
    const rel = parent ? `${parent}/${pick(names)}` : pick(names);
    const abs = path.join(ws.workspace, rel);
    if (fs.existsSync(abs)) continue;
    const r = rnd();
    if (r < 0.35) {
      fs.mkdirSync(abs);
      dirs.push(rel);
    } else if (r < 0.85) fs.writeFileSync(abs, 'x\n');
    else if (r < 0.92) fs.symlinkSync(path.join(ws.workspace, pick(dirs)), abs);
    else fs.writeFileSync(path.join(path.dirname(abs), '.gitignore'), `${pick(rules)}\n${pick(rules)}\n`);
  }
  if (rnd() < 0.7) ws.write('.gitignore', `${pick(rules)}\n${pick(rules)}\n`);
  return dirs;
}

const PATTERNS = [
  '**/*', '*', '**/*.ts', '*.ts', 'src/**', '{src,lib}/**/*.ts', '{src,src/lib}/**/*', '{sub,sub/inner,a}/**', '**/.*', '**/node_modules/**',
  'node_modules/**/*.js', 'src/a.ts', '{ok.txt,src/**/*.ts,secret.txt}', '**/[ab]*', '**/*.{ts,md}', '!x.ts', '**/*.log', '**/a b/*',
  '**/\\[c\\].ts', '**/@(a|b).ts', 'dist/**', '*/*', '**/sub/**', '.env', 'tmp/*', 'src//a.ts', 'ok.txt/', 'src-link/**',
];

describe('glob: the same answer as fast-glob with the ignore rules', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    ws = tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  async function compare(paths: string[]) {
    const h = harness([globTool], ws);
    let nonEmpty = 0;
    for (const rel of paths) {
      for (const pattern of PATTERNS) {
        const want = await expected(ws.workspace, pattern, rel);
        const args = rel === '.' ? { pattern } : { pattern, path: rel };
        const all = await h.call('glob', args, { budget: { GLOB_MAX_RESULTS: 10_000 } });
        const what = `pattern ${pattern} in ${rel}`;
        expect(all.meta, what).toEqual({ total: want.files.length, ignored: want.ignored });
        if (want.files.length === 0) continue;
        nonEmpty++;
        const n = want.files.length;
        expect(all.output, what).toBe(`${want.files.join('\n')}\n\n${formatCount(n)} file${n === 1 ? ' matches' : 's match'}.`);
        const two = await h.call('glob', args, { budget: { GLOB_MAX_RESULTS: 2 } });
        expect(two.output.split('\n').slice(0, Math.min(2, n)), what).toEqual(want.files.slice(0, 2));
        expect(two.meta, what).toEqual(all.meta);
      }
    }
    return nonEmpty;
  }

  it('on a tree with nested rule files, dot files, symlinks and skipped folders', async () => {
    fixedTree(ws);
    const before = process.env.CLAMP_IGNORE;
    process.env.CLAMP_IGNORE = '*.yml';
    try {
      // the search folders include ignored ones given explicitly (node_modules, tmp) and one through a link
      expect(await compare(['.', 'src', 'sub', 'node_modules', 'tmp', 'src-link'])).toBeGreaterThan(40);
    } finally {
      if (before === undefined) delete process.env.CLAMP_IGNORE;
      else process.env.CLAMP_IGNORE = before;
    }
  });

  it('on random trees', async () => {
    let nonEmpty = 0;
    for (let seed = 1; seed <= 6; seed++) {
      ws.cleanup();
      ws = tempWorkspace();
      const dirs = randomTree(ws, seed);
      nonEmpty += await compare(['.', ...dirs.slice(1, 3)]);
    }
    expect(nonEmpty).toBeGreaterThan(50);
  });
});

describe('glob: abort', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  beforeEach(() => {
    ws = tempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it('a real abort stops a long walk that matches nothing', { timeout: 120_000 }, async () => {
    const h = harness([globTool], ws);
    // a walk several slices long on this machine: folders are added until it takes that long
    let dirs = 0;
    for (let round = 0; round < 6; round++) {
      for (const end = dirs + 1000 * 2 ** round; dirs < end; dirs++) fs.mkdirSync(path.join(ws.workspace, `d${dirs}`));
      const t = performance.now();
      expect((await h.call('glob', { pattern: '**/*.rs' })).output).toContain('No files match');
      if (performance.now() - t > 4 * WALK_SLICE_MS) break;
    }
    // the timer can only fire between slices of the walk: an ok answer would mean it never let go
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1);
    const r = await h.call('glob', { pattern: '**/*.rs' }, { signal: ac.signal });
    expect(r.status).toBe('error');
    expect(r.output).toBe('glob was stopped by the user before it finished.');
  });
});
