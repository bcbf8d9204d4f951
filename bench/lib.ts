/**
 * Shared benchmark helpers: interleaved timing with medians, peak-RSS sampling, child processes
 * with captured output, table printing and result files.
 *
 * The machine is shared and noisy, so nothing here claims an absolute time: contenders run
 * interleaved (round-robin, the starting contender rotating each round) and the tables report the
 * median of each and the ratio between them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Conditions } from './conditions';

export const BENCH_DIR = path.dirname(new URL(import.meta.url).pathname);
export const REPO_DIR = path.dirname(BENCH_DIR);
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');

/** A table as printed and as stored in the result file. */
export interface Table {
  title: string;
  head: string[];
  rows: string[][];
}

/** A target from the issue and whether this run met it (null: not measured). */
export interface Target {
  what: string;
  target: string;
  measured: string;
  met: boolean | null;
}

/** What one benchmark writes to bench/results/<name>.json. */
export interface BenchResult {
  name: string;
  title: string;
  /** the named peer(s) the ratios are taken against */
  peer: string;
  /** the command that reproduces this result */
  command: string;
  startedAt: string;
  durationS: number;
  machine: MachineInfo;
  tables: Table[];
  targets: Target[];
  notes: string[];
  /** raw samples, for anyone who wants to recompute */
  data: unknown;
  /** the machine around the run (load, other processes, quiet or noisy); set by the parent process */
  conditions?: Conditions;
}

export interface MachineInfo {
  cores: number;
  cpu: string;
  memGiB: number;
  node: string;
  loadBefore: number[];
  loadAfter: number[];
}

/** What a benchmark module exports. */
export interface Benchmark {
  name: string;
  title: string;
  peer: string;
  run(log: (line: string) => void): Promise<Omit<BenchResult, 'name' | 'title' | 'peer' | 'command' | 'startedAt' | 'durationS' | 'machine' | 'conditions'>>;
}

/** Median of a non-empty list (mean of the middle two for even lengths). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface Contender {
  name: string;
  /** one timed run; may return a short summary used for the sanity column (match counts …) */
  run: () => Promise<string | void> | string | void;
  /** clean-up after each run, not timed (deleting a gigabyte log is not the contender's work) */
  after?: () => Promise<void> | void;
}

export interface Timed {
  name: string;
  samplesMs: number[];
  medianMs: number;
  /** CPU time ÷ wall time of each timed run: this process's threads plus the children it reaped */
  coresSamples: number[];
  /** median of coresSamples */
  cores: number;
  /** the summary of the last run */
  summary: string;
}

/**
 * Time contenders side by side: `warmup` untimed rounds, then `repeats` rounds, each running every
 * contender once, the starting contender rotating so none always runs first (after a cold cache or
 * another's garbage). Returns each contender's samples and median, in the order given.
 */
export async function interleave(contenders: readonly Contender[], opts: { repeats: number; warmup?: number }): Promise<Timed[]> {
  const out: Timed[] = contenders.map((c) => ({ name: c.name, samplesMs: [], medianMs: NaN, coresSamples: [], cores: NaN, summary: '' }));
  const rounds = (opts.warmup ?? 1) + opts.repeats;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (r + k) % contenders.length;
      const cpu = cpuMsNow();
      const t = performance.now();
      const summary = await contenders[i].run();
      const ms = performance.now() - t;
      const cpuMs = cpuMsNow() - cpu;
      await contenders[i].after?.();
      if (typeof summary === 'string') out[i].summary = summary;
      if (r >= (opts.warmup ?? 1)) {
        out[i].samplesMs.push(ms);
        out[i].coresSamples.push(cpuMs / ms);
      }
    }
  }
  for (const t of out) {
    t.medianMs = median(t.samplesMs);
    t.cores = median(t.coresSamples);
  }
  return out;
}

/**
 * CPU milliseconds used so far by this process (every thread: workers, libuv's pool, GC) plus its
 * reaped children (cutime + cstime of /proc/self/stat, 10 ms ticks). A child's time counts once it
 * has been waited for, so read it after the contender's run has seen its child close.
 */
export function cpuMsNow(): number {
  const u = process.cpuUsage();
  let children = 0;
  try {
    const s = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    children = (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    // no /proc: children's time unknown
  }
  return (u.user + u.system) / 1000 + children;
}

/** "1.9 cores" (one decimal); n/a when the run was too short for 10 ms ticks to say. */
export function fmtCores(t: Timed): string {
  return Number.isFinite(t.cores) && t.medianMs >= 50 ? `${t.cores.toFixed(1)}` : 'n/a';
}

/** The note every table with peers carries: how many cores each contender used (CPU ÷ wall, median). */
export function coresNote(timed: readonly Timed[], what = ''): string {
  return `Cores used${what ? ` (${what})` : ''}, CPU time ÷ wall time, median: ${timed.map((t) => `${t.name} ${fmtCores(t)}`).join(', ')}.`;
}

/** Resident set size of this process from /proc (bytes); falls back to process.memoryUsage. */
function rssNow(): number {
  return process.memoryUsage.rss();
}

/** VmHWM (peak RSS) of this process in bytes, or null where /proc is not there. */
function hwm(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Reset VmHWM to the current RSS (Linux: "5" > /proc/self/clear_refs); false when not allowed. */
function resetHwm(): boolean {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssReport {
  baselineBytes: number;
  peakBytes: number;
  growthBytes: number;
  samples: number;
}

/**
 * Measure this process's peak RSS growth while `fn` runs: RSS sampled every `intervalMs` on a timer,
 * plus the kernel's own peak (VmHWM, reset before the run) which also catches a peak the timer missed
 * while the event loop was busy. Growth = peak − RSS just before the run (after a GC when exposed).
 */
export async function withPeakRss<T>(fn: () => Promise<T>, intervalMs = 20): Promise<{ value: T; rss: RssReport }> {
  (globalThis as { gc?: () => void }).gc?.();
  const hwmOk = resetHwm();
  const baseline = rssNow();
  let peak = baseline;
  let samples = 0;
  const timer = setInterval(() => {
    samples++;
    peak = Math.max(peak, rssNow());
  }, intervalMs);
  try {
    const value = await fn();
    peak = Math.max(peak, rssNow());
    const kernelPeak = hwmOk ? hwm() : null;
    if (kernelPeak !== null) peak = Math.max(peak, kernelPeak);
    return { value, rss: { baselineBytes: baseline, peakBytes: peak, growthBytes: Math.max(0, peak - baseline), samples } };
  } finally {
    clearInterval(timer);
  }
}

export interface ChildRun {
  code: number | null;
  stdoutBytes: number;
  stdoutLines: number;
  /** the first bytes of stdout (for sanity checks) */
  head: string;
  ms: number;
}

/**
 * Run a command (no shell unless `cmd` is bash), reading and discarding its stdout in this process
 * (bytes counted, and lines unless countLines is false), as a caller would. Output is never sent to /dev/null directly: GNU grep (and others)
 * stop at the first match when they see /dev/null, which would time a different job.
 */
export function runChild(cmd: string, args: readonly string[], cwd: string, opts: { countLines?: boolean } = {}): Promise<ChildRun> {
  const countLines = opts.countLines ?? true;
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    let lines = 0;
    let head = '';
    child.stdout.on('data', (b: Buffer) => {
      bytes += b.length;
      if (countLines) for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
      if (head.length < 200) head += b.subarray(0, 200).toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdoutBytes: bytes, stdoutLines: lines, head, ms: performance.now() - t }));
  });
}

/** Peak RSS (bytes) of a child command, measured by /usr/bin/time; null when it is not installed. */
export async function childPeakRss(cmd: string, args: readonly string[], cwd: string): Promise<number | null> {
  if (!fs.existsSync('/usr/bin/time')) return null;
  const out = path.join(os.tmpdir(), `clamp-bench-time-${process.pid}.txt`);
  await runChild('/usr/bin/time', ['-f', '%M', '-o', out, cmd, ...args], cwd);
  const kb = Number(fs.readFileSync(out, 'utf8').trim().split('\n').pop());
  fs.rmSync(out, { force: true });
  return Number.isFinite(kb) ? kb * 1024 : null;
}

/** Whether a binary is on the PATH (absolute paths are checked as given). */
export function which(bin: string): string | null {
  if (bin.includes('/')) return fs.existsSync(bin) ? bin : null;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir, bin);
    if (dir && fs.existsSync(p)) return p;
  }
  return null;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${Math.round(ms)} ms`;
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return 'n/a';
  return r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`;
}

export function fmtMiB(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes)) return 'n/a';
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function fmtRate(bytes: number, ms: number): string {
  return `${((bytes / (1024 * 1024)) / (ms / 1000)).toFixed(0)} MiB/s`;
}

/** A table as aligned Markdown (what is printed and what BENCHMARKS.md shows). */
export function renderTable(t: Table): string {
  const widths = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
  return [line(t.head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...t.rows.map(line)].join('\n');
}

export function machineInfo(loadBefore: number[]): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism(),
    cpu: cpus[0]?.model ?? 'unknown',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadBefore,
    loadAfter: os.loadavg().map((x) => Number(x.toFixed(2))),
  };
}

/** Write bench/results/<name>.json (pretty, stable key order as built). */
export function writeResult(r: BenchResult): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${r.name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  return file;
}

/** "met" or how far off a "lower is better" target is, without rounding the miss away. */
export function verdict(measured: number, target: number, unit: (n: number) => string): { met: boolean; text: string } {
  if (measured <= target) return { met: true, text: `met (${unit(measured)} ≤ ${unit(target)})` };
  return { met: false, text: `NOT met: ${unit(measured)} > ${unit(target)} (${(measured / target).toFixed(2)}× the target)` };
}

/** A scratch directory under the system temp dir, removed by the caller. */
export function scratchDir(label: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `clamp-bench-${label}-`)));
}
