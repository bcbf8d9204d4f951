/**
 * End-to-end: many sessions from one page. A call waiting in a session that is not on screen is answered from
 * the header's inbox with the approval bar's own item, and its turn then runs on the server (the file is
 * written); with notification permission granted and the page hidden, a new waiting call and a turn that ends
 * fire browser notifications and the tab's title and icon carry the count; the board shows two sessions' states
 * live (one working on a slow step, one waiting for the person) and a click opens one. The notification setting is
 * the server's: turned off in one browser, a fresh browser (its own storage) shows it off and notifies nothing.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { BoardAnswer, BoardSession } from '../../lib/contract/board';
import { createSession, openClamp, screenshot } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const write = (tag: string) => ({ name: 'write_file', args: { path: `${tag}.txt`, content: `written by ${tag}\n` }, id: `${tag}-write` });
const scripts = {
  'inbox-b': [{ text: 'Writing the file.', toolCalls: [write('inbox-b')] }, { text: 'The file is written.' }],
  'notify-w': [{ text: 'I need to write a file.', toolCalls: [write('notify-w')] }, { text: 'Written.' }],
  'notify-t': [{ text: 'Looking first.', toolCalls: [{ name: 'list_dir', args: { path: '.' }, id: 'notify-t-ls' }] }, { text: 'All done here.', delayMs: 1500 }],
  'board-slow': [{ text: 'Listing.', toolCalls: [{ name: 'list_dir', args: { path: '.' }, id: 'slow-ls' }] }, { text: 'Finished after a long think.', delayMs: 6000 }],
  'board-wait': [{ text: 'Asking to write.', toolCalls: [write('board-wait')] }, { text: 'Written.' }],
};

const s = e2eSuite('clamp-e2e-board-', { 'readme.md': 'hello\n' }, scriptedReplies(scripts));

/** Start a turn of a session through the API, as another tab would; resolves when its stream ends. */
async function chatTurn(sessionId: string, text: string): Promise<string> {
  const res = await s.clamp.api('/api/chat', { json: { sessionId, message: { id: `m-${Math.random().toString(36).slice(2)}`, text } } });
  if (res.status !== 200) throw new Error(`/api/chat answered ${res.status}: ${await res.text()}`);
  return res.text();
}

async function board(): Promise<BoardAnswer> {
  return (await (await s.clamp.api('/api/board')).json()) as BoardAnswer;
}

const cardOf = (page: Page, id: string) => page.locator(`[data-board-session="${id}"]`);

describe('the inbox', () => {
  it('answers a call of a session not on screen; its turn then runs', { timeout: 180_000 }, async () => {
    const { page } = await s.start('on screen');
    const other = await createSession(s.clamp, 'not on screen');
    await chatTurn(other, '[e2e:inbox-b] Write the file.');
    // the turn stopped for the approval; the header's inbox counts it
    const button = page.getByTestId('inbox-button');
    await expect.poll(() => button.textContent(), { timeout: 30_000 }).toContain('1');
    await button.click();
    const inbox = page.getByTestId('inbox');
    const item = inbox.locator('[data-approval-for="inbox-b-write"]');
    await item.waitFor({ timeout: 30_000 });
    await expect(inbox.locator(`[data-inbox-session="${other}"]`).textContent()).resolves.toContain('not on screen');
    await screenshot(page, 'inbox-panel');
    // the item's own key answers it, as in the approval bar (focus is in the item)
    await item.focus();
    await page.waitForTimeout(500);
    await page.keyboard.press('y');
    await expect.poll(() => s.ws.read('inbox-b.txt'), { timeout: 30_000 }).toBe('written by inbox-b\n');
    await expect.poll(async () => (await board()).sessions.find((x) => x.id === other)?.state, { timeout: 30_000 }).toBe('done');
    await expect.poll(() => button.textContent(), { timeout: 30_000 }).not.toContain('1');
    await expect(inbox.textContent()).resolves.toContain('Nothing waits for you');
    // the session's conversation, opened, shows the call's result and the model's last words
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByRole('button', { name: 'Board', exact: true }).click();
    await cardOf(page, other).click();
    await page.getByText('The file is written.').waitFor({ timeout: 30_000 });
  });
});

/** The page as if its tab were hidden, with each notification it shows recorded in window.__notes ({ title, body }). */
async function hideAndCaptureNotifications(page: Page): Promise<void> {
  await page.evaluate(() => {
    const notes: { title: string; body?: string }[] = [];
    (window as unknown as { __notes: typeof notes }).__notes = notes;
    const Real = window.Notification;
    class Captured {
      static get permission() {
        return Real.permission;
      }
      static requestPermission() {
        return Real.requestPermission();
      }
      onclick: (() => void) | null = null;
      constructor(title: string, o?: NotificationOptions) {
        notes.push({ title, body: o?.body });
      }
      close() {}
    }
    (window as unknown as { Notification: unknown }).Notification = Captured;
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

describe('notifications', () => {
  it('fire while the page is hidden: a call waiting, a turn ended; the title and icon carry the count', { timeout: 180_000 }, async () => {
    await s.ctx.grantPermissions(['notifications'], { origin: s.clamp.base });
    const { page } = await s.start('notified');
    await hideAndCaptureNotifications(page);
    const notes = () => page.evaluate(() => (window as unknown as { __notes: { title: string; body?: string }[] }).__notes);
    const waiting = await createSession(s.clamp, 'needs a write');
    await chatTurn(waiting, '[e2e:notify-w] Write it.');
    await expect.poll(async () => (await notes()).map((n) => n.title), { timeout: 30_000 }).toContain('Clamp: approval needed — needs a write');
    expect((await notes()).find((n) => n.title.includes('approval'))?.body).toContain('write_file');
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('(1) Clamp');
    expect(await page.locator('link[rel~="icon"]').first().getAttribute('href')).toMatch(/^data:image\/png/);

    const turn = await createSession(s.clamp, 'turn that ends');
    await chatTurn(turn, '[e2e:notify-t] Look around.');
    await expect.poll(async () => (await notes()).map((n) => n.title), { timeout: 30_000 }).toContain('Clamp: turn ended — turn that ends');
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('(2) Clamp');

    // visible again: the ended turn is seen; the call still waits in a session not on screen
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('(1) Clamp');
    const before = (await notes()).length;
    // while visible, nothing is notified
    const quiet = await createSession(s.clamp, 'quiet');
    await chatTurn(quiet, '[e2e:notify-t] Look around.');
    await page.waitForTimeout(2500);
    expect((await notes()).length).toBe(before);
  });
});

describe('the notification setting', () => {
  it('turned off in one browser is off in a fresh one, which then notifies nothing', { timeout: 180_000 }, async () => {
    const first = await s.browser.newContext();
    await first.grantPermissions(['notifications'], { origin: s.clamp.base });
    const a = await openClamp(first, s.clamp);
    await a.page.getByRole('button', { name: 'Board', exact: true }).click();
    const toggleA = a.page.getByTestId('notify-toggle');
    await expect.poll(() => toggleA.isChecked(), { timeout: 30_000 }).toBe(true);
    await toggleA.uncheck();
    try {
      await expect.poll(async () => (await (await s.clamp.api('/api/settings/notifications')).json()) as unknown, { timeout: 10_000 }).toEqual({ on: false });
      await first.close();
      // another browser: nothing in its storage, permission granted
      const second = await s.browser.newContext();
      await second.grantPermissions(['notifications'], { origin: s.clamp.base });
      const b = await openClamp(second, s.clamp);
      expect(await b.page.evaluate(() => localStorage.getItem('clamp.notifications'))).not.toBe('on');
      await b.page.getByRole('button', { name: 'Board', exact: true }).click();
      await expect.poll(() => b.page.getByTestId('notify-toggle').isChecked(), { timeout: 30_000 }).toBe(false);
      await screenshot(b.page, 'notify-setting-off-elsewhere');
      await hideAndCaptureNotifications(b.page);
      const waiting = await createSession(s.clamp, 'quietly waits');
      await chatTurn(waiting, '[e2e:notify-w] Write it.');
      // the page saw the call wait (the title counts it) and showed no notification
      const waits = (await board()).inbox.length;
      await expect.poll(() => b.page.title(), { timeout: 30_000 }).toBe(`(${waits}) Clamp`);
      expect(await b.page.evaluate(() => (window as unknown as { __notes: unknown[] }).__notes)).toEqual([]);
      expect(b.errors).toEqual([]);
      await second.close();
    } finally {
      await s.clamp.api('/api/settings/notifications', { method: 'PUT', json: { on: true } });
    }
  });
});

describe('the board', () => {
  it("shows two sessions' states live and opens one with a click", { timeout: 180_000 }, async () => {
    const { page } = await s.start('board viewer');
    const slow = await createSession(s.clamp, 'slow thinker');
    const waits = await createSession(s.clamp, 'wants a write');
    await page.getByRole('button', { name: 'Board', exact: true }).click();
    await page.getByTestId('board').waitFor();
    const slowTurn = chatTurn(slow, '[e2e:board-slow] List and think.');
    await chatTurn(waits, '[e2e:board-wait] Write it.');
    const slowCard = cardOf(page, slow);
    const waitCard = cardOf(page, waits);
    await expect.poll(() => slowCard.getAttribute('data-state'), { timeout: 30_000 }).toBe('working');
    await expect.poll(() => slowCard.getByTestId('board-state').textContent(), { timeout: 30_000 }).toMatch(/working — step 2/);
    await expect.poll(() => waitCard.getAttribute('data-state'), { timeout: 30_000 }).toBe('waiting');
    await expect(waitCard.getByTestId('board-state').textContent()).resolves.toBe('waiting for you (1)');
    await screenshot(page, 'board-live');
    await slowTurn;
    await expect.poll(() => slowCard.getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
    const b = (await board()).sessions.find((x) => x.id === slow) as BoardSession;
    expect(b.tokens.output).toBeGreaterThan(0);
    await waitCard.click();
    await page.getByTestId('board').waitFor({ state: 'detached' });
    await page.locator('[data-approval-for="board-wait-write"]').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('s')).toBe(waits);
  });
});
