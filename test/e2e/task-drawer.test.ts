/**
 * End-to-end: below the `lg` breakpoint the task panel is not a column; the header's Tasks button
 * (with the running count) opens the same panel in a modal drawer, whose live tail and Kill work,
 * and the page keeps a single event feed. Headless Chromium against the real launcher and a fake
 * OpenAI-compatible model; one server for the file.
 */
import { describe, expect, it } from 'vitest';
import { screenshot, send, unique } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const marker = unique('e2e-drawer');
// prints a numbered line every 200 ms for a minute (a literal list: the policy refuses $(…)); the marker names it
const TICKER = `for i in ${Array.from({ length: 300 }, (_, i) => i + 1).join(' ')}; do echo tick $i; sleep 0.2; done # ${marker}`;

const scripts = {
  ticker: [
    { text: 'Starting the ticker in the background.', toolCalls: [{ name: 'run_command', args: { command: TICKER, background: true }, id: 'tick-run' }] },
    { text: 'The ticker runs in the background.' },
  ],
};

const s = e2eSuite('clamp-e2e-drawer-', { 'README.md': '# Demo\n' }, scriptedReplies(scripts));

/** Task feeds (EventSources of /api/tasks/events) the page holds open right now, counted by an init script (the board's feed is another). */
declare global {
  interface Window {
    __openFeeds?: number;
  }
}
const COUNT_FEEDS = `(() => {
  const Real = window.EventSource;
  window.__openFeeds = 0;
  window.EventSource = class extends Real {
    constructor(...a) { super(...a); this.task = String(a[0]).includes('/api/tasks/events'); if (this.task) window.__openFeeds++; }
    close() { if (this.task && this.readyState !== 2) window.__openFeeds--; super.close(); }
  };
})()`;

describe('the task drawer on a narrow window', () => {
  it('the Tasks button opens the panel in a drawer with the live tail; Kill works; one feed; wide windows keep the column', { timeout: 90_000 }, async () => {
    await s.ctx.addInitScript(COUNT_FEEDS);
    const { page } = await s.start('drawer');
    await page.setViewportSize({ width: 900, height: 800 });
    const column = page.getByRole('complementary', { name: 'Background tasks' });
    const tasksButton = page.getByRole('button', { name: /^Tasks/ });
    await expect(column.isVisible()).resolves.toBe(false);
    await tasksButton.waitFor();
    // a long model label gives way: the Tasks and Settings buttons stay inside the window
    for (const b of [tasksButton, page.getByRole('button', { name: 'Settings' })]) {
      const box = await b.boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(900);
    }

    await send(page, '[e2e:ticker] Start the ticker.');
    // echo and sleep in a literal loop run without asking in the default mode
    await page.getByText('The ticker runs in the background.').waitFor({ timeout: 30_000 });
    // the running count comes from the task list the (hidden) panel keeps live
    await expect.poll(() => page.getByRole('button', { name: 'Tasks 1 running' }).count(), { timeout: 15_000 }).toBe(1);

    await tasksButton.click();
    const drawer = page.getByRole('dialog', { name: 'Background tasks' });
    await drawer.waitFor();
    await expect(drawer.getAttribute('aria-modal')).resolves.toBe('true');
    await expect(tasksButton.getAttribute('aria-expanded')).resolves.toBe('true');
    // focus moved in, onto Close
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Close');
    const log = drawer.locator('[role="log"]').first();
    await expect.poll(async () => /tick \d+/.test(await log.innerText()), { timeout: 20_000 }).toBe(true);
    const ticks = async () => Math.max(0, ...[...(await log.innerText()).matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
    const first = await ticks();
    // new lines keep arriving in the drawer over the one event stream
    await expect.poll(ticks, { timeout: 20_000 }).toBeGreaterThanOrEqual(first + 3);
    await expect(page.evaluate(() => window.__openFeeds)).resolves.toBe(1);
    await screenshot(page, 'task-drawer-live');

    // the log viewer opened from the drawer takes Esc for itself; the drawer stays
    await drawer.getByRole('button', { name: /^Open the full log of for i in/ }).click();
    const viewer = page.locator('div[role="dialog"]');
    await viewer.waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    await expect(drawer.isVisible()).resolves.toBe(true);

    await drawer.getByRole('button', { name: /^Kill for i in/ }).click();
    await drawer.getByText('killed', { exact: true }).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByRole('button', { name: 'Tasks', exact: true }).count(), { timeout: 15_000 }).toBe(1);
    await screenshot(page, 'task-drawer-killed');

    // Esc closes it and focus goes back to the Tasks button
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await expect(tasksButton.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(tasksButton.getAttribute('aria-expanded')).resolves.toBe('false');

    // the Close button closes it too; a window widened past lg shows the column and no button
    await tasksButton.click();
    await drawer.getByRole('button', { name: 'Close' }).click();
    await drawer.waitFor({ state: 'hidden' });
    await tasksButton.click();
    await drawer.waitFor();
    await page.setViewportSize({ width: 1440, height: 900 });
    await column.waitFor();
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    await expect(tasksButton.isVisible()).resolves.toBe(false);
    await expect(column.innerText()).resolves.toMatch(/0 running · 1 in all/);
    await expect(page.evaluate(() => window.__openFeeds)).resolves.toBe(1);
    await screenshot(page, 'task-drawer-wide');
  });
});
