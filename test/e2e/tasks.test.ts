/**
 * End-to-end: the live task panel, a truncated output and its viewer, and the door without the
 * token, in headless Chromium against the real launcher and a fake OpenAI-compatible model.
 * One server for the file, one session per test.
 */
import { spawnSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { approvalFor, card, createSession, screenshot, send, unique, waitIdle } from './browser';
import { scriptedReplies, tagOf, toolResults } from './scenarios';
import { e2eSuite } from './suite';

const marker = unique('e2e-devserver');
// a tiny dev server: listens on loopback, warns once on stderr and prints a numbered line every 200 ms; the marker names its process
const DEV_SERVER =
  `node -e "const h=require('http');let i=0;const s=h.createServer((q,r)=>r.end('ok'));` +
  `s.listen(0,'127.0.0.1',()=>{console.log('listening on '+s.address().port);console.error('warn: '+'dev build')});` +
  `setInterval(()=>console.log('tick '+(++i)),200)" ${marker}`;
const BIG_LINES = 200_000;

const scripts = {
  devserver: [
    { text: 'Starting the dev server in the background.', toolCalls: [{ name: 'run_command', args: { command: DEV_SERVER, background: true }, id: 'bg-run' }] },
    { text: 'The dev server runs in the background.' },
  ],
  big: [{ text: 'Printing the numbers.', toolCalls: [{ name: 'run_command', args: { command: `seq 1 ${BIG_LINES}` }, id: 'big-run' }] }, { text: 'That printed many lines.' }],
};

const s = e2eSuite('clamp-e2e-tasks-', { 'README.md': '# Demo\n' }, scriptedReplies(scripts));

/** Process ids whose command line holds the marker (our dev server only). */
function pids(word: string): number[] {
  const r = spawnSync('pgrep', ['-f', word], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

/** The highest "tick N" in the panel's tail, or 0. */
async function lastTick(page: Page): Promise<number> {
  const text = await page.locator('section[aria-labelledby="task-panel-title"] [role="log"]').first().innerText();
  return Math.max(0, ...[...text.matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
}

/**
 * Scroll the viewer toward the line whose text is `target` (seq prints each line's number), loading
 * pages as the view reaches an edge. True once that line is on screen.
 */
async function seekLine(page: Page, target: number): Promise<boolean> {
  return page.evaluate((target) => {
    const el = document.querySelector<HTMLElement>('[role="dialog"] [role="region"]');
    if (!el) return false;
    const box = el.getBoundingClientRect();
    const rows = [...el.querySelectorAll<HTMLElement>('div.absolute')]
      .filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
      })
      .map((r) => Number(r.lastElementChild?.textContent ?? NaN))
      .filter((n) => Number.isFinite(n));
    if (rows.includes(target)) return true;
    if (rows.length === 0) return false;
    // rows are 20 px high (virtual-lines.tsx); aim a few lines above the target
    el.scrollTop += (target - rows[0] - 5) * 20;
    return false;
  }, target);
}

describe('background tasks and big outputs in the browser', () => {
  it('a background dev server: the task panel shows its output live, and Kill ends it', { timeout: 90_000 }, async () => {
    const { page } = await s.start('dev server');
    const panel = page.locator('section[aria-labelledby="task-panel-title"]');
    await send(page, '[e2e:devserver] Start the dev server.');
    const bar = await approvalFor(page, 'bg-run');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The dev server runs in the background.').waitFor({ timeout: 30_000 });
    await expect(card(page, 'bg-run').innerText()).resolves.toMatch(/Started background task/);

    await panel.getByText(/listening on \d+/).waitFor({ timeout: 20_000 });
    await expect.poll(() => lastTick(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    const first = await lastTick(page);
    await screenshot(page, 'tasks-devserver-live');
    // new lines arrive over the event stream, with no reload
    await expect.poll(() => lastTick(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(first + 5);
    await screenshot(page, 'tasks-devserver-live-later');
    await expect(panel.innerText()).resolves.toMatch(/1 running · 1 in all/);
    expect(pids(marker).length).toBeGreaterThan(0);

    await panel.getByRole('button', { name: /^Kill node -e/ }).click();
    await panel.getByText('killed', { exact: true }).waitFor({ timeout: 15_000 });
    await expect.poll(() => pids(marker), { timeout: 15_000 }).toEqual([]);
    await expect(panel.innerText()).resolves.toMatch(/0 running · 1 in all/);
    await expect(panel.getByRole('button', { name: /^Kill / }).count()).resolves.toBe(0);
    await screenshot(page, 'tasks-devserver-killed');

    // its whole log (small enough to fit one page) opens in the viewer: both streams first, as a terminal shows them
    await panel.getByRole('button', { name: /^Open the full log of node -e/ }).click();
    const viewer = page.getByRole('dialog');
    const pressed = (name: string) => viewer.getByRole('button', { name, exact: true }).getAttribute('aria-pressed');
    await viewer.getByText(/listening on \d+/).waitFor({ timeout: 15_000 });
    await expect(pressed('both')).resolves.toBe('true');
    // the warning came before any tick (the first tick is 200 ms later); the command line in the title spells it differently
    await expect(viewer.innerText()).resolves.toMatch(/warn: dev build[\s\S]*tick \d+/);
    // then each stream alone
    await viewer.getByRole('button', { name: 'stderr', exact: true }).click();
    await expect(pressed('stderr')).resolves.toBe('true');
    await expect(pressed('both')).resolves.toBe('false');
    await viewer.getByText('warn: dev build').waitFor({ timeout: 15_000 });
    await expect.poll(() => viewer.innerText(), { timeout: 15_000 }).not.toMatch(/tick \d+/);
    await viewer.getByRole('button', { name: 'stdout', exact: true }).click();
    await expect(pressed('stdout')).resolves.toBe('true');
    await viewer.getByText(/tick \d+/).first().waitFor({ timeout: 15_000 });
    await expect(viewer.innerText()).resolves.not.toMatch(/warn: dev build/);
    await viewer.getByRole('button', { name: 'both', exact: true }).click();
    await expect(pressed('both')).resolves.toBe('true');
    await viewer.getByText('warn: dev build').waitFor({ timeout: 15_000 });
    // a finished log that fits one page is shown whole, never left "loading…"
    await expect.poll(() => viewer.innerText(), { timeout: 15_000 }).not.toMatch(/loading…/);
    await screenshot(page, 'tasks-devserver-log');
    await page.keyboard.press('Escape');
  });

  it('a truncated output: the note is on the card, and the viewer shows lines the model did not get', { timeout: 90_000 }, async () => {
    const { page } = await s.start('big output');
    await send(page, '[e2e:big] Print the numbers.');
    await page.getByText('That printed many lines.').waitFor({ timeout: 30_000 });
    await waitIdle(page);

    const seen = s.fake.requests.filter((r) => tagOf(r) === 'big').flatMap(toolResults).join('\n');
    // the model got the end of the output (and a note); line 150,000 was cut
    expect(seen.includes('\n199999\n200000\n'), 'the model saw the last lines').toBe(true);
    expect(/(^|\n)150000\n/.test(seen), 'the model saw line 150000').toBe(false);
    expect(seen).toMatch(/lines omitted/);
    const note = card(page, 'big-run').getByRole('note').first();
    await expect(note.innerText()).resolves.toMatch(/model saw [\d.]+ KB of [\d.]+ MB · [\d,]+ lines omitted/);
    await note.scrollIntoViewIfNeeded();
    await screenshot(page, 'tasks-truncation-note');

    await note.getByRole('button', { name: 'Open full output' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(/^lines 1–/).waitFor({ timeout: 20_000 });
    await screenshot(page, 'tasks-viewer-start');
    await expect.poll(() => seekLine(page, 150_000), { timeout: 30_000, interval: 100 }).toBe(true);
    const header = await dialog.locator('header p').innerText();
    expect(header).toMatch(/150,0\d\d/);
    await screenshot(page, 'tasks-viewer-line-150000');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('the page without the token gets no data', { timeout: 60_000 }, async () => {
    const secret = unique('secret-session');
    await createSession(s.clamp, secret);
    const sessionCount = async () => ((await (await s.clamp.api('/api/sessions')).json()) as { sessions: unknown[] }).sessions.length;
    const before = await sessionCount();
    const stranger = await s.browser.newContext();
    const page = await stranger.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    const res = await page.goto(`${s.clamp.base}/`);
    expect(res?.status()).toBe(401);
    const body = await page.evaluate(() => document.documentElement.outerHTML);
    expect(body).not.toContain(secret);
    expect(body).not.toContain(s.ws.workspace);
    await expect(page.locator('#chat-input').count()).resolves.toBe(0);
    await screenshot(page, 'door-no-token');

    const statuses = await page.evaluate(async () => {
      const out: Record<string, number> = {};
      for (const p of ['/api/sessions', '/api/status', '/api/tasks', '/api/settings', '/api/rules']) out[p] = (await fetch(p)).status;
      const post = await fetch('/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      out['POST /api/sessions'] = post.status;
      return out;
    });
    expect(statuses).toEqual({ '/api/sessions': 401, '/api/status': 401, '/api/tasks': 401, '/api/settings': 401, '/api/rules': 401, 'POST /api/sessions': 401 });
    const wrong = await page.goto(`${s.clamp.base}/?token=not-the-token`);
    expect(wrong?.status()).toBe(401);
    expect(await page.content()).not.toContain(secret);
    expect(await stranger.cookies()).toEqual([]);
    // the refused POST created nothing
    expect(await sessionCount()).toBe(before);
    await stranger.close();
    expect(errors).toEqual([]);
  });
});
