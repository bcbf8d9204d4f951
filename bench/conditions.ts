/**
 * The machine's conditions around one benchmark: load averages and other runnable processes before
 * and after, the CPU other processes used while it ran, a wait for quiet before it starts, and the
 * verdict "quiet" or "noisy". A noisy table's targets are never counted as met.
 *
 * Settings (env overrides in brackets):
 * - quiet threshold: the 1-minute load average at most QUIET.loadPerCore × cores [BENCH_QUIET_LOAD, absolute];
 * - wait limit: how long a run waits for that before it starts anyway, marked noisy [BENCH_QUIET_WAIT_S; 0: never wait];
 * - others' CPU: other processes may use at most QUIET.othersMaxCores cores on average while it runs [BENCH_QUIET_OTHERS_CORES].
 * Linux only (/proc); elsewhere every run is marked noisy with the reason.
 */
import fs from 'node:fs';
import os from 'node:os';
import { OwnTree } from './own-tree';

/** The bench's own quiet settings (README "Benchmarks" and BENCHMARKS.md's header quote them). */
export const QUIET = {
  /** quiet when the 1-minute load average is at most this many runnable tasks per core */
  loadPerCore: 0.5,
  /** longest wait for quiet before a benchmark runs anyway (and is marked noisy) */
  waitMaxS: 300,
  /** how often the wait looks again */
  pollS: 5,
  /** other processes' mean CPU while a benchmark runs, in cores, above which the run is noisy */
  othersMaxCores: 0.25,
};

export interface QuietSettings {
  load1Max: number;
  waitMaxS: number;
  othersMaxCores: number;
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${raw} is not a number ≥ 0. Unset it to use the default (${fallback}).`);
  return n;
}

/** The settings in force: QUIET, with the environment's overrides. Throws a clear error on a bad value. */
export function quietSettings(cores = os.availableParallelism()): QuietSettings {
  return {
    load1Max: envNumber('BENCH_QUIET_LOAD', Number((QUIET.loadPerCore * cores).toFixed(2))),
    waitMaxS: envNumber('BENCH_QUIET_WAIT_S', QUIET.waitMaxS),
    othersMaxCores: envNumber('BENCH_QUIET_OTHERS_CORES', QUIET.othersMaxCores),
  };
}

/** One look at the machine. */
export interface LoadSample {
  /** load averages over 1, 5 and 15 minutes */
  load: number[];
  /** runnable tasks other than the one looking (mean of 10 looks over one second; /proc/stat procs_running − 1) */
  othersRunnable: number | null;
}

/** What BENCHMARKS.md says about the conditions of one benchmark run. */
export interface Conditions {
  settings: QuietSettings;
  cores: number;
  waitedS: number;
  before: LoadSample;
  after: LoadSample;
  /** mean CPU, in cores, used by processes other than the benchmark's own while it ran (null: unknown) */
  othersCores: number | null;
  /** mean CPU, in cores, the benchmark's process tree used (its waited-for children, and those that outlived or escaped it) */
  ownCores: number | null;
  quiet: boolean;
  /** why it is noisy */
  reasons: string[];
}

function readProcStat(): string | null {
  try {
    return fs.readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
}

/** Busy CPU ticks of the whole machine (user, nice, system, irq, softirq; idle, iowait and steal left out). */
function busyTicks(stat: string): number {
  const f = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number);
  return f[0] + f[1] + f[2] + f[5] + f[6];
}

/** The machine's busy CPU time so far, in ms over all cores (USER_HZ is 100 on Linux); null without /proc. */
export function machineBusyMs(): number | null {
  const stat = readProcStat();
  return stat ? busyTicks(stat) * 10 : null;
}

function procsRunning(stat: string): number | null {
  const m = /^procs_running (\d+)$/m.exec(stat);
  return m ? Number(m[1]) : null;
}

/** CPU ticks of this process plus its reaped children (utime, stime, cutime, cstime of /proc/self/stat). */
export function ownTicks(): number | null {
  try {
    const s = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // after ") " the fields start at field 3 (state): utime is field 14, so index 11
    return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  } catch {
    return null;
  }
}

const TICKS_PER_S = 100; // USER_HZ on Linux

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Load averages now and the mean number of other runnable tasks over one second. */
export async function sampleLoad(): Promise<LoadSample> {
  const counts: number[] = [];
  for (let i = 0; i < 10; i++) {
    const stat = readProcStat();
    const n = stat ? procsRunning(stat) : null;
    if (n !== null) counts.push(Math.max(0, n - 1));
    await sleep(100);
  }
  return {
    load: os.loadavg().map((x) => Number(x.toFixed(2))),
    othersRunnable: counts.length ? Number((counts.reduce((a, b) => a + b, 0) / counts.length).toFixed(1)) : null,
  };
}

function isQuiet(s: LoadSample, q: QuietSettings): boolean {
  return s.load[0] <= q.load1Max;
}

/** A benchmark run being watched: `start()` waits for quiet, `finish()` after the run returns the conditions. */
export interface Watch {
  finish(): Promise<Conditions>;
}

/**
 * Wait (up to the limit) until the 1-minute load is under the threshold, then note the machine's
 * state and start counting CPU ticks. The caller runs the benchmark as a child process it waits for
 * without blocking (so the child's CPU lands in this process's cutime, and the process tree is
 * looked at meanwhile for descendants that escape that: bench/own-tree.ts) and then calls finish().
 */
export async function startWatch(log: (line: string) => void, settings = quietSettings()): Promise<Watch> {
  const cores = os.availableParallelism();
  let before = await sampleLoad();
  const t0 = performance.now();
  let lastLog = -Infinity;
  while (!isQuiet(before, settings) && (performance.now() - t0) / 1000 < settings.waitMaxS) {
    const waited = (performance.now() - t0) / 1000;
    if (waited - lastLog >= 30) {
      log(`waiting for quiet: 1-minute load ${before.load[0]} > ${settings.load1Max} (${before.othersRunnable ?? '?'} other runnable); waited ${waited.toFixed(0)} s of ${settings.waitMaxS} s (BENCH_QUIET_WAIT_S)`);
      lastLog = waited;
    }
    await sleep(QUIET.pollS * 1000);
    before = await sampleLoad();
  }
  const waitedS = Number(((performance.now() - t0) / 1000).toFixed(0));
  const startedQuiet = isQuiet(before, settings);
  const stat0 = readProcStat();
  const busy0 = stat0 ? busyTicks(stat0) : null;
  const own0 = ownTicks();
  const wall0 = performance.now();
  const tree = new OwnTree().start();
  return {
    async finish() {
      const stat1 = readProcStat();
      const escaped = tree.stop();
      const reaped = ownTicks();
      const own1 = reaped === null ? null : reaped + escaped;
      const seconds = (performance.now() - wall0) / 1000;
      const busy1 = stat1 ? busyTicks(stat1) : null;
      const after = await sampleLoad();
      const ownCores = own0 !== null && own1 !== null && seconds > 0 ? (own1 - own0) / TICKS_PER_S / seconds : null;
      const othersCores =
        busy0 !== null && busy1 !== null && own0 !== null && own1 !== null && seconds > 0
          ? Math.max(0, (busy1 - busy0 - (own1 - own0)) / TICKS_PER_S / seconds)
          : null;
      const reasons: string[] = [];
      if (!startedQuiet) {
        reasons.push(`the 1-minute load was ${before.load[0]} (over ${settings.load1Max}) when it started${settings.waitMaxS > 0 ? `, after waiting ${waitedS} s for quiet` : ' (no wait: BENCH_QUIET_WAIT_S=0)'}`);
      }
      if (othersCores === null) reasons.push('the CPU other processes used could not be read (/proc is needed)');
      else if (othersCores > settings.othersMaxCores) reasons.push(`other processes used ${othersCores.toFixed(2)} cores on average while it ran (over ${settings.othersMaxCores})`);
      return {
        settings, cores, waitedS, before, after,
        othersCores: othersCores === null ? null : Number(othersCores.toFixed(2)),
        ownCores: ownCores === null ? null : Number(ownCores.toFixed(2)),
        quiet: reasons.length === 0,
        reasons,
      };
    },
  };
}

/** One line for BENCHMARKS.md: the figures and the verdict. */
export function describeConditions(c: Conditions): string {
  const sample = (s: LoadSample) => `load ${s.load.join(' ')}, ${s.othersRunnable ?? '?'} other runnable`;
  const cpu = c.othersCores === null ? '' : `; other processes used ${c.othersCores} cores on average while it ran (this benchmark ${c.ownCores} of ${c.cores})`;
  const head = `${sample(c.before)} before${c.waitedS > 0 ? ` (after waiting ${c.waitedS} s)` : ''}, ${sample(c.after)} after${cpu}.`;
  return c.quiet
    ? `**Quiet**: ${head}`
    : `**NOISY** — its targets are not counted as met: ${c.reasons.join('; ')}. ${head[0].toUpperCase()}${head.slice(1)}`;
}
