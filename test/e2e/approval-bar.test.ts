/**
 * End-to-end: the approval bar in headless Chromium against the real launcher and a fake
 * OpenAI-compatible model. "y" and "n" answer the first waiting call from anywhere on the page but a
 * text field, and never twice; with a long edit waiting, the conversation keeps at least 40% of the
 * window (the model's explanation stays in view) and the diff scrolls inside the bar, at 1280×720 and
 * 420×900; Retry after a failed turn resumes it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, send, waitIdle } from './browser';
import { scriptedReplies, tagOf } from './scenarios';
import { e2eSuite } from './suite';

const SIZES = [
  { name: 'wide', width: 1280, height: 720 },
  { name: 'narrow', width: 420, height: 900 },
] as const;

const LONG = Array.from({ length: 160 }, (_, i) => `line ${i + 1} of the settings file`).join('\n') + '\n';
const EXPLANATION =
  'The settings file repeats every value twice and the loader reads only the first copy. I will rewrite it with one copy of each value, so the second copy can no longer drift from the first. The diff below is long; read it before you approve.';

const write = (tag: string, n: number) => ({ name: 'write_file', args: { path: `${tag}-${n}.txt`, content: `${tag} ${n}\n` }, id: 'call_0' });
const scripts = {
  ...Object.fromEntries(
    ['keys-wide', 'keys-narrow'].map((tag) => [tag, [{ text: 'First file.', toolCalls: [write(tag, 1)] }, { text: 'Second file.', toolCalls: [write(tag, 2)] }, { text: 'Third file.', toolCalls: [write(tag, 3)] }, { text: 'Done with the keys.' }]]),
  ),
  long: [{ text: EXPLANATION, toolCalls: [{ name: 'write_file', args: { path: 'settings.txt', content: LONG.replaceAll('line', 'entry') }, id: 'call_0' }] }, { text: 'Rewritten.' }],
  'long-narrow': [{ text: EXPLANATION, toolCalls: [{ name: 'write_file', args: { path: 'settings.txt', content: LONG.replaceAll('line', 'row') }, id: 'call_0' }] }, { text: 'Rewritten.' }],
  retry: [{ text: 'Recovered after the retry.' }],
};

let failuresLeft = 1;
const replies = scriptedReplies(scripts);
const s = e2eSuite('clamp-e2e-approval-bar-', { 'settings.txt': LONG }, (req) => {
  // the first request of the retry test fails as a server that is down would (no retry of the SDK's own)
  if (tagOf(req) === 'retry' && failuresLeft > 0) {
    failuresLeft--;
    return { failStatus: 400, failMessage: 'the fake model server is down for a moment' };
  }
  return replies(req);
});

/** The waiting call's item in the bar (there is one at a time in these scripts). */
const waitingItem = (page: Page) => page.locator('[data-approval-for]').first();
const waitingId = async (page: Page) => (await waitingItem(page).getAttribute('data-approval-for', { timeout: 30_000 }))!;

describe('the approval bar', () => {
  for (const size of SIZES) it(`y and n answer from anywhere but a text field, and never twice (${size.width}×${size.height})`, { timeout: 180_000 }, async () => {
    const { page } = await s.start(`keys-${size.name}`);
    await page.setViewportSize({ width: size.width, height: size.height });
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/approvals\//.test(r.url())) posts.push(decodeURIComponent(r.url().split('/approvals/')[1]!));
    });
    await send(page, `[e2e:keys-${size.name}] Write three files.`);
    const first = await waitingId(page);
    // the focus leaves the bar: the person clicked the conversation
    await page.locator('[data-chat-scroll]').click({ position: { x: 5, y: 5 } });
    expect(await page.evaluate(() => !!document.activeElement?.closest('[data-approval-for]'))).toBe(false);
    await page.waitForTimeout(500);
    // y pressed twice quickly (a key held down repeats too): one answer, for this call only
    await page.keyboard.press('y');
    await page.keyboard.down('y');
    await page.keyboard.down('y');
    await page.keyboard.up('y');
    await expect.poll(() => s.ws.read(`keys-${size.name}-1.txt`), { timeout: 30_000 }).toBe(`keys-${size.name} 1\n`);
    await page.locator(`[data-approval-for="${first}"]`).waitFor({ state: 'detached', timeout: 30_000 });
    const second = await waitingId(page);
    expect(second).not.toBe(first);
    await page.waitForTimeout(1000);
    expect(posts).toEqual([first]);

    // typed into the composer, y and n are text
    await page.locator('#chat-input').click();
    await page.keyboard.type('ny');
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('ny');
    await page.waitForTimeout(300);
    expect(posts).toEqual([first]);
    await expect(waitingId(page)).resolves.toBe(second);
    await page.locator('#chat-input').fill('');

    // n from outside the bar denies it
    await page.locator('[data-chat-scroll]').click({ position: { x: 5, y: 5 } });
    await page.waitForTimeout(500);
    await page.keyboard.press('n');
    await expect.poll(() => posts, { timeout: 10_000 }).toEqual([first, second]);
    await page.locator(`[data-approval-for="${second}"]`).waitFor({ state: 'detached', timeout: 30_000 });
    const third = await waitingId(page);
    expect(third).not.toBe(second);
    await expect.poll(() => page.locator(`[data-tool-call-id="${second}"]`).getAttribute('data-state'), { timeout: 30_000 }).toBe('output-denied');
    await screenshot(page, `approval-keys-denied-${size.name}`);

    // a focused button elsewhere is not a text field: y answers the waiting call
    await page.getByRole('button', { name: 'Send', exact: true }).focus().catch(() => undefined);
    await page.locator('[data-chat-scroll]').click({ position: { x: 5, y: 5 } });
    await page.waitForTimeout(500);
    await page.keyboard.press('y');
    await page.getByText('Done with the keys.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(posts).toEqual([first, second, third]);
    expect(s.ws.read(`keys-${size.name}-3.txt`)).toBe(`keys-${size.name} 3\n`);
    expect(() => s.ws.read(`keys-${size.name}-2.txt`)).toThrow(/ENOENT/);
  });

  for (const size of SIZES) {
    it(`a long edit waiting at ${size.width}×${size.height}: the conversation keeps 40% of the window, the explanation shows, the diff scrolls in the bar`, { timeout: 120_000 }, async () => {
      const { page } = await s.start(`long-${size.name}`);
      await page.setViewportSize({ width: size.width, height: size.height });
      await send(page, `[e2e:${size.name === 'wide' ? 'long' : 'long-narrow'}] Tidy the settings file.`);
      const item = waitingItem(page);
      await item.waitFor({ timeout: 30_000 });
      await page.waitForTimeout(800);
      await screenshot(page, `approval-long-edit-${size.name}`);
      const m = await page.evaluate(() => {
        const chat = document.querySelector('[data-chat-scroll]')!.getBoundingClientRect();
        const bar = document.querySelector('section[aria-label="Pending approvals"]')!;
        const diff = bar.querySelector('[aria-label^="Proposed change of"]');
        const approve = [...bar.querySelectorAll('button')].find((b) => /Approve once/.test(b.textContent ?? ''))!.getBoundingClientRect();
        const input = document.querySelector('#chat-input') as HTMLTextAreaElement;
        const explanation = [...document.querySelectorAll('[data-chat-scroll] p')].find((p) => /repeats every value twice/.test(p.textContent ?? ''));
        const e = explanation?.getBoundingClientRect();
        // the placeholder as text in a copy of the box, same size and font: it fits when the copy does not scroll
        const copy = input.cloneNode() as HTMLTextAreaElement;
        copy.removeAttribute('id');
        copy.value = input.placeholder;
        Object.assign(copy.style, { position: 'absolute', visibility: 'hidden', width: `${input.offsetWidth}px`, height: `${input.offsetHeight}px` });
        input.parentElement!.appendChild(copy);
        const placeholderFits = copy.scrollHeight <= copy.clientHeight;
        copy.remove();
        let scrollable = false;
        for (let el: Element | null = diff; el && el !== bar.parentElement; el = el.parentElement) {
          const st = getComputedStyle(el);
          if (el.scrollHeight > el.clientHeight + 1 && /(auto|scroll)/.test(st.overflowY)) scrollable = true;
        }
        return {
          window: window.innerHeight,
          chat: chat.height,
          explanationShown: !!e && e.top >= chat.top - 1 && e.bottom <= chat.bottom + 1,
          approveShown: approve.top >= 0 && approve.bottom <= window.innerHeight,
          diffScrolls: scrollable,
          placeholder: input.placeholder,
          placeholderFits,
          pageScrolls: document.scrollingElement!.scrollHeight > window.innerHeight + 1,
        };
      });
      expect(m.chat / m.window, JSON.stringify(m)).toBeGreaterThanOrEqual(0.4);
      expect(m.explanationShown, JSON.stringify(m)).toBe(true);
      expect(m.approveShown, JSON.stringify(m)).toBe(true);
      expect(m.diffScrolls, JSON.stringify(m)).toBe(true);
      expect(m.placeholderFits, JSON.stringify(m)).toBe(true);
      expect(m.pageScrolls, JSON.stringify(m)).toBe(false);
      await item.getByRole('button', { name: /Approve once/ }).click();
      await page.getByText('Rewritten.').waitFor({ timeout: 30_000 });
      await waitIdle(page);
    });
  }

  it('Retry after a failed turn runs it again and the message is not refused as already sent', { timeout: 120_000 }, async () => {
    const { page } = await s.start('retry');
    await send(page, '[e2e:retry] Say something.');
    const alert = page.getByRole('alert').filter({ hasText: 'The turn failed' });
    await alert.waitFor({ timeout: 30_000 });
    await expect(alert.innerText()).resolves.toMatch(/down for a moment/);
    await screenshot(page, 'approval-retry-failed');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Recovered after the retry.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    await expect(page.getByRole('alert').filter({ hasText: 'The turn failed' }).count()).resolves.toBe(0);
    await expect(page.getByText(/already sent/).count()).resolves.toBe(0);
    // the message is there once, on the page and in the store
    await expect(page.locator('[data-role="user"]').filter({ hasText: 'Say something.' }).count()).resolves.toBe(1);
    await screenshot(page, 'approval-retry-done');
  });
});
