/**
 * The session's context over a long scripted session: 200 steps of real read_file calls (one 6 KB
 * file each) through the openai-compatible provider against the stand-in server of the tests.
 * Clamp with its context management on a 16,384-token window (pruning, compaction), against the
 * same session sent whole at every step (a window too large for any of it to trigger), which is
 * what a loop without context management sends. Tokens are counted by the server (o200k_base over
 * the wire messages and tool definitions). The summariser answers at once, so the compaction time
 * is Clamp's own work around one model call (transcript, estimate, the call over loopback).
 */
import fs from 'node:fs';
import path from 'node:path';
import { startFakeOpenAI } from '../test/fake-openai';
import { compactionsOf, fakeModel, ledgerOf, prunedOf, readingScript, runOne, user } from '../test/agent/context-harness';
import { type Benchmark, fmtMs, fmtRatio, median, scratchDir } from './lib';

const STEPS = Number(process.env.BENCH_CONTEXT_STEPS ?? 200);
const WINDOW_TOKENS = 16_384;

function sourceFile(i: number): string {
  const lines: string[] = [];
  for (let k = 0; lines.join('\n').length < 6000; k++) lines.push(`export const value_${i}_${k} = ${i * 1000 + k}; // file ${i}, line ${k + 1}`);
  return lines.join('\n') + '\n';
}

async function session(workspace: string, dataDir: string, contextWindow: number | null, window: number | null) {
  const fake = await startFakeOpenAI(readingScript((i) => `src/f${i}.ts`, STEPS), window ? { window: { tokens: window } } : {});
  try {
    const { model, status } = await fakeModel(fake.url, contextWindow);
    const t = performance.now();
    const { saved } = await runOne({ workspace, dataDir, model, status, messages: [user('Read every file in src/ one by one.')] });
    const wallMs = performance.now() - t;
    const main = fake.requests.filter((r) => r.body.tools);
    const summaries = fake.requests.filter((r) => !r.body.tools);
    return {
      wallMs,
      requests: main.length,
      sentTokens: main.reduce((n, r) => n + r.promptTokens, 0),
      summaryTokens: summaries.reduce((n, r) => n + r.promptTokens, 0),
      maxRequestTokens: Math.max(...main.map((r) => r.promptTokens)),
      over: fake.requests.filter((r) => r.overWindow).length,
      compactionMs: compactionsOf(saved).map((c) => c.durationMs),
      pruned: prunedOf(saved).reduce((n, p) => n + p.items.length, 0),
      shownBytes: ledgerOf(saved).reduce((n, l) => n + l.toolBytesShown, 0),
      producedBytes: ledgerOf(saved).reduce((n, l) => n + l.toolBytesProduced, 0),
    };
  } finally {
    await fake.close();
  }
}

export const contextBench: Benchmark = {
  name: 'context',
  title: `A ${STEPS}-step session: tokens sent with pruning and compaction vs the whole conversation every step`,
  peer: 'the same session sent whole at every step (no context management)',
  async run(log) {
    const root = scratchDir('context');
    const workspace = path.join(root, 'ws');
    for (let i = 0; i < STEPS; i++) {
      fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
      fs.writeFileSync(path.join(workspace, `src/f${i}.ts`), sourceFile(i));
    }
    try {
      log(`managed: ${STEPS} steps on a ${WINDOW_TOKENS}-token window …`);
      const managed = await session(workspace, path.join(root, 'data-a'), null, WINDOW_TOKENS);
      log(`whole: ${STEPS} steps, nothing pruned or compacted …`);
      const whole = await session(workspace, path.join(root, 'data-b'), 100_000_000, null);
      const row = (name: string, s: typeof managed) => [
        name,
        String(s.requests),
        s.sentTokens.toLocaleString('en-US'),
        s.maxRequestTokens.toLocaleString('en-US'),
        String(s.over),
        String(s.compactionMs.length),
        String(s.pruned),
        fmtMs(s.wallMs),
      ];
      const c = managed.compactionMs;
      const sorted = [...c].sort((a, b) => a - b);
      return {
        tables: [
          {
            title: `Tokens sent over ${STEPS} steps (server's count, o200k_base)`,
            head: ['session', 'requests', 'tokens sent', 'largest request', 'over 16,384', 'compactions', 'results pruned', 'wall time'],
            rows: [row(`pruning + compaction, ${WINDOW_TOKENS.toLocaleString('en-US')} window`, managed), row('whole conversation every step', whole)],
          },
          {
            title: 'Ratio and compaction time',
            head: ['whole / managed tokens sent', 'summary requests (tokens)', 'compaction median', 'compaction max', 'tool bytes shown / produced'],
            rows: [
              [
                fmtRatio(whole.sentTokens / managed.sentTokens),
                managed.summaryTokens.toLocaleString('en-US'),
                fmtMs(median(c)),
                fmtMs(sorted.at(-1) ?? NaN),
                `${(managed.shownBytes / Math.max(1, managed.producedBytes) * 100).toFixed(1)} %`,
              ],
            ],
          },
        ],
        targets: [
          { what: `managed session: every request within ${WINDOW_TOKENS} tokens`, target: '0 over', measured: `${managed.over} over, largest ${managed.maxRequestTokens}`, met: managed.over === 0 && managed.maxRequestTokens <= WINDOW_TOKENS },
        ],
        notes: [
          `The whole-conversation session would need a ${whole.maxRequestTokens.toLocaleString('en-US')}-token window at its last step; on ${WINDOW_TOKENS.toLocaleString('en-US')} it fails at the first request over it.`,
          'Compaction time includes one summary call to the stand-in server, which answers at once: a real model adds its own generation time.',
        ],
        data: { managed, whole },
      };
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
