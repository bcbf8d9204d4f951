/**
 * What a checkpoint costs on a 20,000-file tree: Clamp's shadow-repository snapshot (first, then
 * incremental after changing 10 files, then with nothing changed) against `git add -A && git commit`
 * of the same tree in a plain repository. Peer: plain git, the cheapest way to store the same files.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { shadowFor } from '../lib/checkpoints/shadow';
import { takeSnapshot } from '../lib/checkpoints/snapshot';
import { type Benchmark, fmtMs, fmtRatio, median, scratchDir, verdict } from './lib';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
export const CHECKPOINT_BENCH_FILES = 20_000;

/**
 * Generous bounds the test of a 20,000-file checkpoint holds to (a loaded 2-core machine stays well
 * under them; the measured figures are in BENCHMARKS.md).
 */
export const CHECKPOINT_20K_BOUNDS_MS = { first: 60_000, incremental: 15_000 } as const;

/** A tree of `files` small files in folders of 100, with a .gitignore'd folder beside them. */
export function makeTree(dir: string, files = CHECKPOINT_BENCH_FILES): void {
  for (let i = 0; i < files; i++) {
    const d = path.join(dir, `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, `file${i}.ts`), `export const v${i} = ${i};\n// ${'x'.repeat(i % 200)}\n`);
  }
  fs.mkdirSync(path.join(dir, 'node_modules', 'dep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n');
}

/** Change 10 files spread over the tree. */
export function touchTen(dir: string, round: number, files = CHECKPOINT_BENCH_FILES): void {
  for (let k = 0; k < 10; k++) {
    const i = (k * Math.floor(files / 10) + round) % files;
    fs.appendFileSync(path.join(dir, `pkg${Math.floor(i / 100)}`, `file${i}.ts`), `// round ${round}\n`);
  }
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
// no automatic gc or maintenance: after the first commit of 20,000 objects git starts one in the background,
// which is not part of the commit timed, competes with the next measurement and races the tree's removal
// (Clamp's shadow repository has gc.auto=0 too)
const plainCommit = (dir: string) => execFileSync('bash', ['-c', 'git -c gc.auto=0 -c maintenance.auto=false add -A && git -c gc.auto=0 -c maintenance.auto=false commit -q -m x'], { cwd: dir, env: GIT_ENV });

async function timed(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export const checkpointBench: Benchmark = {
  name: 'checkpoint',
  title: `Checkpoints: a ${CHECKPOINT_BENCH_FILES.toLocaleString('en')}-file workspace, first snapshot and incremental ones`,
  peer: '`git add -A && git commit` of the same tree in a plain repository',
  async run(log) {
    const samples: Record<string, number[]> = { 'clamp first': [], 'clamp 10 changed': [], 'clamp unchanged': [], 'git first': [], 'git 10 changed': [] };
    let fileCount = 0;
    for (let r = 0; r < REPEATS; r++) {
      log(`  round ${r + 1}/${REPEATS}: building the tree …`);
      const ws = scratchDir('ckpt-ws');
      const data = scratchDir('ckpt-data');
      const plain = scratchDir('ckpt-git');
      try {
        makeTree(ws);
        makeTree(plain);
        execFileSync('git', ['init', '-q'], { cwd: plain, env: GIT_ENV });
        const s = shadowFor(data, ws);
        samples['clamp first']!.push(await timed(async () => (fileCount = (await takeSnapshot(s, 'bench', 'first')).fileCount)));
        samples['git first']!.push(await timed(() => plainCommit(plain)));
        touchTen(ws, r);
        touchTen(plain, r);
        samples['clamp 10 changed']!.push(await timed(() => takeSnapshot(s, 'bench', 'incremental')));
        samples['git 10 changed']!.push(await timed(() => plainCommit(plain)));
        samples['clamp unchanged']!.push(await timed(() => takeSnapshot(s, 'bench', 'unchanged')));
      } finally {
        for (const d of [ws, data, plain]) fs.rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      }
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])) as Record<keyof typeof samples, number>;
    const first = verdict(m['clamp first'], CHECKPOINT_20K_BOUNDS_MS.first, fmtMs);
    const inc = verdict(m['clamp 10 changed'], CHECKPOINT_20K_BOUNDS_MS.incremental, fmtMs);
    return {
      tables: [
        {
          title: `median of ${REPEATS} rounds (each on a fresh tree of ${CHECKPOINT_BENCH_FILES.toLocaleString('en')} files; the snapshot held ${fileCount.toLocaleString('en')})`,
          head: ['snapshot', 'Clamp (shadow repo, via the runner)', 'git add -A && git commit', 'Clamp ÷ git'],
          rows: [
            ['first', fmtMs(m['clamp first']), fmtMs(m['git first']), fmtRatio(m['clamp first'] / m['git first'])],
            ['10 files changed', fmtMs(m['clamp 10 changed']), fmtMs(m['git 10 changed']), fmtRatio(m['clamp 10 changed'] / m['git 10 changed'])],
            ['nothing changed', fmtMs(m['clamp unchanged']), '—', '—'],
          ],
        },
      ],
      targets: [
        { what: 'first snapshot of 20,000 files', target: `≤ ${fmtMs(CHECKPOINT_20K_BOUNDS_MS.first)} (the test's bound)`, measured: fmtMs(m['clamp first']), met: first.met },
        { what: 'incremental snapshot, 10 files changed', target: `≤ ${fmtMs(CHECKPOINT_20K_BOUNDS_MS.incremental)} (the test's bound)`, measured: fmtMs(m['clamp 10 changed']), met: inc.met },
      ],
      notes: [
        'Clamp takes a snapshot in one sandboxed runner call: it lists the files (ls-files), leaves out those over CHECKPOINT_FILE_MAX_BYTES (find, in the same run), then add -A, write-tree, commit-tree and update-ref; the kept index makes add -A stat-only for unchanged files.',
        'Both run without automatic gc (gc.auto=0; for git also maintenance.auto=false): a background gc after the first commit is not part of the commit being timed.',
      ],
      data: samples,
    };
  },
};
