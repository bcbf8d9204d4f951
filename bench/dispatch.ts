/**
 * dispatch overhead per call for a trivial tool: 50,000 calls through dispatch (look-up, zod
 * validation, empty guards, path confinement when declared, policy, the exit clamp) against
 * calling the same tool's run() directly. Target (issue 7): well under a millisecond; read here
 * as at most 0.1 ms per call.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { createRegistry } from '../lib/dispatch/registry';
import { defineTool } from '../lib/contract/types';
import { createContext } from '../lib/dispatch/context';
import { dispatch } from '../lib/dispatch/dispatch';
import { type Benchmark, type Contender, fmtMs, fmtRatio, interleave, scratchDir, verdict } from './lib';

const CALLS = 50_000;
const ROUNDS = Number(process.env.BENCH_REPEATS ?? 10);
const PER_ROUND = CALLS / ROUNDS;
const TARGET_MS = 0.1;

const noop = defineTool({
  name: 'noop',
  effect: 'read',
  schema: z.strictObject({ path: z.string(), limit: z.number().int().min(1).optional() }),
  describe: () => 'Does nothing (benchmark).',
  summary: (i) => i.path,
  nonEmpty: ['path'],
  run: async (input) => ({ output: `ok ${input.path}` }),
});

/** The same tool with its path confined by dispatch (a realpath per call), as read_file is. */
const noopPath = defineTool({ ...noop, name: 'noop_path', paths: (input) => [{ path: input.path, access: 'read', field: 'path' }] });

export const dispatchBench: Benchmark = {
  name: 'dispatch',
  title: 'dispatch overhead per call (a no-op read tool)',
  peer: "the same tool's run() called directly",
  async run(log) {
    const workspace = scratchDir('dispatch-ws');
    fs.mkdirSync(`${workspace}/src`);
    fs.writeFileSync(`${workspace}/src/a.ts`, 'x\n');
    const dataDir = scratchDir('dispatch-data');
    const reg = createRegistry([noop, noopPath]);
    const ctx = createContext({ workspace, dataDir });
    const args = { path: 'src/a.ts', limit: 10 };
    const block = (fn: () => Promise<unknown>): Contender['run'] => async () => {
      for (let i = 0; i < PER_ROUND; i++) await fn();
    };
    let bad = 0;
    const check = (r: { status: string }) => {
      if (r.status !== 'ok') bad++;
    };
    const contenders: Contender[] = [
      { name: 'run() directly', run: block(() => noop.run(args, ctx)) },
      { name: 'dispatch (no path argument)', run: block(async () => check(await dispatch(reg, 'noop', args, ctx))) },
      { name: 'dispatch (path confined)', run: block(async () => check(await dispatch(reg, 'noop_path', args, ctx))) },
      { name: 'dispatch (JSON-string args)', run: block(async () => check(await dispatch(reg, 'noop', JSON.stringify(args), ctx))) },
    ];
    log(`  ${CALLS.toLocaleString('en-US')} calls per contender in ${ROUNDS} interleaved blocks of ${PER_ROUND.toLocaleString('en-US')} …`);
    const timed = await interleave(contenders, { repeats: ROUNDS, warmup: 1 });
    if (bad) throw new Error(`${bad} dispatched calls did not come back ok`);
    const perCall = timed.map((t) => t.medianMs / PER_ROUND);
    const direct = perCall[0];
    const rows = timed.map((t, i) => [t.name, fmtMs(perCall[i]), i === 0 ? '—' : fmtMs(perCall[i] - direct), fmtRatio(perCall[i] / direct)]);
    const worstOverhead = Math.max(...perCall.slice(1).map((p) => p - direct));
    const v = verdict(worstOverhead, TARGET_MS, fmtMs);
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    return {
      tables: [{
        title: `Per call: median over ${ROUNDS} interleaved blocks of ${PER_ROUND.toLocaleString('en-US')} sequential awaited calls (${CALLS.toLocaleString('en-US')} per contender)`,
        head: ['contender', 'time per call', 'overhead per call', '÷ run() directly'],
        rows,
      }],
      targets: [{ what: 'dispatch overhead per call (worst variant)', target: `≤ ${fmtMs(TARGET_MS)}`, measured: fmtMs(worstOverhead), met: v.met }],
      notes: [
        'The tool is a read tool with a two-field strict zod schema, a non-empty guard on path, and an output of a few bytes; "path confined" adds dispatch\'s realpath-based workspace confinement of one path argument.',
        '"Well under a millisecond" is read here as at most 0.1 ms of overhead per call.',
      ],
      data: Object.fromEntries(timed.map((t) => [t.name, t.samplesMs])),
    };
  },
};
