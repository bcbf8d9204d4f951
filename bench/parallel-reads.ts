/**
 * A step of 10 read calls through the agent's CallScheduler (lib/agent/scheduler.ts): scheduled as
 * reads (they overlap) vs the same calls scheduled one by one (as the scheduler runs writes and
 * commands: each waits for the one before). Every call goes through the real dispatch.
 *
 * Three steps: read_file of 10 small source files; read_file of a window at the end of 10 20 MB
 * logs (each call scans its file); grep over 10 different folders of the 100,000-file tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CallScheduler } from '../lib/agent/scheduler';
import { createToolRegistry } from '../lib/dispatch/all-tools';
import { createContext } from '../lib/dispatch/context';
import { dispatch } from '../lib/dispatch/dispatch';
import type { SideEffect } from '../lib/contract/types';
import { type Benchmark, fmtMs, fmtRatio, interleave, scratchDir } from './lib';
import { ensureTree } from './tree';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);
const LOG_DIR = '/tmp/clamp-bench-read/ten';
const LOG_BYTES = 20_000_000;

interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** Ten 20 MB logs of numbered lines (reused when present); returns their line counts. */
function makeLogs(): { file: string; lines: number }[] {
  fs.mkdirSync(LOG_DIR, { recursive: true });
  const out: { file: string; lines: number }[] = [];
  for (let f = 0; f < 10; f++) {
    const file = path.join(LOG_DIR, `service-${f}.log`);
    let lines = 0;
    if (!fs.existsSync(file) || fs.statSync(file).size < LOG_BYTES) {
      const parts: string[] = [];
      let bytes = 0;
      while (bytes < LOG_BYTES) {
        const l = `2025-01-01 service-${f} line ${lines} status=ok latency_ms=${(lines * 7) % 113}\n`;
        parts.push(l);
        bytes += l.length;
        lines++;
      }
      fs.writeFileSync(file, parts.join(''));
    } else {
      const buf = fs.readFileSync(file);
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
    }
    out.push({ file, lines });
  }
  return out;
}

export const parallelReadsBench: Benchmark = {
  name: 'parallel-reads',
  title: 'A step of 10 read calls through CallScheduler: concurrent vs one by one',
  peer: 'the same 10 calls scheduled one by one',
  async run(log) {
    const tree = ensureTree(log).dir;
    const logs = makeLogs();
    const reg = createToolRegistry();
    const dataDir = scratchDir('parallel-data');
    const repo = fs.realpathSync(path.resolve(import.meta.dirname, '..'));
    const sources = ['lib/dispatch/dispatch.ts', 'lib/tools/read-file/read-file.ts', 'lib/tools/grep/grep.ts', 'lib/tools/glob.ts', 'lib/tools/commands/run-command.ts',
      'lib/exec/runner.ts', 'lib/agent/scheduler.ts', 'lib/contract/budget.ts', 'lib/contract/types.ts', 'lib/dispatch/registry.ts'];
    const steps: { name: string; workspace: string; calls: Call[] }[] = [
      { name: '10 × read_file, small source files', workspace: repo, calls: sources.map((p) => ({ name: 'read_file', args: { path: p } })) },
      {
        name: '10 × read_file, window at the end of a 20 MB log',
        workspace: '/tmp/clamp-bench-read',
        calls: logs.map((l) => ({ name: 'read_file', args: { path: `ten/${path.basename(l.file)}`, offset: l.lines - 99, limit: 100 } })),
      },
      {
        name: '10 × grep, one folder of 1,000 files each',
        workspace: tree,
        calls: Array.from({ length: 10 }, (_, i) => ({ name: 'grep', args: { pattern: 'needle_\\d{4}|zqxj', path: `pkg0${i}7` } })),
      },
    ];
    const rows: string[][] = [];
    const data: Record<string, unknown> = {};
    for (const s of steps) {
      log(`  ${s.name} …`);
      const step = (effect: SideEffect) => async () => {
        const sched = new CallScheduler();
        const ctx = createContext({ workspace: s.workspace, dataDir });
        const results = await Promise.all(s.calls.map((c) => sched.schedule(effect, () => dispatch(reg, c.name, c.args, ctx))));
        const bad = results.filter((r) => r.status !== 'ok');
        if (bad.length) throw new Error(`${bad.length} calls failed: ${bad[0].output.slice(0, 200)}`);
        return `${results.reduce((n, r) => n + r.output.length, 0).toLocaleString('en-US')} chars`;
      };
      // 'system' is how the scheduler orders writes and commands: each waits for every call before it
      const [conc, serial] = await interleave([{ name: 'concurrent', run: step('read') }, { name: 'one by one', run: step('system') }], { repeats: REPEATS, warmup: 1 });
      rows.push([s.name, fmtMs(conc.medianMs), fmtMs(serial.medianMs), fmtRatio(serial.medianMs / conc.medianMs), conc.summary]);
      data[s.name] = { concurrent: conc.samplesMs, oneByOne: serial.samplesMs };
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    return {
      tables: [{
        title: `Whole step, median of ${REPEATS} interleaved runs; speed-up = one by one ÷ concurrent (higher is better)`,
        head: ['step', 'concurrent', 'one by one', 'speed-up', 'output (same both ways)'],
        rows,
      }],
      targets: [],
      notes: [
        'Concurrent: every call scheduled as a read (effect read), so all ten start at once. One by one: the same calls scheduled with effect system, so each waits for the previous one — the scheduler\'s path for writes and commands.',
        'Tools run in one Node thread; overlap comes from file-system calls in libuv\'s thread pool (4 threads by default) running while JavaScript scans. On 2 cores the ceiling is about 2×.',
      ],
      data,
    };
  },
};
