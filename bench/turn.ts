/**
 * What a person feels of Clamp's own work per turn, on the real server (bin/clamp.mjs) with the
 * openai-compatible provider talking to the stand-in server of the tests (test/fake-openai.ts,
 * which notes when each request's first byte arrives and when its reply was sent):
 * - Enter → the model request: from this process POSTing /api/chat as the page does to the first
 *   byte of the model request at the stand-in; in a fresh session and in one that holds 100 steps;
 * - per step, the model's reply sent → the next model request (the SDK reading the reply, dispatch
 *   and the tool — a read_file of a small file —, saving the step, the context keeper, converting
 *   the conversation), over one turn of 100 steps; and, from the page's side, the tool result on the
 *   chat stream → the next request.
 * Peer: the same request body POSTed from this process straight to the stand-in (the loopback floor).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DiagnosticsSettingsView } from '../lib/contract/diagnostics';
import { startFakeOpenAI, turnPosition as position, type FakeReply, type FakeRequest } from '../test/fake-openai';
import { startClamp } from '../test/server/harness';
import { machineBusyMs } from './conditions';
import { type Benchmark, type Table, type Target, fmtMs, median, scratchDir } from './lib';

const STEPS = Number(process.env.BENCH_TURN_STEPS ?? 100);
/** Steps of each turn in the comparison of one session alone with three at once */
const CONCURRENT_STEPS = Number(process.env.BENCH_TURN_CONCURRENT_STEPS ?? 40);
/** Sessions running their turns at the same time in that comparison */
const CONCURRENT_SESSIONS = 3;
/** Their per-step overhead may be at most this many times one session's alone */
const CONCURRENT_MAX_RATIO = 1.5;
/** Enter → request rounds per row: with 10 a p95 is the single slowest round; 30 make it the second slowest */
const REPEATS = Number(process.env.BENCH_REPEATS ?? 30);
const TARGET_MS = 50;
/**
 * The realistic rows' model: from its request to its first chunk it takes between these two times, drawn per request
 * (a fixed sequence, the same in every run). A hosted model's time to its first token varies from request to
 * request; one fixed delay would keep sessions started in the same millisecond in step with each other forever,
 * each step of each meeting the other two's, which no three real turns do. BENCH_TURN_MODEL_MS=a-b sets the range
 * (a single number: that delay every time).
 */
const [MODEL_MIN_MS, MODEL_MAX_MS] = (() => {
  const [a, b] = (process.env.BENCH_TURN_MODEL_MS ?? '150-450').split('-').map(Number);
  return [a, b ?? a];
})();
const MODEL_RANGE = MODEL_MIN_MS === MODEL_MAX_MS ? `${MODEL_MIN_MS} ms` : `${MODEL_MIN_MS}–${MODEL_MAX_MS} ms`;

/** The realistic model's delay for the stand-in's request number `index`: spread evenly over the range by a fixed hash. */
function modelDelayMs(index: number): number {
  let h = Math.imul(index + 1, 0x9e3779b1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  return MODEL_MIN_MS + (h % (MODEL_MAX_MS - MODEL_MIN_MS + 1));
}
/** what Chromium sends: the server sees the page's request, compression offered included */
const PAGE_HEADERS = { 'accept-encoding': 'gzip, deflate, br, zstd' };

/**
 * Wait (at most 60 s) until the server lists no language server as starting and the machine has been
 * near idle (under 0.2 cores busy over half a second): the started server has loaded its project.
 */
async function languageServerSettled(clamp: Awaited<ReturnType<typeof startClamp>>): Promise<{ text: string }> {
  const t0 = performance.now();
  const until = t0 + 60_000;
  let states = '';
  while (performance.now() < until) {
    const r = await clamp.api('/api/settings/diagnostics');
    const view = (await r.json()) as DiagnosticsSettingsView;
    states = view.servers.map((x) => `${x.name} ${x.state}`).join(', ');
    if (!view.servers.some((x) => x.state === 'starting')) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  while (performance.now() < until) {
    const b0 = machineBusyMs();
    await new Promise((res) => setTimeout(res, 500));
    const b1 = machineBusyMs();
    if (b0 === null || b1 === null || b1 - b0 < 0.2 * 500) break;
  }
  return { text: `${states || 'none listed'} and the machine idle, after ${((performance.now() - t0) / 1000).toFixed(1)} s` };
}

function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** CPU time (user + system, ms) a process has used so far, from /proc; null where there is none. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, in clock ticks of 1/100 s (USER_HZ on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}


/** "steps N": N read_file calls, one per step, then a word; anything else: a word at once; summaries: a summary. */
function reply(req: FakeRequest, index: number): FakeReply {
  if (!req.body.tools) return { text: 'Summary: the files were read.' };
  const { text, results } = position(req);
  const m = /steps (\d+)/.exec(text);
  const want = m ? Number(m[1]) : 0;
  // "slow": a model that takes a while before its first chunk, as a real one does
  const delayMs = text.includes('slow') ? modelDelayMs(index) : 0;
  if (results < want) return { toolCalls: [{ name: 'read_file', args: { path: 'src/small.ts' }, id: `call_${index}` }], delayMs };
  return { text: 'Done.', delayMs };
}

/** Per step of each session's turn: its model's reply sent → that session's next request (its tool requests, in order). */
function stepIntervals(requests: readonly FakeRequest[]): number[] {
  const tools = requests.filter((r) => r.body.tools);
  const out: number[] = [];
  for (let k = 0; k + 1 < tools.length; k++) out.push(tools[k + 1].arrivedAtMs - tools[k].answeredAtMs!);
  return out;
}

/** How many times the stand-in switched from one session's request to another's (0 when one session ran at a time). */
function switchesOf(requests: readonly FakeRequest[]): number {
  const who = requests.map((r) => position(r).text);
  return who.filter((w, i) => i > 0 && w !== who[i - 1]).length;
}

interface StreamRead {
  chunks: Array<{ at: number; chunk: Record<string, unknown> }>;
}

/** Read a UI message stream, noting when each chunk arrived here. */
async function readTimed(res: Response): Promise<StreamRead> {
  const out: StreamRead = { chunks: [] };
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const at = performance.now();
    rest += dec.decode(value, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const l of lines) if (l.startsWith('data: ') && l !== 'data: [DONE]') out.chunks.push({ at, chunk: JSON.parse(l.slice(6)) as Record<string, unknown> });
  }
  return out;
}

export const turnBench: Benchmark = {
  name: 'turn',
  title: `Clamp's own time per turn: Enter → the model request, and each of ${STEPS} steps → the next request`,
  peer: 'the same request body POSTed from this process straight to the stand-in model server (the loopback floor)',
  async run(log) {
    const root = scratchDir('turn');
    const workspace = path.join(root, 'ws');
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src/small.ts'), 'export const answer = 42;\nexport const question = "?";\n');
    const fake = await startFakeOpenAI(reply);
    log('  starting the server (a page build first when the sources changed) …');
    const clamp = await startClamp({
      CLAMP_WORKSPACE: workspace, CLAMP_DATA_DIR: dataDir,
      CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_MAX_STEPS: String(STEPS + 20),
    });
    try {
      const newSession = async () => {
        const r = await clamp.api('/api/sessions', { json: { title: 'bench turn' } });
        if (r.status !== 201) throw new Error(`POST /api/sessions answered ${r.status}: ${await r.text()}`);
        return ((await r.json()) as { session: { id: string } }).session.id;
      };
      let msgNo = 0;
      /** One turn: POST the user message, read the stream to the end; the requests it caused. */
      const turn = async (sessionId: string, text: string) => {
        const first = fake.requests.length;
        const t0 = performance.now();
        const res = await clamp.api('/api/chat', { json: { sessionId, message: { id: `bench-u${++msgNo}`, text } }, headers: PAGE_HEADERS });
        if (res.status !== 200) throw new Error(`POST /api/chat answered ${res.status}: ${await res.text()}`);
        const stream = await readTimed(res);
        const last = stream.chunks.at(-1)?.chunk;
        if (last?.type !== 'finish') throw new Error(`the turn did not finish: last chunk ${JSON.stringify(last)}`);
        const requests = fake.requests.slice(first);
        if (requests.length === 0) throw new Error('the turn sent no model request');
        return { t0, requests, stream, enterMs: requests[0].arrivedAtMs - t0, encoding: res.headers.get('content-encoding') };
      };
      /** The loopback floor: the body Clamp sent, POSTed from here, to its first byte at the stand-in. */
      const bare = async (body: FakeRequest['body']) => {
        const first = fake.requests.length;
        const t0 = performance.now();
        const res = await fetch(`${fake.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await res.text();
        return fake.requests[first].arrivedAtMs - t0;
      };

      // warm-up: the routes' first compile and the provider's first connection are not what a person feels per turn
      const warm = await newSession();
      await turn(warm, 'hello');
      await turn(warm, 'steps 3');
      // its reads of src/small.ts started the TypeScript language server (diagnostics are on by default):
      // a one-time cold start, measured by the diagnostics benchmark, that is not a per-turn cost either
      const settled = await languageServerSettled(clamp);
      log(`  the language server the warm-up started: ${settled.text}`);

      log(`  Enter → model request in a fresh session, ${REPEATS} rounds alternating with the bare POST …`);
      const freshMs: number[] = [];
      const bareMs: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        const s = await newSession();
        const order = i % 2 ? ['bare', 'clamp'] : ['clamp', 'bare'];
        let body: FakeRequest['body'] | null = fake.requests.at(-1)!.body;
        for (const who of order) {
          if (who === 'clamp') {
            const t = await turn(s, 'hello');
            freshMs.push(t.enterMs);
            body = t.requests[0].body;
          } else if (body) {
            bareMs.push(await bare(body));
          }
        }
      }

      log(`  one turn of ${STEPS} steps (read_file each) …`);
      const long = await newSession();
      const cpuBefore = cpuMs(clamp.proc.pid);
      const big = await turn(long, `steps ${STEPS}`);
      const cpuAfter = cpuMs(clamp.proc.pid);
      const cpuPerStepMs = cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / STEPS : null;
      const toolSteps = big.requests.filter((r) => r.body.tools);
      const summaries = big.requests.length - toolSteps.length;
      if (toolSteps.length !== STEPS + 1) throw new Error(`expected ${STEPS + 1} model requests with tools, got ${toolSteps.length}`);
      const stepMs: number[] = [];
      for (let k = 0; k + 1 < toolSteps.length; k++) stepMs.push(toolSteps[k + 1].arrivedAtMs - toolSteps[k].answeredAtMs!);
      // the page's view: the tool result on the chat stream → the next request
      const resultAt = new Map<string, number>();
      for (const { at, chunk } of big.stream.chunks) if (chunk.type === 'tool-output-available') resultAt.set(String(chunk.toolCallId), at);
      const pageMs: number[] = [];
      const shownMs: number[] = [];
      toolSteps.forEach((r, k) => {
        const at = resultAt.get(`call_${fake.requests.indexOf(r)}`);
        if (at !== undefined && toolSteps[k + 1]) pageMs.push(toolSteps[k + 1].arrivedAtMs - at);
        if (at !== undefined) shownMs.push(at - r.answeredAtMs!);
      });
      if (shownMs.length !== STEPS) throw new Error(`the chat stream carried ${shownMs.length} of the ${STEPS} tool results`);

      log(`  Enter → model request in the session of ${STEPS} steps, ${REPEATS} rounds …`);
      const longMs: number[] = [];
      const longBareMs: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        const t = await turn(long, 'hello');
        longMs.push(t.enterMs);
        longBareMs.push(await bare(t.requests[0].body));
      }
      const longBody = JSON.stringify(fake.requests.at(-1)!.body).length;

      log(`  one session's turn of ${CONCURRENT_STEPS} steps alone, then ${CONCURRENT_SESSIONS} sessions' at once …`);
      const concurrent = await oneVsMany(newSession, turn);
      log(`  the same with a model that takes ${MODEL_RANGE} to its first chunk …`);
      const realistic = await oneVsMany(newSession, turn, true);

      const row = (what: string, xs: number[], peer: number[] | null) => [
        what, String(xs.length), fmtMs(median(xs)), fmtMs(percentile(xs, 95)), fmtMs(Math.max(...xs)),
        peer ? fmtMs(median(peer)) : '—', peer ? fmtMs(median(xs) - median(peer)) : '—',
      ];
      const targets: Target[] = [
        { what: 'Enter → model request, fresh session: p95', target: `≤ ${TARGET_MS} ms`, measured: fmtMs(percentile(freshMs, 95)), met: percentile(freshMs, 95) <= TARGET_MS },
        { what: `Enter → model request, session of ${STEPS} steps: p95`, target: `≤ ${TARGET_MS} ms`, measured: fmtMs(percentile(longMs, 95)), met: percentile(longMs, 95) <= TARGET_MS },
        { what: `reply sent → next request, per step over ${STEPS} steps: p95`, target: `≤ ${TARGET_MS} ms`, measured: fmtMs(percentile(stepMs, 95)), met: percentile(stepMs, 95) <= TARGET_MS },
        { what: `reply sent → its tool result on the page's stream, per step over ${STEPS} steps: p95`, target: `≤ ${TARGET_MS} ms`, measured: fmtMs(percentile(shownMs, 95)), met: percentile(shownMs, 95) <= TARGET_MS },
        realistic.target,
      ];
      return {
        tables: [{
          title: `Clamp's own time (server process; the model answers at once), median / p95 / max; the peer is the bare POST of the same body`,
          head: ['interval', 'samples', 'median', 'p95', 'max', 'bare POST (median)', 'Clamp over the floor (median)'],
          rows: [
            row('Enter → model request, fresh session', freshMs, bareMs),
            row(`Enter → model request, session of ${STEPS} steps`, longMs, longBareMs),
            row('model reply sent → next request, per step', stepMs, null),
            row('model reply sent → its tool result on the chat stream, per step', shownMs, null),
            row('tool result seen on the chat stream → next request, per step (negative: seen after it)', pageMs, null),
          ],
        }, { ...concurrent.table, rows: [...concurrent.table.rows, ...realistic.table.rows] }],
        targets,
        notes: [
          `Server: bin/clamp.mjs (next start) with CLAMP_MODEL=openai-compatible:fake-coder against test/fake-openai.ts on loopback, default mode; the chat route is POSTed as the page does ({ sessionId, message: { id, text } }) and its stream read to the end. "Model request" is the first byte (headers) of the provider's request at the stand-in.`,
          `Per step: the model asks for read_file of a ${fs.statSync(path.join(workspace, 'src/small.ts')).size}-byte file at every step; the interval runs from the stand-in having sent its whole reply to the next request's first byte, so it holds the SDK parsing the reply, dispatch and the tool, storing the step, the context keeper and converting the conversation for the provider. ${summaries ? `${summaries} summary request(s) came in this turn.` : 'No compaction happened in this turn.'}`,
          `The last two rows are the page's view: this process reads the chat route's stream as the page does, sending the page's Accept-Encoding (${PAGE_HEADERS['accept-encoding']}; the stream came back ${big.encoding ? `${big.encoding}-encoded` : 'uncompressed'}), and notes when each tool result arrived: after the model's reply that asked for it (the tool runs in between), and before the next model request (a negative value: after it, the delay being in the stream between the server and the page, not in the server's step).`,
          ...(cpuPerStepMs !== null ? [`The server process used ${fmtMs(cpuPerStepMs)} of CPU per step over the ${STEPS}-step turn (user + system time from /proc, all its threads; less sensitive to other load than the intervals above).`] : []),
          concurrent.note,
          `The last two rows repeat that comparison with a stand-in model that takes ${MODEL_RANGE} from each request to its first chunk (drawn per request), as a real model does; the interval measured is the same (the reply sent → the next request), so the model's time is not in it, but while one session's model thinks the others' steps run. The target is on these rows: a person runs several sessions against models that think. With the model answering at once (the first two rows, ${(median(concurrent.atOnceMs) / median(concurrent.aloneMs)).toFixed(2)}×) every interval is the server's CPU and nothing else, so three sessions on ${os.availableParallelism()} cores cannot come under ${(CONCURRENT_SESSIONS / Math.min(CONCURRENT_SESSIONS, os.availableParallelism())).toFixed(1)}× even if their steps ran in parallel perfectly: that row measures how the one server thread shares itself, not what a person waits.`,
          `The session of ${STEPS} steps sends a ${Math.round(longBody / 1024)} KB request body. A warm-up turn and a 3-step turn ran first (the routes' first compile is not a per-turn cost); the 3-step turn's reads of a .ts file started the TypeScript language server, and timing began once it was ${settled.text} (its cold start is the diagnostics benchmark's figure; while it starts, it competes for the 2 cores with the steps).`,
        ],
        data: { freshMs, bareMs, longMs, longBareMs, stepMs, shownMs, pageMs, cpuPerStepMs, aloneMs: concurrent.aloneMs, atOnceMs: concurrent.atOnceMs, modelMs: [MODEL_MIN_MS, MODEL_MAX_MS], aloneSlowModelMs: realistic.aloneMs, atOnceSlowModelMs: realistic.atOnceMs },
      };
    } finally {
      await clamp.stop();
      await fake.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};

type TurnFn = (sessionId: string, text: string) => Promise<{ requests: FakeRequest[] }>;

/**
 * The per-step overhead of one session's turn alone, then of CONCURRENT_SESSIONS sessions' turns started together
 * (each reply sent → the same session's next request), and whether the stand-in saw their requests interleave.
 */
async function oneVsMany(newSession: () => Promise<string>, turn: TurnFn, thinking = false): Promise<{ table: Table; target: Target; note: string; aloneMs: number[]; atOnceMs: number[] }> {
  const text = (tag: string) => `steps ${CONCURRENT_STEPS} ${thinking ? 'slow ' : ''}${tag}`;
  const model = thinking ? `, model ${MODEL_RANGE} to its first chunk` : ', model answering at once';
  const alone = await turn(await newSession(), text('alone'));
  const aloneMs = stepIntervals(alone.requests);
  const ids = await Promise.all(Array.from({ length: CONCURRENT_SESSIONS }, () => newSession()));
  const turns = await Promise.all(ids.map((id, k) => turn(id, text(`s${k + 1}`))));
  const perSession = turns.map((t, k) => t.requests.filter((r) => position(r).text === text(`s${k + 1}`)));
  const atOnceMs = perSession.flatMap(stepIntervals);
  const all = perSession.flat().sort((a, b) => a.arrivedAtMs - b.arrivedAtMs);
  const ratio = median(atOnceMs) / median(aloneMs);
  const p95Ratio = percentile(atOnceMs, 95) / percentile(aloneMs, 95);
  const row = (what: string, xs: number[]) => [what, String(xs.length), fmtMs(median(xs)), fmtMs(percentile(xs, 95)), fmtMs(Math.max(...xs))];
  return {
    aloneMs,
    atOnceMs,
    table: {
      title: `Per-step overhead with ${CONCURRENT_SESSIONS} sessions running at once vs one alone (model reply sent → that session's next request), median / p95 / max`,
      head: ['sessions running', 'samples', 'median', 'p95', 'max'],
      rows: [row(`1 (alone)${model}`, aloneMs), row(`${CONCURRENT_SESSIONS} at once (every session's steps)${model}`, atOnceMs)],
    },
    target: { what: `per-step overhead, ${CONCURRENT_SESSIONS} sessions at once ÷ one alone (medians${model})`, target: `≤ ${CONCURRENT_MAX_RATIO}×`, measured: `${ratio.toFixed(2)}× (p95s: ${p95Ratio.toFixed(2)}×)`, met: ratio <= CONCURRENT_MAX_RATIO },
    note: `One session's turn of ${CONCURRENT_STEPS} read_file steps ran alone, then ${CONCURRENT_SESSIONS} new sessions' turns of ${CONCURRENT_STEPS} steps were POSTed together; each interval runs from the stand-in having sent a session's reply to that session's next request. The stand-in switched from one session's request to another's ${switchesOf(all)} times in the ${all.length} requests of the three turns (one at a time would switch ${CONCURRENT_SESSIONS - 1} times).`,
  };
}
