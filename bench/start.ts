/**
 * How fast Clamp's command line starts (issue 30), each against a bare node process doing the same
 * request in the same run, interleaved, median of BENCH_REPEATS (5):
 * - `clamp run "<prompt>"` from launch to its first request at a stand-in model server (test/fake-openai.ts)
 *   vs a bare node making one request to it (spawn → the request's first byte at the server);
 * - `clamp run --help` vs `node -e 0`;
 * - the tool CLI's read_file vs a bare node reading the same file and printing it.
 * The bin scripts run the bundle (dist/cli/, built fresh first); the same from the sources (CLAMP_FROM_SOURCES=1)
 * is shown beside it. Peers (codex exec, claude -p, opencode run) are named as installed or not.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeOpenAI } from '../test/fake-openai';
import { type Benchmark, type Target, REPO_DIR, fmtMs, fmtRatio, median, scratchDir, verdict, which } from './lib';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
/** issue 30's targets: launch → first request ≤5× bare node, --help ≤3× node -e 0, read_file ≤4× bare node */
const TARGETS = { run: 5, help: 3, read: 4 };
const CLAMP = path.join(REPO_DIR, 'bin/clamp.mjs');
const TOOL = path.join(REPO_DIR, 'bin/clamp-tool.mjs');
const PEERS = [['codex', 'codex exec'], ['claude', 'claude -p'], ['opencode', 'opencode run']];

/** The environment of a clamp process: no model keys, the bench's workspace and data dir. */
function envFor(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k)));
  return { ...base, CLAMP_NO_REBUILD: '1', ...extra } as unknown as NodeJS.ProcessEnv;
}

/** Spawn a process and resolve when it exits; stdout and stderr are read and dropped. */
function spawnWait(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

interface Runner {
  name: string;
  /** one run; returns its sample in ms */
  run: () => Promise<number>;
}

/** Wall time from spawn to exit. */
const wall = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => async () => {
  const t0 = performance.now();
  await spawnWait(args, env, cwd);
  return performance.now() - t0;
};

/** Time from spawn to the first byte of the process's first request at the stand-in (the process then runs to its end). */
const toRequest = (requests: Array<{ arrivedAtMs: number }>, args: string[], env: NodeJS.ProcessEnv, cwd: string) => async () => {
  const first = requests.length;
  const t0 = performance.now();
  const code = await spawnWait(args, env, cwd);
  if (requests.length <= first) throw new Error(`${args.join(' ').slice(0, 80)}: no request reached the stand-in (exit ${code})`);
  return requests[first].arrivedAtMs - t0;
};

/** One warm-up round, then `repeats` rounds running every runner once, the first one rotating; the samples by name. */
async function rounds(runners: readonly Runner[], repeats: number): Promise<Map<string, number[]>> {
  const out = new Map(runners.map((r) => [r.name, [] as number[]]));
  for (let r = 0; r <= repeats; r++) {
    for (let k = 0; k < runners.length; k++) {
      const x = runners[(r + k) % runners.length];
      const ms = await x.run();
      if (r > 0) out.get(x.name)!.push(ms);
    }
  }
  return out;
}

function sayEntry(args: string[], env: NodeJS.ProcessEnv, cwd: string): string {
  const r = spawnSync(process.execPath, args, { cwd, env: { ...env, CLAMP_SAY_ENTRY: '1' }, encoding: 'utf8', timeout: 60_000 });
  return /from the (bundle|sources)/.exec(r.stderr)?.[1] ?? `unknown (${r.stderr.slice(0, 200)})`;
}

export const startBench: Benchmark = {
  name: 'start',
  title: 'How fast the command line starts: clamp run → first model request, clamp run --help, the tool CLI’s read_file',
  peer: 'a bare node process doing the same request in the same run (one HTTP request to the stand-in; node -e 0; reading the file)',
  async run(log) {
    const root = scratchDir('start');
    const workspace = path.join(root, 'ws');
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'notes.txt'), Array.from({ length: 200 }, (_, i) => `line ${i} of the notes`).join('\n') + '\n');
    const build = spawnSync(process.execPath, ['scripts/build-cli.mjs', '--quiet'], { cwd: REPO_DIR, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`the CLI bundle did not build: ${build.stderr}`);
    const fake = await startFakeOpenAI(() => ({ text: 'ok' }));
    const requests = fake.requests;
    const env = envFor({ CLAMP_WORKSPACE: workspace, CLAMP_DATA_DIR: dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
    const sources = { ...env, CLAMP_FROM_SOURCES: '1' };
    const body = JSON.stringify({ model: 'fake-coder', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const bareRequest = `const r=await fetch(${JSON.stringify(`${fake.url}/chat/completions`)},{method:'POST',headers:{'content-type':'application/json'},body:${JSON.stringify(body)}});await r.text();`;
    const bareRead = `process.stdout.write(require('fs').readFileSync('notes.txt'))`;
    const readArgs = ['read_file', '{"path":"notes.txt"}'];
    try {
      const entries = { run: sayEntry([CLAMP, 'run', 'say ok'], env, workspace), help: sayEntry([CLAMP, 'run', '--help'], env, workspace), read: sayEntry([TOOL, ...readArgs], env, workspace) };
      log(`  the bin scripts ran: clamp run from the ${entries.run}, --help from the ${entries.help}, read_file from the ${entries.read}`);
      const runners: Runner[] = [
        { name: 'clamp run (bundle)', run: toRequest(requests, [CLAMP, 'run', 'say ok'], env, workspace) },
        { name: 'clamp run (sources)', run: toRequest(requests, [CLAMP, 'run', 'say ok'], sources, workspace) },
        { name: 'bare node request', run: toRequest(requests, ['--input-type=module', '-e', bareRequest], env, workspace) },
        { name: 'clamp run --help (bundle)', run: wall([CLAMP, 'run', '--help'], env, workspace) },
        { name: 'clamp run --help (sources)', run: wall([CLAMP, 'run', '--help'], sources, workspace) },
        { name: 'node -e 0', run: wall(['-e', '0'], env, workspace) },
        { name: 'read_file (bundle)', run: wall([TOOL, ...readArgs], env, workspace) },
        { name: 'read_file (sources)', run: wall([TOOL, ...readArgs], sources, workspace) },
        { name: 'bare node read', run: wall(['-e', bareRead], env, workspace) },
      ];
      log(`  ${runners.length} runners, ${REPEATS} interleaved rounds after one warm-up …`);
      const samples = await rounds(runners, REPEATS);
      return summarize(samples, entries);
    } finally {
      await fake.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};

/** The peers' row: which are installed (they need their own model setup, so they are named, not timed). */
function peersNote(): string {
  const found = PEERS.map(([bin, cmd]) => `${cmd}: ${which(bin) ? `installed at ${which(bin)}, not timed (it needs its own model configuration against the stand-in)` : 'not installed'}`);
  return `Peers: ${found.join('; ')}.`;
}

function summarize(samples: Map<string, number[]>, entries: Record<string, string>) {
  const med = (name: string) => median(samples.get(name)!);
  const rows: Array<[string, string, string, keyof typeof TARGETS | null]> = [
    ['clamp run (bundle)', 'bare node request', 'launch → first model request', 'run'],
    ['clamp run (sources)', 'bare node request', 'launch → first model request, from the sources', null],
    ['clamp run --help (bundle)', 'node -e 0', 'clamp run --help', 'help'],
    ['clamp run --help (sources)', 'node -e 0', 'clamp run --help, from the sources', null],
    ['read_file (bundle)', 'bare node read', 'the tool CLI’s read_file', 'read'],
    ['read_file (sources)', 'bare node read', 'the tool CLI’s read_file, from the sources', null],
  ];
  const targets: Target[] = [];
  const table = rows.map(([name, base, what, target]) => {
    const ratio = med(name) / med(base);
    if (target) {
      const v = verdict(ratio, TARGETS[target], fmtRatio);
      targets.push({ what: `${what} ÷ ${base}`, target: `≤ ${TARGETS[target]}×`, measured: fmtRatio(ratio), met: v.met });
    }
    return [what, fmtMs(med(name)), base, fmtMs(med(base)), fmtRatio(ratio), target ? `≤ ${TARGETS[target]}×` : '—'];
  });
  return {
    tables: [{ title: `Medians of ${REPEATS} interleaved runs`, head: ['case', 'clamp', 'bare node', 'its time', 'ratio', 'target'], rows: table }],
    targets,
    notes: [
      `The bin scripts ran: clamp run from the ${entries.run}, --help from the ${entries.help}, read_file from the ${entries.read} (dist/cli/, built fresh before the run; "from the sources" rows set CLAMP_FROM_SOURCES=1).`,
      '"launch → first model request" is the time from spawning `node bin/clamp.mjs run "say ok"` (openai-compatible provider, a new session in a scratch data dir) to the first byte of its request at the stand-in model server (test/fake-openai.ts in this process); the bare node spawns `node -e` doing one fetch of the same endpoint. The other rows are spawn → exit.',
      peersNote(),
    ],
    data: Object.fromEntries(samples),
  };
}
