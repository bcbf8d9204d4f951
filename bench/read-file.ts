/**
 * read_file of a window at the end of a 1 GB file vs `tail -n 2000` of the same file: time, and
 * peak memory (RSS growth of this process for the tool; tail's whole peak RSS for the peer).
 *
 * Two files, generated once into /tmp/clamp-bench-read and reused:
 * - sparse.log: a few text lines, a hole (NUL bytes that cost no disk), then real log lines at the
 *   end. The hole reads as one very long line, so the scan does one indexOf per 1 MB chunk;
 * - dense.log: 1 GB of real ~76-byte log lines (about 13 million), the realistic worst case for a
 *   tool that must count lines from the start to find line N.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createToolRegistry } from '../lib/dispatch/all-tools';
import { createContext } from '../lib/dispatch/context';
import { dispatch } from '../lib/dispatch/dispatch';
import { BUDGET } from '../lib/contract/budget';
import { type Benchmark, type Target, childPeakRss, fmtCores, fmtMiB, fmtMs, fmtRatio, interleave, runChild, scratchDir, verdict, withPeakRss } from './lib';

/** issue 18: read_file's deep window within 2× tail on every file */
const TARGET_RATIO = 2;

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const DIR = '/tmp/clamp-bench-read';
const SIZE_BYTES = 1_000_000_000;
const TAIL_LINES = 2000;
const HEAD_LINES = 500;
const END_LINES = 10_000;

const logLine = (i: number) =>
  `2025-01-01T00:${String((i / 60_000) % 60 | 0).padStart(2, '0')}:${String((i / 1000) % 60 | 0).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z INFO req=${String(i).padStart(9, '0')} GET /api/items status=200 ms=${i % 97}\n`;

interface Made {
  file: string;
  lines: number;
}

/** The sparse file: HEAD_LINES lines, a hole up to the end, "\n" + END_LINES lines ending exactly at SIZE_BYTES. */
function makeSparse(): Made {
  const file = path.join(DIR, 'sparse.log');
  const lines = HEAD_LINES + 1 + END_LINES; // the hole (and the "\n" closing it) is one line
  const meta = `${file}.lines`;
  if (fs.existsSync(meta) && fs.statSync(file).size === SIZE_BYTES) return { file, lines: Number(fs.readFileSync(meta, 'utf8')) };
  let head = '';
  for (let i = 0; i < HEAD_LINES; i++) head += logLine(i);
  let tail = '\n';
  for (let i = 0; i < END_LINES; i++) tail += logLine(1_000_000 + i);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, head, 0);
  fs.writeSync(fd, tail, SIZE_BYTES - Buffer.byteLength(tail));
  fs.closeSync(fd);
  fs.writeFileSync(meta, String(lines));
  return { file, lines };
}

/** The dense file: real lines up to SIZE_BYTES (the last one cut short and ended with "\n"). */
function makeDense(log: (line: string) => void): Made {
  const file = path.join(DIR, 'dense.log');
  const meta = `${file}.lines`;
  if (fs.existsSync(meta) && fs.statSync(file).size === SIZE_BYTES) return { file, lines: Number(fs.readFileSync(meta, 'utf8')) };
  log(`  writing ${file} (1 GB of log lines, once) …`);
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let lines = 0;
  for (let n = 0; written < SIZE_BYTES; ) {
    let chunk = '';
    for (let k = 0; k < 20_000; k++) chunk += logLine(n++);
    let buf = Buffer.from(chunk);
    if (written + buf.length > SIZE_BYTES) {
      // end exactly at SIZE_BYTES on a whole line: keep the lines that fit, then one line of spaces
      const fits = buf.subarray(0, buf.lastIndexOf(10, SIZE_BYTES - written - 1) + 1);
      const pad = SIZE_BYTES - written - fits.length;
      buf = pad > 0 ? Buffer.concat([fits, Buffer.from(`${' '.repeat(pad - 1)}\n`)]) : fits;
    }
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
    fs.writeSync(fd, buf);
    written += buf.length;
  }
  fs.closeSync(fd);
  fs.writeFileSync(meta, String(lines));
  return { file, lines };
}

export const readFileBench: Benchmark = {
  name: 'read-file',
  title: 'read_file: a window at the end of a 1 GB file vs tail -n 2000',
  peer: 'GNU coreutils tail -n 2000',
  async run(log) {
    fs.mkdirSync(DIR, { recursive: true });
    const dense = makeDense(log);
    const files = [
      { label: 'sparse 1 GB (hole + real lines at the end)', ...makeSparse() },
      { label: `dense 1 GB (${(dense.lines / 1e6).toFixed(1)} M real lines)`, ...dense },
    ];
    const reg = createToolRegistry();
    const dataDir = scratchDir('read-data');
    const rows: string[][] = [];
    const targets: Target[] = [];
    const data: Record<string, unknown> = {};
    for (const f of files) {
      log(`  ${f.label} …`);
      const offset = f.lines - TAIL_LINES + 1;
      let growth = 0;
      let footer = '';
      const call = () => dispatch(reg, 'read_file', { path: path.basename(f.file), offset, limit: TAIL_LINES }, createContext({ workspace: DIR, dataDir }));
      const [tool, tail] = await interleave([
        {
          name: 'read_file',
          run: async () => {
            const r = await call();
            if (r.status !== 'ok') throw new Error(`read_file failed: ${r.output.slice(0, 300)}`);
            footer = r.output.slice(r.output.lastIndexOf('\n') + 1);
            return `${r.output.split('\n').length - 1} lines shown`;
          },
        },
        {
          name: 'tail',
          run: async () => `${(await runChild('tail', ['-n', String(TAIL_LINES), f.file], DIR)).stdoutLines} lines`,
        },
      ], { repeats: REPEATS, warmup: 1 });
      // memory apart from time: the sampling (a GC first, a timer) would be timed with the call
      for (let i = 0; i < 2; i++) growth = Math.max(growth, (await withPeakRss(call)).rss.growthBytes);
      const tailRss = await childPeakRss('tail', ['-n', String(TAIL_LINES), f.file], DIR);
      const ratio = tool.medianMs / tail.medianMs;
      const v = verdict(ratio, TARGET_RATIO, fmtRatio);
      rows.push([f.label, fmtMs(tool.medianMs), fmtMs(tail.medianMs), fmtRatio(ratio), v.met ? 'met' : 'no', fmtMiB(growth), fmtMiB(tailRss), `${tool.summary} / ${tail.summary}`, `${fmtCores(tool)} / ${fmtCores(tail)}`]);
      targets.push({ what: `deep window, ${f.label}: read_file ÷ tail`, target: `≤ ${TARGET_RATIO}×`, measured: fmtRatio(ratio), met: v.met });
      data[f.label] = { lines: f.lines, offset, footer, readFileMs: tool.samplesMs, tailMs: tail.samplesMs, readFileRssGrowthBytes: growth, tailPeakRssBytes: tailRss };
      log(`    footer: ${footer}`);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    return {
      tables: [{
        title: `read_file offset=N-${TAIL_LINES - 1} limit=${TAIL_LINES} through dispatch vs tail -n ${TAIL_LINES}; median of ${REPEATS} interleaved runs (file in the page cache)`,
        head: ['file', 'read_file', 'tail', 'read_file ÷ tail', `≤ ${TARGET_RATIO}× tail?`, 'read_file peak RSS growth', 'tail peak RSS (whole process)', 'output', 'cores used (read_file / tail)'],
        rows,
      }],
      targets,
      notes: [
        `read_file shows at most ${BUDGET.READ_WINDOW_MAX_BYTES.toLocaleString('en-US')} bytes of numbered text per window, so it returns the first part of the ${TAIL_LINES} lines asked for and a footer with the next offset; tail prints all ${TAIL_LINES}.`,
        'read_file finds line N by scanning forward with one 1 MB buffer (memory stays flat), starting from the nearest checkpoint of its line index (lib/tools/line-index.ts); the warm-up read builds the index, so this table shows a file read before. The first read of a file still scans from its start, about as long as a cold scan of the whole file; tail seeks to the end and reads backwards.',
        'RSS growth is this process\'s peak during the call above its RSS just before (after a GC), sampled every 20 ms and from VmHWM, in two calls after the timed ones (the GC and sampling are not timed); tail\'s figure is its whole peak RSS from /usr/bin/time. tail\'s time includes starting its process.',
      ],
      data,
    };
  },
};
