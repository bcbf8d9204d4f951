import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * app/ (the pages and route handlers) sits on top of lib/server: a route reaches the store, tasks, the agent,
 * exec or the tools only through lib/server, and reads types and schemas from lib/contract.
 */
const ALLOWED = new Set(['server', 'contract']);
const ROOT = path.resolve(__dirname, '../..');
const APP = path.join(ROOT, 'app');
const LIB = path.join(ROOT, 'lib');

/** Every source file under app/. */
function appSources(): string[] {
  return (fs.readdirSync(APP, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => /\.(tsx?|mjs|js)$/.test(f)).map((f) => path.join(APP, f));
}

/** Every lib folder (or top-level lib module) a file imports, by its name under lib/. */
function libImports(file: string, src = fs.readFileSync(file, 'utf8')): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/(?:from\s+|import\s*\(\s*|import\s+|require\s*\(\s*)['"]([^'"]+)['"]/g)) {
    const spec = m[1];
    const abs = spec.startsWith('@/') ? path.join(ROOT, spec.slice(2)) : spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : undefined;
    if (!abs) continue;
    const rel = path.relative(LIB, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    out.push(rel.split(path.sep)[0].replace(/\.(tsx?|mjs|js)$/, ''));
  }
  return out;
}

describe('app/ imports', () => {
  it('reads lib/ only through lib/server and lib/contract', () => {
    const files = appSources();
    expect(files.length).toBeGreaterThan(30);
    const wrong = files.flatMap((f) => libImports(f).filter((folder) => !ALLOWED.has(folder)).map((folder) => `${path.relative(ROOT, f)} → lib/${folder}`));
    expect(wrong).toEqual([]);
  });

  it('catches an import of another lib folder, by alias or by relative path', () => {
    const route = path.join(APP, 'api/x/route.ts');
    expect(libImports(route, "import { openDb } from '@/lib/store/db';")).toEqual(['store']);
    expect(libImports(route, "import { getTaskManager } from '../../../lib/tasks/manager';")).toEqual(['tasks']);
    expect(libImports(route, "const m = await import('@/lib/agent/steer');")).toEqual(['agent']);
    expect(libImports(route, "import { loadConfig } from '@/lib/config';")).toEqual(['config']);
    expect(libImports(route, "import { route } from '@/lib/server/route';\nimport type { X } from '@/lib/contract/rest';")).toEqual(['server', 'contract']);
  });
});
