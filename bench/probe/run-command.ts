/**
 * Where the time of run-command's 1 GB run goes (not a benchmark: no peer table, nothing written to
 * bench/results). For each run of one contender it prints the wall time, this process's CPU per kind
 * of thread (main, libuv's pool, V8's workers: GC and compilation), the whole machine's CPU (and the time the hypervisor stole) from
 * /proc/stat (the command's processes inside bwrap are never this process's reaped children), the
 * event loop's utilisation, how long the child's pipes were paused (the log gate waiting for the
 * disk), and the log writes (calls, bytes, the time each spent in the pool). PROBE_WHO=1: every other
 * process's CPU by name too (yes, head, bwrap, kernel threads …), sampled from /proc every 50 ms.
 *
 *   node --require ./bench/probe/threads.cjs --import tsx bench/probe/run-command.ts <contenders> [rounds]
 *
 * contenders, comma-separated, run interleaved: clamp (run_command in the sandbox), clamp-off (with
 * sandbox: "off"), pipe (bench/lib.ts' runChild: the bare Node pipe), file (bash → file), null (bash → /dev/null); add
 * --cpu-prof for a profile of the runs. A clamp contender may name how the harness calls it:
 * clamp:rss (inside bench/lib.ts' withPeakRss, as the bench runs it), clamp:gc+timer (a gc() first, with
 * --expose-gc, and a 20 ms timer meanwhile).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { performance as perf } from 'node:perf_hooks';
import { spawn, spawnSync } from 'node:child_process';
import { createToolRegistry } from '../../lib/dispatch/all-tools';
import { createContext } from '../../lib/dispatch/context';
import { dispatch } from '../../lib/dispatch/dispatch';
import { median, runChild, scratchDir, withPeakRss } from '../lib';

const BYTES = 1_000_000_000;
const PRODUCE = `yes | head -c ${BYTES}`;
const modes = (process.argv[2] ?? 'clamp').split(',');
const runs = Number(process.argv[3] ?? 3);
const TICK_MS = 10;

const startThreads = new Set((globalThis as { __probeStartThreads?: string[] }).__probeStartThreads ?? []);
const pid = String(process.pid);

type Kind = 'main' | 'mainSys' | 'pool' | 'poolSys' | 'v8';
function threadCpu(): Record<Kind, number> {
  const out: Record<Kind, number> = { main: 0, mainSys: 0, pool: 0, poolSys: 0, v8: 0 };
  for (const tid of fs.readdirSync('/proc/self/task')) {
    let s: string;
    try {
      s = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(f[11]) + Number(f[12])) * TICK_MS;
    const kind: Kind = tid === pid ? 'main' : startThreads.has(tid) ? 'v8' : 'pool';
    out[kind] += ms;
    if (kind !== 'v8') out[kind === 'main' ? 'mainSys' : 'poolSys'] += Number(f[12]) * TICK_MS;
  }
  return out;
}

function machineCpu(): { busy: number; iowait: number; steal: number } {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  // steal: time the hypervisor gave this VM's CPUs to others while they had work
  return { busy: (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * TICK_MS, iowait: f[4] * TICK_MS, steal: f[7] * TICK_MS };
}

/**
 * CPU per command name across the machine while a run lasts: /proc/<pid>/task/<tid>/stat read every
 * 50 ms (a thread's last reading counts; one that ends between readings loses its last 50 ms).
 */
class WhoSampler {
  private first = new Map<string, number>();
  private last = new Map<string, { comm: string; ms: number }>();
  private timer: NodeJS.Timeout | null = null;
  private readonly ownPid = String(process.pid);

  private scan(init: boolean): void {
    for (const p of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(p) || p === this.ownPid) continue;
      let tids: string[];
      try {
        tids = fs.readdirSync(`/proc/${p}/task`);
      } catch {
        continue;
      }
      for (const tid of tids) {
        let st: string;
        try {
          st = fs.readFileSync(`/proc/${p}/task/${tid}/stat`, 'utf8');
        } catch {
          continue;
        }
        const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        const key = `${tid}:${f[19]}`; // tid and start time: a reused tid is another thread
        const ms = (Number(f[11]) + Number(f[12])) * TICK_MS;
        if (init) this.first.set(key, ms);
        else if (!this.first.has(key)) this.first.set(key, 0);
        this.last.set(key, { comm, ms });
      }
    }
  }

  start(): void {
    this.first.clear();
    this.last.clear();
    this.scan(true);
    this.timer = setInterval(() => this.scan(false), 50);
  }

  stop(): Record<string, number> {
    clearInterval(this.timer!);
    this.scan(false);
    const out: Record<string, number> = {};
    for (const [key, { comm, ms }] of this.last) {
      const d = ms - (this.first.get(key) ?? 0);
      const name = comm.replace(/\/\d+.*$/, '').replace(/^kworker.*/, 'kworker');
      if (d > 0) out[name] = (out[name] ?? 0) + d;
    }
    return out;
  }
}
const who = process.env.PROBE_WHO === '1' ? new WhoSampler() : null;

// the pipes' paused time: every Socket's pause()/resume() (a child's pipes are the only sockets here)
const pausedSince = new WeakMap<object, number>();
let pausedMs = 0;
let pauses = 0;
const proto = net.Socket.prototype as unknown as { pause(): unknown; resume(): unknown };
const origPause = proto.pause;
const origResume = proto.resume;
proto.pause = function (this: object) {
  if (!pausedSince.has(this)) {
    pausedSince.set(this, performance.now());
    pauses++;
  }
  return origPause.call(this);
};
proto.resume = function (this: object) {
  const t = pausedSince.get(this);
  if (t !== undefined) {
    pausedMs += performance.now() - t;
    pausedSince.delete(this);
  }
  return origResume.call(this);
};

// the pipes' reads: chunks pushed into every Socket (a pipe read is one push)
let chunks = 0;
const sproto = net.Socket.prototype as unknown as { push(c: unknown): boolean };
const origPush = sproto.push;
sproto.push = function (this: object, c: unknown) {
  if (c != null) chunks++;
  return origPush.call(this, c);
};

// log writes: fs.write / fs.writev as WriteStream calls them, with the time each spends in the pool
let writes = 0;
let writeBytes = 0;
let writeMs = 0;
const mfs = fs as unknown as Record<'write' | 'writev', (...a: unknown[]) => void>;
for (const name of ['write', 'writev'] as const) {
  const orig = mfs[name];
  mfs[name] = function (...args: unknown[]) {
    const cb = args[args.length - 1] as (...r: unknown[]) => void;
    const t = performance.now();
    writes++;
    const data = args[1];
    writeBytes += Array.isArray(data) ? data.reduce((n: number, b: Uint8Array) => n + b.length, 0) : (data as Uint8Array).length;
    args[args.length - 1] = (...r: unknown[]) => {
      writeMs += performance.now() - t;
      cb(...r);
    };
    return orig.apply(fs, args);
  };
}

function shellTo(cmd: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', cmd], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
}

const fmt = (r: Record<string, number>) => Object.entries(r).map(([k, v]) => `${k} ${k === 'elu' ? v.toFixed(2) : Math.round(v)}`).join(' · ');

async function main(): Promise<void> {
  const workspace = scratchDir('probe-ws');
  const dataDir = scratchDir('probe-data');
  const reg = createToolRegistry();
  let progressChars = 0;
  const approver = { approver: { approved: true } };
  await dispatch(reg, 'run_command', { command: 'echo warm' }, createContext({ workspace, dataDir }), approver);
  console.log(`contenders ${modes.join(', ')}; ${runs} rounds; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
  const rows: Record<string, Record<string, number>[]> = Object.fromEntries(modes.map((m) => [m, []]));
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < modes.length; k++) {
      const mode = modes[(i + k) % modes.length];
      [pausedMs, pauses, writes, writeBytes, writeMs, chunks] = [0, 0, 0, 0, 0, 0];
      const cpu0 = threadCpu();
      const m0 = machineCpu();
      const elu0 = perf.eventLoopUtilization();
      who?.start();
      const t0 = performance.now();
      const [base, exp] = mode.split(':');
      (globalThis as { __exp?: Record<string, number> }).__exp = Object.fromEntries((exp ?? '').split('+').filter(Boolean).map((e) => { const [k, v] = e.split('='); return [k, v === undefined ? 1 : Number(v)]; }));
      if (base === 'clamp' || base === 'clamp-off') {
        const ctx = createContext({ workspace, dataDir, onProgress: (p) => p.kind === 'output' && (progressChars += p.text.length) });
        const input = base === 'clamp' ? { command: PRODUCE } : { command: PRODUCE, sandbox: 'off', sandbox_reason: 'probe' };
        const call = () => dispatch(reg, 'run_command', input, ctx, approver);
        // clamp:rss — inside bench/lib.ts' withPeakRss, as the bench runs it
        const x = (globalThis as { __exp?: Record<string, number> }).__exp ?? {};
        if (x.gc) (globalThis as { gc?: () => void }).gc?.();
        if (x.clear) fs.writeFileSync('/proc/self/clear_refs', '5');
        const timer = x.timer ? setInterval(() => process.memoryUsage.rss(), 20) : null;
        const r = x.rss ? (await withPeakRss(call)).value : await call();
        if (timer) clearInterval(timer);
        if (r.meta?.stdoutBytes !== BYTES || (base === 'clamp') !== (r.meta?.sandbox != null)) throw new Error(`run_command: ${r.status} ${r.output.slice(0, 200)}`);
      } else if (base === 'pipe') {
        const r = await runChild('bash', ['-c', PRODUCE], workspace, { countLines: false });
        if (r.stdoutBytes !== BYTES) throw new Error(`pipe got ${r.stdoutBytes}`);
      } else if (base === 'null') await shellTo(`${PRODUCE} > /dev/null`, workspace);
      else await shellTo(`${PRODUCE} > out.bin`, workspace);
      const wall = performance.now() - t0;
      const others = who?.stop();
      const elu = perf.eventLoopUtilization(elu0);
      const cpu1 = threadCpu();
      const m1 = machineCpu();
      const r = {
        wall,
        main: cpu1.main - cpu0.main,
        mainSys: cpu1.mainSys - cpu0.mainSys,
        pool: cpu1.pool - cpu0.pool,
        poolSys: cpu1.poolSys - cpu0.poolSys,
        v8: cpu1.v8 - cpu0.v8,
        machine: m1.busy - m0.busy,
        iowait: m1.iowait - m0.iowait,
        steal: m1.steal - m0.steal,
        elu: elu.utilization,
        chunks,
        chunkKiB: BYTES / 1024 / Math.max(1, chunks),
        paused: pausedMs,
        pauses,
        writes,
        writeMiB: writeBytes / 2 ** 20,
        writeMs,
      };
      rows[mode].push(r);
      console.log(`${mode.padEnd(9)} ${fmt(r)}`);
      if (others) console.log(`          others: ${Object.entries(others).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(' · ')}`);
      fs.rmSync(path.join(dataDir, 'logs'), { recursive: true, force: true });
      fs.rmSync(path.join(workspace, 'out.bin'), { force: true });
      spawnSync('sync');
    }
  }
  for (const mode of modes) {
    const keys = Object.keys(rows[mode][0]);
    console.log(`median ${mode.padEnd(9)} ${fmt(Object.fromEntries(keys.map((k) => [k, median(rows[mode].map((r) => r[k]))])))}`);
  }
  console.log(`live output: ${Math.round(progressChars / runs)} chars per clamp round; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
