/**
 * The shared search tree for the grep, glob and parallel-reads benchmarks: 100,000 small code-like
 * files in /tmp/clamp-bench-tree, generated once (deterministically) and reused while its marker
 * file says it is complete. Layout: pkg000..pkg099 / mod0..mod9 / file000..file099.ts.
 */
import fs from 'node:fs';
import path from 'node:path';

export const TREE_DIR = '/tmp/clamp-bench-tree';
export const TREE_FILES = 100_000;
/** the marker sits outside the tree so no search ever sees it */
const MARKER = `${TREE_DIR}.complete`;
/** files holding the rare needle (`needle_NNNN`): one in every NEEDLE_EVERY */
const NEEDLE_EVERY = 20_000;

export const WORDS = [
  'const', 'value', 'return', 'function', 'import', 'export', 'await', 'result', 'config', 'handler',
  'request', 'response', 'item', 'index', 'error', 'string', 'number', 'buffer', 'stream', 'token',
];

/** Files in the tree that hold a `needle_\d{4}` line (for sanity checks). */
export const TREE_NEEDLE_FILES = TREE_FILES / NEEDLE_EVERY;

/** Make sure the tree exists; returns its path and whether it was generated now (and how long that took). */
export function ensureTree(log: (line: string) => void): { dir: string; generatedMs: number | null } {
  if (fs.existsSync(MARKER)) return { dir: TREE_DIR, generatedMs: null };
  const t = performance.now();
  log(`generating ${TREE_FILES.toLocaleString('en-US')} files in ${TREE_DIR} (once; reused afterwards) …`);
  fs.rmSync(TREE_DIR, { recursive: true, force: true });
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const perDir = TREE_FILES / 1000;
  let n = 0;
  for (let a = 0; a < 100; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = path.join(TREE_DIR, `pkg${String(a).padStart(3, '0')}`, `mod${b}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let c = 0; c < perDir; c++, n++) {
        const lines: string[] = [];
        const count = 10 + Math.floor(rnd() * 40);
        for (let l = 0; l < count; l++) {
          const w: string[] = [];
          for (let k = 3 + Math.floor(rnd() * 8); k > 0; k--) w.push(WORDS[Math.floor(rnd() * WORDS.length)]);
          lines.push('  '.repeat(Math.floor(rnd() * 3)) + w.join(' ') + ';');
        }
        if (n % NEEDLE_EVERY === 7) lines.splice(3, 0, `// needle_${1000 + (n % 9000)} marker`);
        fs.writeFileSync(path.join(dir, `file${String(c).padStart(3, '0')}.ts`), lines.join('\n') + '\n');
      }
    }
  }
  fs.writeFileSync(MARKER, '');
  return { dir: TREE_DIR, generatedMs: performance.now() - t };
}
