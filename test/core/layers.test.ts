import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of lib/, bottom first (ARCHITECTURE.md). A module may import its own folder and any
 * folder of a lower layer, never one beside or above it.
 */
const LAYERS: Record<string, number> = {
  contract: 0,
  config: 1,
  policy: 1,
  exec: 1,
  store: 1,
  tasks: 2,
  mcp: 2,
  checkpoints: 2,
  tools: 3,
  dispatch: 4,
  agent: 5,
  server: 6,
  cli: 6,
  ui: 1,
  lsp: 2,
};
const ROOT = path.resolve(__dirname, '../..');
const LIB = path.join(ROOT, 'lib');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

function folderOf(file: string): string {
  const rel = path.relative(LIB, file).split(path.sep);
  return rel.length === 1 ? rel[0].replace(/\.tsx?$/, '') : rel[0];
}

function imports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
    const spec = m[1];
    if (spec.startsWith('@/')) out.push(path.join(ROOT, spec.slice(2)));
    else if (spec.startsWith('.')) out.push(path.resolve(path.dirname(file), spec));
  }
  return out;
}

describe('layers', () => {
  const files = sources(LIB);

  it('every lib folder has a layer', () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter((f) => !(f in LAYERS))).toEqual([]);
  });

  it('every import in lib/ points down (or stays in its folder)', () => {
    const up: string[] = [];
    for (const f of files) {
      const from = folderOf(f);
      for (const target of imports(f)) {
        const rel = path.relative(LIB, target);
        if (rel.startsWith('..')) {
          up.push(`${path.relative(ROOT, f)} → ${path.relative(ROOT, target)} (outside lib/)`);
          continue;
        }
        const to = folderOf(target + (fs.existsSync(target) ? '' : '.ts'));
        if (to === from) continue;
        if (!(LAYERS[to] < LAYERS[from])) up.push(`${path.relative(ROOT, f)} (${from}) → ${path.relative(ROOT, target)} (${to})`);
      }
    }
    expect(up).toEqual([]);
  });

  it('no source file in lib/ is over 400 lines', () => {
    const long = files.filter((f) => fs.readFileSync(f, 'utf8').split('\n').length > 400).map((f) => path.relative(ROOT, f));
    expect(long).toEqual([]);
  });

  it('components read only lib/contract and lib/ui of lib/', () => {
    const wrong: string[] = [];
    for (const f of sources(path.join(ROOT, 'components'))) {
      for (const target of imports(f)) {
        const rel = path.relative(LIB, target);
        if (rel.startsWith('..')) continue;
        const to = folderOf(target + (fs.existsSync(target) ? '' : '.ts'));
        if (to !== 'contract' && to !== 'ui') wrong.push(`${path.relative(ROOT, f)} → ${path.relative(ROOT, target)} (${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
