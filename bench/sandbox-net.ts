/**
 * What the sandbox's network costs a command: run_command's start-to-result time for `true`, sandboxed in a
 * namespace of its own with no network (how every sandboxed command ran before) against sandboxed in its
 * session's network (nsenter into the namespace the session's earlier commands started; the proxy's variables),
 * and unconfined. Then the one-time costs, each timed until it is ready, not slept for: the session's network
 * from nothing (holder, proxy, pasta attached), and a port a command starts listening on until this machine's
 * 127.0.0.1 answers on it. Peer: the sandbox without a network.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseHostPatterns } from '../lib/contract/hosts';
import { runCommand, startCommand } from '../lib/exec/runner';
import { sandboxStatus, type SandboxSpec } from '../lib/exec/sandbox';
import { sessionNet, stopSandboxNets, type NetJoin } from '../lib/exec/sandbox-net';
import { sandboxNetStatus } from '../lib/exec/net-tools';
import { type Benchmark, type Contender, fmtMs, fmtRatio, interleave, median, scratchDir } from './lib';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 40);
const COLD_REPEATS = Math.max(3, Math.round(REPEATS / 4));

async function join(key: string): Promise<NetJoin> {
  const n = sessionNet(key);
  if (typeof n === 'string') throw new Error(n);
  const j = await n.join({ allowed: () => parseHostPatterns([]).patterns });
  if (typeof j === 'string') throw new Error(j);
  return j;
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

export const sandboxNetBench: Benchmark = {
  name: 'sandbox-net',
  title: "The sandbox's network: a command in its session's namespace, its start, a port forwarded",
  peer: 'the sandbox with a network namespace of its own and no network (how every sandboxed command ran before)',
  async run(log) {
    if (!sandboxStatus().available) throw new Error(`the sandbox cannot start here: ${sandboxStatus().problem}`);
    if (!sandboxNetStatus().available) throw new Error(`the sandbox's network cannot start here: ${sandboxNetStatus().problem}`);
    const workspace = scratchDir('sbxnet-ws');
    const dataDir = scratchDir('sbxnet-data');
    const spec: SandboxSpec = { level: 'workspace-write', workspace, dataDir, scratchDir: path.join(dataDir, 'scratch'), network: false };
    const opts = (command: string) => ({ command, cwd: workspace, logDir: path.join(dataDir, 'logs'), captureMaxBytes: 64 * 1024, killGraceMs: 500 });
    const check = (r: Awaited<ReturnType<typeof runCommand>>) => {
      if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.spawnError ?? r.stderr.head.toString()}`);
    };
    const contenders: Contender[] = [
      { name: 'own namespace', run: async () => check(await runCommand({ ...opts('true'), sandbox: spec })) },
      { name: "session's network", run: async () => check(await runCommand({ ...opts('true'), sandbox: spec, net: await join('bench-warm') })) },
      { name: 'no sandbox', run: async () => check(await runCommand(opts('true'))) },
    ];
    log(`  ${REPEATS} interleaved rounds of ${contenders.length} contenders …`);
    const timed = await interleave(contenders, { repeats: REPEATS, warmup: 2 });
    const by = Object.fromEntries(timed.map((t) => [t.name, t.medianMs]));

    log(`  the session's network from nothing, ${COLD_REPEATS} times …`);
    const cold: number[] = [];
    for (let i = 0; i < COLD_REPEATS; i++) {
      stopSandboxNets();
      const t0 = performance.now();
      const j = await join(`bench-cold-${i}`);
      cold.push(performance.now() - t0);
      j.release();
    }

    log(`  a port forwarded, ${COLD_REPEATS} times …`);
    const forward: number[] = [];
    for (let i = 0; i < COLD_REPEATS; i++) {
      const j = await join('bench-port');
      let seen: (port: number) => void = () => undefined;
      const ready = new Promise<number>((r) => (seen = r));
      j.listen((ports) => ports[0] && seen(ports[0].hostPort));
      const t0 = performance.now();
      const h = startCommand({ ...opts(`exec python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); time.sleep(30)"`), sandbox: spec, net: j });
      const port = await ready;
      if (!(await answers(port))) throw new Error(`the forwarded port ${port} does not answer`);
      forward.push(performance.now() - t0);
      await h.kill('user');
    }
    stopSandboxNets();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    const own = by['own namespace']!;
    const session = by["session's network"]!;
    return {
      tables: [
        {
          title: `run to result of \`true\` through the runner; median of ${REPEATS} interleaved runs`,
          head: ['how it runs', 'median', 'vs own namespace'],
          rows: [
            ['sandboxed, a namespace of its own, no network (before)', fmtMs(own), '1.00×'],
            ["sandboxed, in its session's network (now: the proxy's way out, ports forwarded)", fmtMs(session), fmtRatio(session / own)],
            ['no sandbox', fmtMs(by['no sandbox']!), fmtRatio(by['no sandbox']! / own)],
          ],
        },
        {
          title: `one-time costs, timed until ready; median of ${COLD_REPEATS}`,
          head: ['what', 'median', 'max'],
          rows: [
            ["the session's network from nothing (holder, proxy, pasta attached): a session's first command waits for it", fmtMs(median(cold)), fmtMs(Math.max(...cold))],
            ['a port from the command starting to listen until 127.0.0.1 answers here (includes the python start and one poll)', fmtMs(median(forward)), fmtMs(Math.max(...forward))],
          ],
        },
      ],
      targets: [],
      notes: [
        'A session\'s network is started once and kept while its commands run (and a minute after), so the per-command cost is the first table\'s difference: nsenter before bwrap, and no network namespace made per command.',
        'The port forward starts pasta only once a listening port is seen (polled every SANDBOX_PORT_POLL_MS while a command runs), so a command that listens on nothing pays nothing for it.',
      ],
      data: { ...Object.fromEntries(timed.map((t) => [t.name, t.samplesMs])), cold, forward },
    };
  },
};
