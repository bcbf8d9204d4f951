/**
 * In Chromium, against the real server (bin/clamp.mjs, scripted model, auto mode):
 * 1. latency from a tool's output on the server to its appearance on the page: a background
 *    run_command prints `mark-<i>@<epoch ms>` lines (node -e, stamped as printed); the page records when each reaches its own
 *    EventSource on /api/tasks/events (the peer: the transport alone) and when it shows up in the
 *    task panel's DOM, and the next animation frame after that (Clamp's page);
 * 2. the 100,000-line log in the output viewer: click to the last line on screen, and scrolling,
 *    against the same lines in one plain <pre> (the peer: what a page without a viewer does);
 * 3. a stored session of 1,000 tool calls against one of 10: open and scroll (bench/browser-long.ts).
 *
 * The page clock (Date.now in Chromium) and the command's Date.now read the same host clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { longSessionTable, seedLongSessions } from './browser-long';
import { type Benchmark, type Table, type Target, fmtMs, fmtRatio, median, REPO_DIR, scratchDir } from './lib';

const MARKS = 40;
const MARK_GAP_S = 0.25;
const LOG_LINES = 100_000;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const SERVER_START_MAX_MS = 10 * 60_000;
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

// a script in the workspace stamps each line with the host clock as it prints it (inline code and $(…)
// cannot be judged by command safety, so auto mode would refuse them)
// it lingers a second after the last line: the panel folds a finished task's row, so a line printed as
// the task exits is not on the page to be seen
const MARK_SCRIPT = `let i = 0;\nconst t = setInterval(() => {\n  console.log('mark-' + ++i + '@' + Date.now());\n  if (i === ${MARKS}) { clearInterval(t); setTimeout(() => {}, 1000); }\n}, ${MARK_GAP_S * 1000});\n`;
const MARK_CMD = 'sleep 3 && node marks.mjs';
const LOG_CMD = `awk 'BEGIN{for(i=1;i<=${LOG_LINES};i++) printf "\\033[32mline %d\\033[0m ok\\n", i}'`;
const LAST_LINE = `line ${LOG_LINES} ok`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForServer(child: ChildProcess, base: string, output: () => string): Promise<void> {
  const deadline = Date.now() + SERVER_START_MAX_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${output().slice(-1500)}`);
    try {
      await fetch(`${base}/api/status`, { headers: { authorization: 'Bearer t' } });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`the server did not answer within ${SERVER_START_MAX_MS / 60_000} minutes`);
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};

/** Record, inside the page, when each mark reaches the EventSource, the task panel's DOM, and the next frame. */
async function installMarkProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __marks: Record<string, Record<string, number>> };
    const marks: Record<string, Record<string, number>> = {};
    w.__marks = marks;
    const re = /mark-(\d+)@(\d+)/g;
    const seen = (kind: string, text: string) => {
      const now = Date.now();
      for (const m of text.matchAll(re)) {
        const e = (marks[m[1]] ??= { ts: Number(m[2]) });
        if (e[kind] === undefined) {
          e[kind] = now;
          if (kind === 'dom') requestAnimationFrame(() => (e.paint = Date.now()));
        }
      }
    };
    new EventSource('/api/tasks/events').onmessage = (ev) => seen('sse', ev.data);
    const panel = () => document.querySelector('section[aria-labelledby="task-panel-title"]');
    new MutationObserver(() => seen('dom', panel()?.textContent ?? '')).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** Start the scripted turn from inside the page (same origin; the token cookie rides along). */
async function startTurn(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const s = (await (await post('/api/sessions', { title: 'bench' })).json()) as { id?: string; session?: { id: string } };
    const r = await post('/api/chat', { sessionId: s.id ?? s.session?.id, message: { id: 'u1', text: 'go' } });
    const body = await r.text();
    // the tool results (and any error) are what matters; the stream also carries the inputs and text
    return `${r.status} ${body.split('\n').filter((l) => /tool-output|"error"|approval/.test(l)).join('\n').slice(0, 4000)}`;
  });
}

/** Click "open the full log", wait for the frame in which the last line is on screen; ms. Then close. */
async function openViewer(page: Page, lastLine: string): Promise<number> {
  const ms = await page.evaluate(async (last) => {
    const btn = document.querySelector<HTMLButtonElement>('button[aria-label^="Open the full log of awk"]');
    if (!btn) throw new Error('no "Open the full log" button for the awk task');
    const t0 = performance.now();
    btn.click();
    await new Promise<void>((resolve, reject) => {
      const stop = setTimeout(() => reject(new Error(`the viewer did not show "${last}" in 30 s`)), 30_000);
      const check = () => {
        const d = document.querySelector('[role="dialog"]');
        if (d && d.textContent?.includes(last)) {
          clearTimeout(stop);
          resolve();
        } else requestAnimationFrame(check);
      };
      check();
    });
    return performance.now() - t0;
  }, lastLine);
  await page.keyboard.press('Escape');
  await page.locator('[role="dialog"]').waitFor({ state: 'detached', timeout: 10_000 });
  return ms;
}

/** The peer: the same lines in one plain <pre>, scrolled to the end; ms to the second frame after insertion. */
async function plainPre(page: Page, lines: number): Promise<number> {
  return page.evaluate(async (n) => {
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) parts.push(`line ${i} ok`);
    const text = parts.join('\n');
    const frames = () => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    const t0 = performance.now();
    const pre = document.createElement('pre');
    pre.id = 'bench-pre';
    pre.style.cssText = 'position:fixed;inset:40px;overflow:auto;z-index:9999;margin:0;background:#111;color:#ddd;font:11px monospace';
    pre.textContent = text;
    document.body.appendChild(pre);
    pre.scrollTop = pre.scrollHeight;
    await frames();
    const ms = performance.now() - t0;
    return ms;
  }, lines);
}

/** Scroll timing of a scroll container: 40 jumps across it, each to the second frame after; p50/p95 ms. */
async function scrollFrames(page: Page, selector: string): Promise<{ p50: number; p95: number }> {
  return page.evaluate(async (sel) => {
    const el = document.querySelector<HTMLElement>(sel);
    if (!el) throw new Error(`no ${sel}`);
    const frames = () => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    const times: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      el.scrollTop = (el.scrollHeight * ((i * 37) % 40)) / 40;
      await frames();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { p50: times[20], p95: times[38] };
  }, selector);
}

export const browserBench: Benchmark = {
  name: 'browser',
  title: 'In Chromium: output latency to the page, a 100,000-line log, and a session of 1,000 tool calls',
  peer: 'the page\'s own EventSource on /api/tasks/events (latency); one plain <pre> holding the same lines (log); the same page on a session of 10 tool calls (long session)',
  async run(log) {
    const { chromium } = await import('playwright-core');
    const ws = scratchDir('browser-ws');
    const data = scratchDir('browser-data');
    fs.writeFileSync(path.join(ws, 'marks.mjs'), MARK_SCRIPT);
    const scriptFile = path.join(data, 'script.json');
    fs.writeFileSync(scriptFile, JSON.stringify([
      { text: 'Starting two background tasks.', toolCalls: [
        { name: 'run_command', args: { command: MARK_CMD, background: true } },
        { name: 'run_command', args: { command: LOG_CMD, background: true } },
      ] },
      { text: 'Both tasks are running.' },
    ]));
    const seeded = seedLongSessions(data, ws);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let serverOut = '';
    const t0 = performance.now();
    const server = spawn(process.execPath, [path.join(REPO_DIR, 'bin/clamp.mjs')], {
      cwd: REPO_DIR,
      env: { ...process.env, CLAMP_WORKSPACE: ws, CLAMP_DATA_DIR: data, CLAMP_PORT: String(port), CLAMP_TOKEN: 't', CLAMP_MODE: 'auto', CLAMP_MODEL: `scripted:${scriptFile}`, NEXT_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (b: Buffer) => (serverOut += b.toString()));
    server.stderr?.on('data', (b: Buffer) => (serverOut += b.toString()));
    log(`  server pid ${server.pid} on port ${port} (a first start after source changes builds the page) …`);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const pageErrors: string[] = [];
    try {
      await waitForServer(server, base, () => serverOut);
      const startMs = performance.now() - t0;
      log(`  server up after ${fmtMs(startMs)}`);
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      // tsx compiles page.evaluate callbacks with esbuild's __name helper; the page lacks it
      await page.addInitScript('window.__name = (f) => f');
      await page.goto(`${base}/?token=t`);
      await page.locator('section[aria-labelledby="task-panel-title"]').waitFor({ timeout: 60_000 });
      await installMarkProbe(page);
      const turn = await startTurn(page);
      if ((turn.match(/Started background task/g) ?? []).length < 2) throw new Error(`the scripted turn did not start the tasks: ${turn.slice(0, 600)}; server said: ${serverOut.slice(-1200)}`);
      log(`  turn started; waiting for ${MARKS} marks …`);
      const deadline = Date.now() + 3000 + MARKS * (MARK_GAP_S * 1000 + 200) + 20_000;
      let marks: Record<string, Record<string, number>> = {};
      while (Date.now() < deadline) {
        marks = await page.evaluate(() => (window as unknown as { __marks: Record<string, Record<string, number>> }).__marks);
        if (Object.values(marks).filter((m) => m.paint !== undefined).length >= MARKS) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const got = Object.values(marks);
      const lat = (k: string) => got.filter((m) => m[k] !== undefined).map((m) => m[k] - m.ts);
      const sse = lat('sse');
      const dom = lat('dom');
      const paint = lat('paint');
      if (paint.length === 0) throw new Error(`no mark reached the task panel (EventSource saw ${sse.length} of ${MARKS})`);
      const missing = got.length < MARKS ? MARKS - got.length : 0;
      const notInDom = Object.entries(marks).filter(([, m]) => m.dom === undefined).map(([k]) => k);
      const latRow = (name: string, xs: number[]) => [name, `${xs.length}/${MARKS}`, fmtMs(median(xs)), fmtMs(pct(xs, 0.95)), fmtMs(Math.max(...xs)), fmtRatio(median(xs) / median(sse))];

      log(`  the ${LOG_LINES.toLocaleString('en-US')}-line log: viewer vs plain <pre>, ${REPEATS} rounds …`);
      await page.locator(`button[aria-label^="Open the full log of awk"]`).waitFor({ timeout: 30_000 });
      const viewerMs: number[] = [];
      const preMs: number[] = [];
      for (let r = 0; r < REPEATS + 1; r++) {
        // alternate which goes first; round 0 is a warm-up
        const order = r % 2 ? ['pre', 'viewer'] : ['viewer', 'pre'];
        for (const which of order) {
          if (which === 'viewer') {
            const ms = await openViewer(page, LAST_LINE);
            if (r > 0) viewerMs.push(ms);
          } else {
            const ms = await plainPre(page, LOG_LINES);
            await page.evaluate(() => document.getElementById('bench-pre')?.remove());
            if (r > 0) preMs.push(ms);
          }
        }
      }
      // scrolling, once each: the viewer's list and the <pre>
      await page.locator('button[aria-label^="Open the full log of awk"]').click();
      await page.locator('[role="dialog"]').getByText(LAST_LINE).waitFor({ timeout: 30_000 });
      const viewerScroll = await scrollFrames(page, '[role="dialog"] [role="region"]');
      await page.keyboard.press('Escape');
      await plainPre(page, LOG_LINES);
      const preScroll = await scrollFrames(page, '#bench-pre');
      const long = await longSessionTable(page, base, seeded, REPEATS, log);
      const tables: Table[] = [
        {
          title: `Latency of ${MARKS} lines printed ${MARK_GAP_S * 1000} ms apart by a background run_command, from the command's clock to the page's (ms)`,
          head: ['reached', 'marks', 'median', 'p95', 'max', '÷ EventSource'],
          rows: [latRow('the page\'s EventSource (peer: transport only)', sse), latRow('task panel DOM (Clamp)', dom), latRow('next frame after the DOM change (Clamp)', paint)],
        },
        {
          title: `The ${LOG_LINES.toLocaleString('en-US')}-line log: median of ${REPEATS} alternating rounds after a warm-up`,
          head: ['contender', 'open → last line on screen', 'scroll jump p50', 'scroll jump p95', 'Clamp ÷ <pre> (open)'],
          rows: [
            ['Clamp output viewer (paged over HTTP, virtualised)', fmtMs(median(viewerMs)), fmtMs(viewerScroll.p50), fmtMs(viewerScroll.p95), fmtRatio(median(viewerMs) / median(preMs))],
            ['plain <pre> with all lines (peer)', fmtMs(median(preMs)), fmtMs(preScroll.p50), fmtMs(preScroll.p95), '1.00×'],
          ],
        },
        long.table,
      ];
      const targets: Target[] = long.targets;
      return {
        tables,
        targets,
        notes: [
          `Server: bin/clamp.mjs with a scripted model in auto mode; it answered ${fmtMs(startMs)} after launch (a launch after source changes builds the page first; that time is not in any figure). Chromium: /usr/bin/chromium headless.`,
          `The command (node marks.mjs) stamps each line with Date.now() as it prints it; live output is batched on the server every COMMAND_PROGRESS_INTERVAL_MS before it is published, so the transport figure includes that batching.`,
          '"Open" is timed inside the page from the click to the animation frame in which the last line is in the dialog; the viewer fetches its window over HTTP, the <pre> gets its text already in memory. Scroll: 40 jumps across the list, each timed to the second frame after.',
          ...long.notes,
          ...(missing || notInDom.length ? [`marks never seen: ${missing} not even by the EventSource; not in the panel: ${notInDom.join(', ') || 'none'}.`] : []),
          ...(pageErrors.length ? [`page errors during the run: ${pageErrors.slice(0, 3).join(' | ')}`] : []),
        ],
        data: { marks, viewerMs, preMs, viewerScroll, preScroll, serverStartMs: startMs, longSession: long.data },
      };
    } finally {
      await browser.close();
      server.kill('SIGTERM');
      await new Promise((r) => (server.exitCode !== null ? r(null) : server.once('exit', r)));
      fs.rmSync(ws, { recursive: true, force: true });
      fs.rmSync(data, { recursive: true, force: true });
    }
  },
};
