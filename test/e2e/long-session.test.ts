/**
 * End-to-end: a session of 1,000 tool calls on the page. The chat list is virtualised (only the
 * rows near the screen are in the DOM), opens at the newest card, scrolls to the first message,
 * keeps a card as the person left it when it scrolls back into view, and follows a new turn.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { card, openClamp, screenshot, send, waitIdle } from './browser';
import { scriptedReplies } from './scenarios';
import { CHAT_SCROLLER, inViewAt, seedCallId, seedSession } from './seed';
import { e2eSuite } from './suite';

const CALLS = 1000;
const scripts = {
  follow: [
    { text: 'One more file.', toolCalls: [{ name: 'read_file', args: { path: 'README.md' }, id: 'follow-read' }] },
    { text: 'Read it: the project is a demo.' },
  ],
};

const s = e2eSuite('clamp-e2e-long-', { 'README.md': '# Demo\n' }, scriptedReplies(scripts));

const SCROLLER = CHAT_SCROLLER;

/** Is the element inside the chat's scroll box's visible area? */
const onScreen = async (page: Page, selector: string): Promise<boolean> => (await page.evaluate(inViewAt, [selector, SCROLLER] as const)) !== false;

describe('a long session in the browser', () => {
  it('1,000 tool calls: opens at the newest card with only a screenful mounted, scrolls to the first message, cards keep their state', { timeout: 120_000 }, async () => {
    const id = seedSession(s.ws.dataDir, s.ws.workspace, CALLS, 'a thousand calls');
    const { page, errors } = await openClamp(s.ctx, s.clamp, id);
    try {
      const lastCard = `[data-tool-call-id="${seedCallId(CALLS - 1)}"]`;
      await page.locator(lastCard).waitFor({ timeout: 30_000 });
      await expect.poll(() => onScreen(page, lastCard), { timeout: 10_000 }).toBe(true);
      await page.getByText('Turn 100 done').waitFor();
      const mounted = await page.locator('[data-tool-call-id]').count();
      expect(mounted, 'cards in the DOM').toBeGreaterThan(3);
      expect(mounted, 'cards in the DOM').toBeLessThan(80);
      await screenshot(page, 'long-session-bottom');

      // a read_file card opens collapsed: its body is not in the DOM until it is opened
      const read = card(page, seedCallId(CALLS - 5));
      await expect(read.getAttribute('data-state')).resolves.toBe('output-available');
      await expect(page.locator(`#tool-body-${seedCallId(CALLS - 5)}`).count()).resolves.toBe(0);
      await read.locator('button').first().click();
      await page.locator(`#tool-body-${seedCallId(CALLS - 5)}`).getByText(`value${CALLS - 5}_39`).waitFor();

      // to the top: the first message and card mount, the last ones leave the DOM
      await page.evaluate((sel) => {
        const el = document.querySelector<HTMLElement>(sel)!;
        el.scrollTop = 0;
      }, SCROLLER);
      await page.getByText('Turn 1: look at the next modules').waitFor({ timeout: 10_000 });
      await card(page, seedCallId(0)).waitFor();
      await expect.poll(() => page.locator(lastCard).count()).toBe(0);
      await screenshot(page, 'long-session-top');

      // back to the bottom: the card opened before is still open
      await page.evaluate((sel) => {
        const el = document.querySelector<HTMLElement>(sel)!;
        el.scrollTop = el.scrollHeight;
      }, SCROLLER);
      await page.locator(lastCard).waitFor({ timeout: 10_000 });
      await expect(card(page, seedCallId(CALLS - 5)).locator('button').first().getAttribute('aria-expanded')).resolves.toBe('true');
      await page.locator(`#tool-body-${seedCallId(CALLS - 5)}`).waitFor();

      // keys are stable: one element per call, never two
      const ids = await page.locator('[data-tool-call-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool-call-id')));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await page.close();
    }
    expect(errors).toEqual([]);
  });

  it('a new turn in a long session: the list follows the streamed card to the bottom', { timeout: 120_000 }, async () => {
    const id = seedSession(s.ws.dataDir, s.ws.workspace, 200, 'two hundred calls');
    const { page, errors } = await openClamp(s.ctx, s.clamp, id);
    try {
      await card(page, seedCallId(199)).waitFor({ timeout: 30_000 });
      await send(page, '[e2e:follow] Read the README.');
      await page.getByText('Read it: the project is a demo.').waitFor({ timeout: 30_000 });
      await waitIdle(page);
      await expect.poll(() => card(page, 'follow-read').getAttribute('data-state')).toBe('output-available');
      await expect.poll(() => onScreen(page, '[data-tool-call-id="follow-read"]'), { timeout: 10_000 }).toBe(true);
      await expect
        .poll(() => page.evaluate((sel) => {
          const el = document.querySelector<HTMLElement>(sel)!;
          return el.scrollHeight - el.scrollTop - el.clientHeight;
        }, SCROLLER), { timeout: 10_000 })
        .toBeLessThan(4);
      await screenshot(page, 'long-session-follow');
    } finally {
      await page.close();
    }
    expect(errors).toEqual([]);
  });
});
