/**
 * The chat list is virtualised: a row off screen is not in the DOM. These helpers scroll the list
 * (its scroll box is [data-chat-scroll]) to an end, or a screen at a time until a row is mounted.
 */
import type { Locator, Page } from 'playwright-core';

export const CHAT_SCROLL = '[data-chat-scroll]';

/** Scroll the chat list to its top or its bottom. */
export async function scrollChat(page: Page, where: 'top' | 'bottom'): Promise<void> {
  await page.evaluate(
    ([sel, w]) => {
      const el = document.querySelector<HTMLElement>(sel)!;
      el.scrollTop = w === 'top' ? 0 : el.scrollHeight;
    },
    [CHAT_SCROLL, where] as const,
  );
}

/** Scroll up from the bottom, most of a screen at a time, until `selector` is in the DOM; its locator (throws if the top is reached first). */
export async function findInChat(page: Page, selector: string): Promise<Locator> {
  await scrollChat(page, 'bottom');
  for (let i = 0; i < 500; i++) {
    if ((await page.locator(selector).count()) > 0) return page.locator(selector).first();
    const atTop = await page.evaluate((sel) => {
      const el = document.querySelector<HTMLElement>(sel)!;
      if (el.scrollTop <= 0) return true;
      el.scrollTop -= el.clientHeight * 0.8;
      return false;
    }, CHAT_SCROLL);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if (atTop && (await page.locator(selector).count()) === 0) throw new Error(`${selector} is not in the conversation (scrolled to the top)`);
  }
  throw new Error(`${selector} not found after 500 screens`);
}
