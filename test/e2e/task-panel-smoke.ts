/**
 * Browser smoke run of the task panel and the output viewer (not a vitest file).
 * Starts the real launcher with a scripted model in auto mode on a temp workspace; one chat turn
 * starts three background tasks (a 100,000-line coloured log that then ticks, a failing one, a slow
 * server). Drives headless Debian Chromium: the panel fills live over SSE, the viewer opens on the
 * 100,000-line log, scrolling is timed, jump to start/end, following, Esc and focus return, Kill,
 * and a reload. Saves /tmp/tasks-*.png and prints measurements.
 * Run: npx tsx test/e2e/task-panel-smoke.ts   (CLAMP_E2E_PORT, CLAMP_E2E_OUT to change port and folder)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const PORT = Number(process.env.CLAMP_E2E_PORT ?? 4320);
const OUT = process.env.CLAMP_E2E_OUT ?? '/tmp';
const BASE = `http://127.0.0.1:${PORT}`;

function script(): unknown {
  const ticks = Array.from({ length: 240 }, (_, i) => i + 1).join(' ');
  const big =
    `awk 'BEGIN{for(i=1;i<=100000;i++) printf "\\033[32mline %d\\033[0m \\033[2mok\\033[0m\\n", i}'; ` +
    `for i in ${ticks}; do echo "tick $i"; sleep 1; done`;
  const server = `for i in ${ticks}; do echo "server: request $i served"; sleep 2; done`;
  return [
    {
      text: 'Starting three background tasks.',
      toolCalls: [
        { name: 'run_command', args: { command: big, background: true } },
        { name: 'run_command', args: { command: "echo building; echo 'error: something failed' >&2; exit 3", background: true } },
        { name: 'run_command', args: { command: server, background: true } },
      ],
    },
    { text: 'Three tasks are running in the background.' },
    { text: 'A big output.', toolCalls: [{ name: 'run_command', args: { command: 'seq 1 1000000' } }] },
    { text: 'That printed a million lines.' },
  ];
}

async function waitForServer(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10 * 60_000; // a first start builds the page
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the launcher exited with ${child.exitCode}`);
    try {
      await fetch(`${BASE}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error('the server did not start in 10 minutes');
}

const log = (...a: unknown[]) => console.log('·', ...a);

async function shot(page: Page, name: string, target?: string) {
  const file = path.join(OUT, `tasks-${name}.png`);
  if (target) await page.locator(target).first().screenshot({ path: file });
  else await page.screenshot({ path: file });
  log('screenshot', file);
}

/** Run one chat turn from inside the page (same origin, the cookie rides along); a new session when none is given. */
async function chatTurn(page: Page, text: string, sessionId?: string): Promise<{ sessionId: string; stream: string }> {
  return page.evaluate(
    async ([text, sessionId]) => {
      const post = (url: string, body: unknown) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      let id = sessionId;
      if (!id) {
        const s = (await (await post('/api/sessions', { title: 'tasks smoke' })).json()) as { id?: string; session?: { id: string } };
        id = (s.id ?? s.session?.id) as string;
      }
      const r = await post('/api/chat', { sessionId: id, message: { id: `u${Date.now()}`, role: 'user', parts: [{ type: 'text', text }] } });
      return { sessionId: id, stream: `${r.status} ${await r.text()}` };
    },
    [text, sessionId] as const,
  );
}

/** The text of the row at the top of the viewer's visible area. */
async function topRow(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.querySelector<HTMLElement>('[role="dialog"] [role="region"]');
    if (!el) return '';
    const top = el.getBoundingClientRect().top;
    const rows = [...el.querySelectorAll<HTMLElement>('div.absolute')];
    const row = rows.find((r) => r.getBoundingClientRect().bottom > top + 1);
    return row?.innerText.replace(/\s+/g, ' ').trim() ?? '';
  });
}

/**
 * Time scrolling the viewer: a scroll, then two animation frames (the frame that renders it and the
 * next), against the same wait with no scroll. Wheel-like steps (600 px) and long jumps across the log.
 */
async function timeScroll(page: Page) {
  return page.evaluate(async () => {
    const el = document.querySelector<HTMLElement>('[role="dialog"] [role="region"]');
    if (!el) throw new Error('no scroll region in the dialog');
    const frames = () => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    const run = async (n: number, move: (i: number) => void) => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        move(i);
        await frames();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const pick = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]);
      return { p50: pick(0.5), p95: pick(0.95), max: pick(1) };
    };
    const baseline = await run(40, () => undefined);
    el.scrollTop = el.scrollHeight / 3;
    const wheel = await run(80, () => {
      el.scrollTop += 600;
    });
    const jumps = await run(40, (i) => {
      el.scrollTop = (el.scrollHeight * ((i * 37) % 40)) / 40;
    });
    const rows = el.querySelectorAll('div.absolute').length;
    return { baselineMs: baseline, wheelMs: wheel, jumpMs: jumps, rowsInDom: rows, scrollHeightPx: el.scrollHeight };
  });
}

async function main() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-tasks-ws-'));
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-tasks-data-'));
  const scriptFile = path.join(data, 'script.json');
  fs.writeFileSync(scriptFile, JSON.stringify(script()));
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs')], {
    cwd: ROOT,
    env: { ...process.env, CLAMP_WORKSPACE: ws, CLAMP_DATA_DIR: data, CLAMP_PORT: String(PORT), CLAMP_TOKEN: 't', CLAMP_MODE: 'auto', CLAMP_MODEL: `scripted:${scriptFile}`, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  try {
    await waitForServer(child);
    page.on('pageerror', (e) => log('PAGE ERROR', e.message));
    // tsx compiles the callbacks given to page.evaluate with esbuild's __name helper; the page lacks it
    await page.addInitScript('window.__name = (f) => f');
    await page.goto(`${BASE}/?token=t`);
    const panel = page.locator('section[aria-labelledby="task-panel-title"]');
    await panel.waitFor();
    await page.getByText('No background tasks').waitFor();

    const { sessionId, stream: chat } = await chatTurn(page, 'start the tasks');
    if (!chat.includes('Started background task')) {
      const outputs = chat.split('\n').filter((l) => /tool-output|"error"|approval/.test(l));
      log('the chat turn did not start the tasks:', chat.slice(0, 200), outputs.map((l) => l.slice(0, 400)));
    }
    // the panel fills from the event stream, without a reload
    await panel.getByText('exit 3', { exact: true }).waitFor({ timeout: 20_000 });
    await panel.getByText('server: request 2 served').waitFor({ timeout: 20_000 });
    await panel.getByText(/tick \d+/).first().waitFor({ timeout: 30_000 });
    await shot(page, 'panel', 'section[aria-labelledby="task-panel-title"]');
    await shot(page, 'page');

    // the viewer on the 100,000-line log
    const open = panel.getByRole('button', { name: /Open the full log of awk/ });
    const t0 = Date.now();
    await open.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByText(/lines [\d,]+–[\d,]+ of/).waitFor({ timeout: 30_000 });
    log('viewer opened at the end in', Date.now() - t0, 'ms:', await dialog.locator('header p').innerText());
    await page.waitForTimeout(2500);
    const following = await dialog.locator('header p').innerText();
    log('after 2.5 s (following):', following, '| last row:', await dialog.locator('[role="region"] div.absolute').last().innerText());
    await shot(page, 'viewer-end');
    log('scroll timing', await timeScroll(page));

    await dialog.getByRole('button', { name: 'Jump to start' }).click();
    await dialog.getByText(/^lines 1–/).waitFor({ timeout: 10_000 });
    log('after Jump to start:', await dialog.locator('header p').innerText());
    await shot(page, 'viewer-start');
    await dialog.getByRole('button', { name: 'Jump to end' }).click();
    await page.waitForTimeout(500);
    log('after Jump to end:', await dialog.locator('header p').innerText());

    // keyboard: Tab stays inside, Esc closes, focus goes back to the button that opened it
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
    log('focus after 6 Tabs is inside the dialog:', await page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]')));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    log('focus returned to the opener:', await page.evaluate(() => document.activeElement?.getAttribute('aria-label')));

    // Kill the slow server
    await panel.getByRole('button', { name: /^Kill for i in .*server/ }).click();
    await panel.getByText('killed', { exact: true }).waitFor({ timeout: 15_000 });
    log('killed; panel says:', (await panel.locator('h2 + span').innerText()).trim());
    await shot(page, 'panel-killed', 'section[aria-labelledby="task-panel-title"]');

    // a reload keeps every task (the list comes from the server) and refills the tails from the logs
    await page.reload();
    await panel.getByText('exit 3', { exact: true }).waitFor({ timeout: 20_000 });
    await panel.getByText(/tick \d+/).first().waitFor({ timeout: 20_000 });
    log('after reload:', (await panel.locator('h2 + span').innerText()).trim());
    await shot(page, 'panel-reloaded', 'section[aria-labelledby="task-panel-title"]');

    // a spilled 1,000,000-line output in the same viewer (kind 'file', opened from the chat's truncation note)
    await chatTurn(page, 'print a million lines', sessionId);
    await page.goto(`${BASE}/?s=${sessionId}`);
    await page.getByRole('button', { name: 'Open full output' }).first().click();
    const fileDialog = page.getByRole('dialog');
    await fileDialog.getByText(/^lines 1–/).waitFor({ timeout: 20_000 });
    log('file viewer opened:', await fileDialog.locator('header p').innerText());
    await shot(page, 'file-viewer');
    await fileDialog.getByRole('button', { name: 'Jump to end' }).click();
    await fileDialog.getByText(/loaded from the end/).waitFor({ timeout: 20_000 });
    log('file viewer at the end:', await fileDialog.locator('header p').innerText(), '| top row:', await topRow(page));
    await shot(page, 'file-viewer-end');
    // scroll to the top of what is loaded: the page above is prepended and the view stays on the same lines
    await page.evaluate(async () => {
      const el = document.querySelector<HTMLElement>('[role="dialog"] [role="region"]');
      if (el) el.scrollTop = 0;
      await new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    });
    const before = await topRow(page);
    await page.waitForTimeout(1500);
    const after = await topRow(page);
    log('prepend keeps the view:', before === after ? 'yes' : 'NO', `(${before} → ${after});`, await fileDialog.locator('header p').innerText());
    await page.keyboard.press('Escape');
  } catch (err) {
    await shot(page, 'failure').catch(() => undefined);
    throw err;
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
