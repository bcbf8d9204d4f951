import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
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
  hooks: 2,
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

/** The value imports of a file (type-only imports and re-exports erase at compile time: they make no cycle). */
function valueImports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*['"]([^'"]+)['"]/gms)) {
    if (m[1]) continue;
    const names = m[2].trim();
    if (/^\{[^}]*\}$/s.test(names) && names.slice(1, -1).split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '))) continue;
    const target = resolveSource(m[3], file);
    if (target) out.push(target);
  }
  return out;
}

function resolveSource(spec: string, from: string): string | null {
  const base = spec.startsWith('@/') ? path.join(ROOT, spec.slice(2)) : spec.startsWith('.') ? path.resolve(path.dirname(from), spec) : null;
  if (!base) return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return null;
}

/** Strongly connected groups of more than one file (Tarjan), each a cycle of value imports. */
function importCycles(all: string[]): string[][] {
  const graph = new Map(all.map((f) => [f, valueImports(f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(path.relative(ROOT, w));
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return groups;
}

/** Functions (declarations, methods, arrows, expressions: components and hooks included) longer than `max` lines. */
function longFunctions(file: string, max: number): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n)) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - first + 1;
      if (lines > max) out.push(`${path.relative(ROOT, file)}:${first + 1} (${lines} lines)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
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

  it('no value import makes a cycle in lib/, components/ or app/ (type-only imports aside)', () => {
    const all = [LIB, path.join(ROOT, 'components'), path.join(ROOT, 'app')].flatMap(sources);
    expect(importCycles(all)).toEqual([]);
  });

  it('the cycle check finds a cycle, and passes over type-only imports', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-cycle-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = () => a;\n");
      fs.writeFileSync(path.join(dir, 'c.ts'), "import type { D } from './d';\nexport type C = D;\n");
      fs.writeFileSync(path.join(dir, 'd.ts'), "import { type C } from './c';\nexport type D = C;\n");
      const found = importCycles(sources(dir)).map((g) => g.map((f) => path.basename(f)));
      expect(found).toEqual([['a.ts', 'b.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no function in lib/, components/ or app/ is over 60 lines', () => {
    const all = [LIB, path.join(ROOT, 'components'), path.join(ROOT, 'app')].flatMap(sources);
    expect(all.flatMap((f) => longFunctions(f, 60))).toEqual([]);
  });
});
