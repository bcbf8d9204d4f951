/**
 * `npm run bench [-- name …]`: runs the benchmarks (all, or the names given), each in a fresh Node
 * process so one's heap and memory peaks never colour another's, writes bench/results/<name>.json
 * and regenerates BENCHMARKS.md from every result file present.
 *
 * Names: the keys of BENCHMARKS below. `--summary`: only regenerate BENCHMARKS.md from the result files.
 * Environment: BENCH_REPEATS (timed rounds per case; each benchmark has its own default); the quiet
 * wait's BENCH_QUIET_LOAD, BENCH_QUIET_WAIT_S and BENCH_QUIET_OTHERS_CORES (bench/conditions.ts).
 * Before each benchmark this process waits for quiet, and after it records the conditions in its
 * result: a noisy run's targets are shown but never counted as met.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BenchResult, type Benchmark, BENCH_DIR, REPO_DIR, RESULTS_DIR, machineInfo, renderTable, writeResult } from './lib';
import { startWatch } from './conditions';
import { TREE_MARKER } from './own-tree';
import { closingNote, conditionsLine, headerLines, targetRows } from './summary';

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  grep: async () => (await import('./grep')).grepBench,
  glob: async () => (await import('./glob')).globBench,
  'read-file': async () => (await import('./read-file')).readFileBench,
  'run-command': async () => (await import('./run-command')).runCommandBench,
  dispatch: async () => (await import('./dispatch')).dispatchBench,
  'parallel-reads': async () => (await import('./parallel-reads')).parallelReadsBench,
  browser: async () => (await import('./browser')).browserBench,
  context: async () => (await import('./context')).contextBench,
  sandbox: async () => (await import('./sandbox')).sandboxBench,
  'sandbox-net': async () => (await import('./sandbox-net')).sandboxNetBench,
  checkpoint: async () => (await import('./checkpoint')).checkpointBench,
  diagnostics: async () => (await import('./diagnostics')).diagnosticsBench,
  turn: async () => (await import('./turn')).turnBench,
  start: async () => (await import('./start')).startBench,
};
const ORDER = Object.keys(BENCHMARKS);
const command = (name: string) => `npm run bench -- ${name}`;

async function runOne(name: string): Promise<void> {
  const bench = await BENCHMARKS[name]();
  const loadBefore = os.loadavg().map((x) => Number(x.toFixed(2)));
  const startedAt = new Date().toISOString();
  const t = performance.now();
  console.log(`\n## ${bench.title}\npeer: ${bench.peer}; load ${loadBefore.join(' ')}; ${os.availableParallelism()} cores`);
  let body: Awaited<ReturnType<Benchmark['run']>>;
  let failure: Error | null = null;
  try {
    body = await bench.run((line) => console.log(line));
  } catch (err) {
    // a benchmark that cannot measure says why in its result, so BENCHMARKS.md shows it instead of a stale table
    failure = err instanceof Error ? err : new Error(String(err));
    body = { tables: [], targets: [], notes: [`NOT MEASURED in this run: ${failure.message.slice(0, 1500)}`], data: null };
  }
  const result: BenchResult = {
    name,
    title: bench.title,
    peer: bench.peer,
    command: command(name),
    startedAt,
    durationS: Number(((performance.now() - t) / 1000).toFixed(1)),
    machine: machineInfo(loadBefore),
    ...body,
  };
  const file = writeResult(result);
  for (const tb of result.tables) console.log(`\n${tb.title}\n${renderTable(tb)}`);
  for (const tg of result.targets) console.log(`target: ${tg.what} ${tg.target}: ${tg.measured} → ${tg.met === null ? 'not measured' : tg.met ? 'met' : 'NOT met'}`);
  for (const n of result.notes) console.log(`note: ${n}`);
  console.log(`(${result.durationS} s; written to ${path.relative(REPO_DIR, file)})`);
  if (failure) {
    console.error(failure.stack ?? failure.message);
    process.exitCode = 1;
  }
}

function readResults(): BenchResult[] {
  if (!fs.existsSync(RESULTS_DIR)) return [];
  return ORDER.flatMap((name) => {
    const f = path.join(RESULTS_DIR, `${name}.json`);
    return fs.existsSync(f) ? [JSON.parse(fs.readFileSync(f, 'utf8')) as BenchResult] : [];
  });
}

/** BENCHMARKS.md: the latest table of every benchmark, each with the command that reproduces it and its conditions. */
function writeSummary(): void {
  const results = readResults();
  const out: string[] = [...headerLines(results), ...targetRows(results), ''];
  for (const r of results) {
    out.push(
      `## ${r.title}`,
      '',
      `Peer: ${r.peer}. Reproduce: \`${r.command}\`.`,
      `Run ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${r.durationS} s; ${r.machine.cores} cores (${r.machine.cpu}), ${r.machine.memGiB} GiB, Node ${r.machine.node}.`,
      '',
      conditionsLine(r),
      '',
    );
    for (const tb of r.tables) out.push(`${tb.title}:`, '', renderTable(tb), '');
    for (const n of r.notes) out.push(`- ${n}`);
    out.push('');
  }
  // measured by hand, not by a benchmark: the test suite's time (bench/test-suite.md, kept as written)
  const suite = path.join(BENCH_DIR, 'test-suite.md');
  if (fs.existsSync(suite)) out.push(fs.readFileSync(suite, 'utf8').trimEnd(), '');
  out.push(...closingNote(results));
  fs.writeFileSync(path.join(REPO_DIR, 'BENCHMARKS.md'), out.join('\n'));
}

/** Run one benchmark in its own process, watched: wait for quiet first, then record the conditions in its result. */
async function runWatched(name: string): Promise<boolean> {
  const log = (line: string) => console.log(`bench ${name}: ${line}`);
  process.env[TREE_MARKER] = `${process.pid}-${name}-${Date.now()}`;
  const watch = await startWatch(log);
  const spawnedAt = new Date().toISOString();
  // a fresh process per benchmark: memory peaks and JIT state stay its own
  // awaited, not spawnSync: the watch looks at the process tree while the benchmark runs (and knows
  // the run's processes that leave the tree by the marker they inherit)
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(BENCH_DIR, 'run.ts'), '--child', name], {
    stdio: 'inherit',
    cwd: REPO_DIR,
    env: process.env,
  });
  const status = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('exit', (code) => resolve(code));
  });
  const conditions = await watch.finish();
  const file = path.join(RESULTS_DIR, `${name}.json`);
  if (fs.existsSync(file)) {
    const result = JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResult;
    // only this run's result gets this run's conditions (a crash leaves the older file as it was)
    if (result.startedAt >= spawnedAt) writeResult({ ...result, conditions });
  }
  log(conditions.quiet ? 'quiet run' : `NOISY run: ${conditions.reasons.join('; ')}`);
  return status === 0;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    await runOne(argv[1]);
    // the result is written: a handle a benchmark left open (a pool, a socket) must not hold the run,
    // but it is named, since a tool that holds a process open is a bug of its own
    await new Promise((r) => setTimeout(r, 200)); // a child killed at the end is reaped by then
    const stdio: unknown[] = [process.stdin, process.stdout, process.stderr];
    const open = (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles().filter((h) => !stdio.includes(h));
    if (open.length) console.log(`bench ${argv[1]}: left open after its run: ${open.map((h) => h.constructor.name).join(', ')} (exiting anyway)`);
    process.exit(process.exitCode ?? 0);
  }
  if (argv[0] === '--summary') {
    // BENCHMARKS.md again from the result files, nothing run (after a merge, or to read older results)
    writeSummary();
    console.log('BENCHMARKS.md regenerated from bench/results/*.json.');
    return;
  }
  const unknown = argv.filter((a) => !Object.hasOwn(BENCHMARKS, a));
  if (unknown.length) {
    console.error(`Unknown benchmark${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Known: ${ORDER.join(', ')}.`);
    process.exit(2);
  }
  const names = argv.length ? ORDER.filter((n) => argv.includes(n)) : ORDER;
  const t = performance.now();
  const failed: string[] = [];
  for (const name of names) if (!(await runWatched(name))) failed.push(name);
  writeSummary();
  console.log(`\nbench: ${names.length - failed.length} of ${names.length} done in ${((performance.now() - t) / 1000).toFixed(0)} s; BENCHMARKS.md updated.`);
  if (failed.length) {
    console.error(`failed: ${failed.join(', ')}`);
    process.exit(1);
  }
}

await main();
