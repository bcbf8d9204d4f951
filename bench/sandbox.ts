/**
 * What the sandbox costs one command: run_command's start-to-result time for a trivial command
 * (`true`) and a small real one (`ls -la` in a workspace of 200 files), sandboxed (bubblewrap,
 * workspace-write, no network) against the same runner with no sandbox. Peer: the runner itself,
 * unconfined, as it ran before the sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runCommand } from '../lib/exec/runner';
import { sandboxStatus, type SandboxSpec } from '../lib/exec/sandbox';
import { type Benchmark, type Contender, fmtMs, fmtRatio, interleave, scratchDir } from './lib';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 40);

export const sandboxBench: Benchmark = {
  name: 'sandbox',
  title: 'The command sandbox: per-command start-up, sandboxed vs not',
  peer: 'the same runner with no sandbox (how every command ran before it)',
  async run(log) {
    const st = sandboxStatus();
    if (!st.available) throw new Error(`the sandbox cannot start here: ${st.problem}`);
    const workspace = scratchDir('sbx-ws');
    const dataDir = scratchDir('sbx-data');
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(workspace, `f${i}.txt`), 'x\n');
    fs.mkdirSync(path.join(workspace, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(workspace, '.git', 'config'), '');
    const spec: SandboxSpec = { level: 'workspace-write', workspace, dataDir, scratchDir: path.join(dataDir, 'scratch'), network: false };
    const run = (command: string, sandbox?: SandboxSpec) => async () => {
      const r = await runCommand({ command, cwd: workspace, logDir: path.join(dataDir, 'logs'), captureMaxBytes: 64 * 1024, killGraceMs: 500, ...(sandbox ? { sandbox } : {}) });
      if (r.exitCode !== 0) throw new Error(`${command} exited ${r.exitCode}: ${r.stderr.head.toString()}`);
    };
    const contenders: Contender[] = [
      { name: 'true, sandboxed', run: run('true', spec) },
      { name: 'true, no sandbox', run: run('true') },
      { name: 'ls -la (200 files), sandboxed', run: run('ls -la', spec) },
      { name: 'ls -la (200 files), no sandbox', run: run('ls -la') },
    ];
    log(`  ${REPEATS} interleaved rounds of ${contenders.length} contenders …`);
    const timed = await interleave(contenders, { repeats: REPEATS, warmup: 2 });
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    const by = Object.fromEntries(timed.map((t) => [t.name, t]));
    const row = (what: string) => {
      const s = by[`${what}, sandboxed`]!;
      const n = by[`${what}, no sandbox`]!;
      return [what, fmtMs(s.medianMs), fmtMs(n.medianMs), fmtMs(s.medianMs - n.medianMs), fmtRatio(s.medianMs / n.medianMs)];
    };
    return {
      tables: [{
        title: `run to result through the runner (spawn, both pipes, three logs, reap); median of ${REPEATS} interleaved runs`,
        head: ['command', 'sandboxed', 'no sandbox', 'sandbox adds', 'sandboxed ÷ not'],
        rows: [row('true'), row('ls -la (200 files)')],
      }],
      targets: [],
      notes: [`bubblewrap at ${st.bwrap}: --ro-bind / /, private bounded /tmp, workspace and scratch writable, HOME and secrets hidden, .git/hooks and .git/config read-only, every capability dropped, the system-call filter, rlimits and a cgroup per command where one is writable, new pid, ipc, uts and network namespaces (the session's shared network namespace is measured by "npm run bench -- sandbox-net").`,
        'Part of this benchmark\'s own CPU counts as other processes\' in the conditions line: bubblewrap\'s outer process exits without waiting for the pid namespace\'s first process (strace: it learns the exit status another way), so that process and the command it reaped are reaped outside this benchmark\'s tree, too briefly alive for bench/own-tree.ts to see. Measured here: 40 sandboxed `true` left 44–72 ticks of 10 ms (11–18 ms each) unaccounted; 40 unconfined ones left 0–4.'],
      data: Object.fromEntries(timed.map((t) => [t.name, t.samplesMs])),
    };
  },
};
