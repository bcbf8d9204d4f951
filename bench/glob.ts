/**
 * glob tool vs raw fast-glob vs find on the 100,000-file tree: every file, no file, and one hundredth
 * of the tree. The tool runs through the real dispatch (fast-glob reads the pattern and its filters
 * decide what matches; the tool's own sorted walk lists the folders, applies the ignore rules and keeps
 * the first GLOB_MAX_RESULTS); raw fast-glob runs in this process with the options the tool gives it
 * and returns everything; find runs as a child whose output is read.
 */
import fs from 'node:fs';
import fg from 'fast-glob';
import { createToolRegistry } from '../lib/dispatch/all-tools';
import { createContext } from '../lib/dispatch/context';
import { dispatch } from '../lib/dispatch/dispatch';
import { BUDGET } from '../lib/contract/budget';
import { FAST_GLOB_OPTIONS, WALK_SLICE_MS } from '../lib/tools/glob-walk';
import { type Benchmark, type Contender, type Target, fmtCores, fmtMs, fmtRatio, interleave, runChild, scratchDir, verdict } from './lib';
import { ensureTree, TREE_FILES } from './tree';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
/** issue 18: the tool within 1.3× raw fast-glob on every case */
const TARGET_RATIO = 1.3;

interface Case {
  name: string;
  /** the tool's arguments */
  args: { pattern: string; path?: string };
  /** fast-glob's pattern and cwd (relative to the tree) */
  fg: { pattern: string; cwd: string };
  find: string;
}

const CASES: Case[] = [
  { name: '**/*.ts (every file matches)', args: { pattern: '**/*.ts' }, fg: { pattern: '**/*.ts', cwd: '.' }, find: "find . -type f -name '*.ts'" },
  { name: '**/*.rs (no file matches)', args: { pattern: '**/*.rs' }, fg: { pattern: '**/*.rs', cwd: '.' }, find: "find . -type f -name '*.rs'" },
  {
    name: 'pkg01*/**/file04?.ts (1% of files)',
    args: { pattern: 'pkg01*/**/file04?.ts' },
    fg: { pattern: 'pkg01*/**/file04?.ts', cwd: '.' },
    find: "find . -path './pkg01*/*' -type f -name 'file04?.ts'",
  },
];

export const globBench: Benchmark = {
  name: 'glob',
  title: `glob tool vs raw fast-glob vs find (${TREE_FILES.toLocaleString('en-US')} files)`,
  peer: 'fast-glob 3.3.3 called directly, and GNU find',
  async run(log) {
    const { dir, generatedMs } = ensureTree(log);
    if (generatedMs !== null) log(`tree generated in ${fmtMs(generatedMs)}`);
    const reg = createToolRegistry();
    const dataDir = scratchDir('glob-data');
    const rows: string[][] = [];
    const targets: Target[] = [];
    const data: Record<string, unknown> = {};
    for (const c of CASES) {
      log(`  ${c.name} …`);
      const contenders: Contender[] = [
        {
          name: 'clamp glob',
          run: async () => {
            const r = await dispatch(reg, 'glob', c.args, createContext({ workspace: dir, dataDir }));
            if (r.status !== 'ok') throw new Error(`glob tool failed: ${r.output}`);
            return `${r.meta?.total}`;
          },
        },
        {
          name: 'fast-glob',
          run: async () => {
            const all = await fg(c.fg.pattern, { ...FAST_GLOB_OPTIONS, cwd: `${dir}/${c.fg.cwd}` });
            return `${all.length}`;
          },
        },
        {
          name: 'find',
          run: async () => `${(await runChild('bash', ['-c', c.find], dir)).stdoutLines}`,
        },
      ];
      const [tool, raw, find] = await interleave(contenders, { repeats: REPEATS, warmup: 1 });
      const ratio = tool.medianMs / raw.medianMs;
      const v = verdict(ratio, TARGET_RATIO, fmtRatio);
      targets.push({ what: `${c.name}: clamp ÷ fast-glob`, target: `≤ ${TARGET_RATIO}×`, measured: fmtRatio(ratio), met: v.met });
      rows.push([
        c.name, fmtMs(tool.medianMs), fmtMs(raw.medianMs), fmtMs(find.medianMs),
        fmtRatio(ratio), v.met ? 'met' : 'no', fmtRatio(tool.medianMs / find.medianMs),
        `${tool.summary} / ${raw.summary} / ${find.summary}`,
        [tool, raw, find].map(fmtCores).join(' / '),
      ]);
      data[c.name] = { tool: tool.samplesMs, fastGlob: raw.samplesMs, find: find.samplesMs };
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    return {
      tables: [{
        title: `Median of ${REPEATS} interleaved runs after a warm-up (warm page cache); ratios are clamp ÷ peer, lower is better`,
        head: ['case', 'clamp glob', 'fast-glob', 'find', 'clamp ÷ fast-glob', `≤ ${TARGET_RATIO}× fast-glob?`, 'clamp ÷ find', 'files matched (clamp / fast-glob / find)', 'cores used (clamp / fast-glob / find)'],
        rows,
      }],
      targets,
      notes: [
        `The tool returns at most ${BUDGET.GLOB_MAX_RESULTS} paths (sorted) and counts the rest; fast-glob and find return every match unsorted. The tool also applies the ignore rules (.gitignore, .clampignore, built-in folders) to every folder and path; this tree has none to prune, so all three see the same files.`,
        `fast-glob runs with the options the tool gives it (${Object.entries(FAST_GLOB_OPTIONS).map(([k, v]) => `${k}: ${v}`).join(', ')}) through its promise API, reading folders on libuv's thread pool. The tool uses fast-glob's own reading of the pattern (its tasks and its folder and file filters, so a pattern matches the same paths) but lists folders itself, synchronously in sorted order on one thread, in slices of at most ${WALK_SLICE_MS} ms between which an abort is seen. The ratio is the cost of the whole tool (dispatch, that walk, the ignore rules, the cap and the exit clamp) against fast-glob alone; the target is ≤ ${TARGET_RATIO}× on every case.`,
      ],
      data,
    };
  },
};
