import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What the page loads at start: Clamp's own files reached from app/ by value imports. zod stays out (the request
 * bodies' schemas are the server's, in lib/contract/request-bodies.ts), and highlight.js loads only with a message's
 * first code fence (components/code-highlight.ts), so neither is evaluated by every page load.
 */
const ROOT = path.resolve(__dirname, '../..');
const ENTRIES = ['app/page.tsx', 'app/layout.tsx', 'app/providers.tsx'].map((f) => path.join(ROOT, f));

function resolveSource(spec: string, from: string): string | null {
  const base = spec.startsWith('@/') ? path.join(ROOT, spec.slice(2)) : spec.startsWith('.') ? path.resolve(path.dirname(from), spec) : null;
  if (!base) return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return null;
}

/** The static value imports of a file (type-only ones erase; `import()` is not static), as written. */
function staticValueImports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:([^;]*?)\s*from\s*)?['"]([^'"]+)['"]/gms)) {
    if (m[1]) continue;
    const names = (m[2] ?? '').trim();
    if (/^\{[^}]*\}$/s.test(names) && names.slice(1, -1).split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '))) continue;
    out.push(m[3]);
  }
  return out;
}

/** Every package a file the page loads at start imports, with the file: [file, package]. */
function pagePackages(): Array<[string, string]> {
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  const queue = [...ENTRIES];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticValueImports(file)) {
      const target = resolveSource(spec, file);
      if (target) queue.push(target);
      else if (!spec.startsWith('.') && !spec.startsWith('@/')) out.push([path.relative(ROOT, file), spec]);
    }
  }
  return out;
}

describe('the page at start', () => {
  const packages = pagePackages();

  it('walks the page\'s own files (the walk reaches the chat and its markdown)', () => {
    const files = new Set(packages.map(([f]) => f));
    expect(files).toContain('components/use-clamp-chat.ts');
    expect(files).toContain('components/message-view.tsx');
  });

  it('none of Clamp\'s own files there imports zod: the page checks nothing with it', () => {
    expect(packages.filter(([, p]) => p === 'zod' || p.startsWith('zod/'))).toEqual([]);
  });

  it('highlight.js is not imported at start: it loads with the first code fence', () => {
    expect(packages.filter(([, p]) => /^(rehype-highlight|highlight\.js|lowlight)(\/|$)/.test(p) && !p.endsWith('.css'))).toEqual([]);
    expect(fs.readFileSync(path.join(ROOT, 'components/code-highlight.ts'), 'utf8')).toMatch(/import\('rehype-highlight'\)/);
  });

  it('the bundle\'s zod is the inert one in the browser (the AI SDK builds its schemas with it at load)', async () => {
    const nextConfig = ((await import(pathToFileURL(path.join(ROOT, 'next.config.mjs')).href)) as { default: { turbopack?: { resolveAlias?: Record<string, unknown> } } }).default;
    const alias = nextConfig.turbopack?.resolveAlias ?? {};
    for (const spec of ['zod', 'zod/v4', 'zod/v3']) expect(alias[spec]).toEqual({ browser: './lib/ui/zod-inert.ts' });
    expect(fs.existsSync(path.join(ROOT, 'lib/ui/zod-inert.ts'))).toBe(true);
  });
});
