/**
 * A quick look at grep's speed: a 100,000-file tree in /tmp, three searches, Clamp's grep (through
 * dispatch; the built-in engine, and the engine rg assists) against `rg -n` and `grep -rn`.
 * Wall time, best of N runs; the load average is printed because it moves these numbers.
 * Run: node --import tsx bench/grep-quick.ts [--runs 3] [--files 100000]
 * (The full benchmark suite is a later issue; this only shows where we stand.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createContext } from '../lib/tools/context';
import { createRegistry } from '../lib/tools/registry';
import { dispatch } from '../lib/tools/dispatch';
import { grepTool } from '../lib/tools/grep';
import { findRg } from '../lib/tools/ripgrep';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const RUNS = arg('runs', 3);
const FILES = arg('files', 100_000);
const ROOT = path.join(os.tmpdir(), `clamp-grep-quick-${FILES}`);

/** Deterministic tree: 100 packages × 10 modules × N files of code-like lines; a rare needle in 5 files. */
function generate() {
  const marker = `${ROOT}.complete`; // outside the tree, so it is not searched
  if (fs.existsSync(marker)) return;
  fs.rmSync(ROOT, { recursive: true, force: true });
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const words = ['const', 'value', 'return', 'function', 'import', 'export', 'await', 'result', 'config', 'handler', 'request', 'response', 'item', 'index', 'error', 'string', 'number', 'buffer', 'stream', 'token'];
  const perDir = Math.ceil(FILES / 1000);
  let n = 0;
  for (let a = 0; a < 100 && n < FILES; a++) {
    for (let b = 0; b < 10 && n < FILES; b++) {
      const dir = path.join(ROOT, `pkg${String(a).padStart(3, '0')}`, `mod${b}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let c = 0; c < perDir && n < FILES; c++, n++) {
        const lines: string[] = [];
        const count = 10 + Math.floor(rnd() * 40);
        for (let l = 0; l < count; l++) {
          const w: string[] = [];
          for (let k = 3 + Math.floor(rnd() * 8); k > 0; k--) w.push(words[Math.floor(rnd() * words.length)]);
          lines.push('  '.repeat(Math.floor(rnd() * 3)) + w.join(' ') + ';');
        }
        if (n % Math.floor(FILES / 5) === 7) lines.splice(3, 0, `// needle_${1000 + (n % 9000)} marker`);
        fs.writeFileSync(path.join(dir, `file${String(c).padStart(3, '0')}.ts`), lines.join('\n') + '\n');
      }
    }
  }
  fs.writeFileSync(marker, '');
}

async function timeTool(args: Record<string, unknown>, engine: string): Promise<{ ms: number; summary: string }> {
  const reg = createRegistry([grepTool]);
  let best = Infinity;
  let summary = '';
  for (let i = 0; i < RUNS; i++) {
    const ctx = createContext({ workspace: ROOT, dataDir: os.tmpdir(), services: { grepEngine: engine } });
    const t = performance.now();
    const r = await dispatch(reg, 'grep', args, ctx);
    best = Math.min(best, performance.now() - t);
    summary = r.output.split('\n').filter((l) => l && !l.includes(':')).pop() ?? r.output.split('\n').pop() ?? '';
  }
  return { ms: best, summary };
}

function timeCmd(cmd: string, args: string[]): number | null {
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore'] });
    if (r.error) return null;
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

async function main() {
  const t0 = performance.now();
  generate();
  console.log(`tree: ${ROOT} (${FILES.toLocaleString('en-US')} files, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s); ${os.availableParallelism()} cores; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; best of ${RUNS}`);
  const rg = findRg(process.env.PATH);
  const cases = [
    { name: 'literal, hits early (capped)', args: { pattern: 'function', literal: true }, rg: ['-n', '-F', 'function'], grep: ['-rnF', 'function', '.'] },
    { name: 'rare regex', args: { pattern: 'needle_\\d{4}' }, rg: ['-n', 'needle_\\d{4}'], grep: ['-rnE', 'needle_[0-9]{4}', '.'] },
    { name: 'never hits', args: { pattern: 'zqxj_never_here', literal: true }, rg: ['-n', '-F', 'zqxj_never_here'], grep: ['-rnF', 'zqxj_never_here', '.'] },
  ];
  const fmt = (ms: number | null) => (ms === null ? 'n/a' : `${Math.round(ms)} ms`);
  const rows: string[][] = [];
  for (const c of cases) {
    const builtin = await timeTool(c.args, 'builtin');
    const withRg = rg ? await timeTool(c.args, 'rg') : null;
    const rgMs = rg ? timeCmd(rg, ['--no-config', ...c.rg]) : null;
    const grepMs = timeCmd('grep', c.grep);
    rows.push([c.name, fmt(builtin.ms), fmt(withRg?.ms ?? null), fmt(rgMs), fmt(grepMs), builtin.summary.slice(0, 60)]);
  }
  // auto = builtin below 4 cores; with 4+ it starts rg beside the walk once a search passes 2,000 files
  const head = ['case', 'clamp builtin', 'clamp rg-assisted', 'rg -n', 'grep -rn', 'clamp says'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

await main();
