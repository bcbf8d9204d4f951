/**
 * End-to-end: the demo's script (fixed tool call ids) on a copy of its sample project, in headless
 * Chromium. Rewind, then the same message again: the script asks for the same edit under the same id,
 * and it is a call of its own — the bar shows it, Deny denies it (the card says so, the turn goes on);
 * when the continuation after the answer is lost on the way, Retry sends it and the turn goes on. Nothing
 * of the rewound calls' answers is applied to the new ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { createSession, launchBrowser, openClamp, screenshot, send, type E2EBrowser } from './browser';

let ws: ReturnType<typeof tempWorkspace>;
let clamp: RunningClamp;
let browser: E2EBrowser;
const MESSAGE = 'Show me what Clamp does.';

/**
 * The demo's script without its pauses (the turns, their calls and ids unchanged): each run plays it twice, and its
 * pauses for a person reading (0.4 s, 4 s before the dev server) are only time here. test/e2e/demo.test.ts plays it as it is.
 */
function scriptWithoutPauses(): string {
  const script = JSON.parse(fs.readFileSync(path.join(ROOT, 'demo/script.json'), 'utf8')) as { turns: Array<{ delayMs?: number }> };
  for (const turn of script.turns) delete turn.delayMs;
  // the same file name as the demo's, so the model is named as in the demo
  const file = path.join(ws.dataDir, 'demo', 'script.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(script));
  return file;
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-demo-rewind-');
  fs.cpSync(path.join(ROOT, 'demo/workspace'), ws.workspace, { recursive: true });
  [clamp, browser] = await Promise.all([
    startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: `scripted:${scriptWithoutPauses()}`, CLAMP_MODE: 'default' }),
    launchBrowser(),
  ]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await clamp?.stop();
  ws?.cleanup();
});

/** The bar's item for the call the script names `id` (Clamp may have given it an id of its own). */
const waitingFor = (page: Page, id: string) => page.locator(`[data-approval-for="${id}"], [data-approval-for^="${id}-clamp"]`);
const cardsOf = (page: Page, id: string) => page.locator(`[data-tool-call-id="${id}"], [data-tool-call-id^="${id}-clamp"]`);

const SIZES = [
  { name: 'wide', width: 1280, height: 720 },
  { name: 'narrow', width: 420, height: 900 },
] as const;

describe('the demo after a rewind', () => {
  for (const size of SIZES) it(`Rewind → the same message again → Deny (→ Retry when the continuation is lost) → the turn goes on (${size.width}×${size.height})`, { timeout: 240_000 }, async () => {
    const ctx = await browser.newContext();
    const { page, errors } = await openClamp(ctx, clamp, await createSession(clamp, `demo rewind ${size.name}`));
    await page.setViewportSize({ width: size.width, height: size.height });
    // each run starts from the sample project as the demo copies it
    fs.cpSync(path.join(ROOT, 'demo/workspace'), ws.workspace, { recursive: true });
    const slug = ws.read('src/slug.js');

    // the first run: the edit is approved, then the tests' command waits
    await send(page, MESSAGE);
    await waitingFor(page, 'demo-edit').getByRole('button', { name: /Approve once/ }).click({ timeout: 30_000 });
    await waitingFor(page, 'demo-test').waitFor({ timeout: 30_000 });
    expect(ws.read('src/slug.js')).not.toBe(slug);

    // rewind code and conversation to before the message; its text comes back to the composer
    // the list shows the rows on screen: back to the top, where the message is
    await page.locator('[data-chat-scroll]').evaluate((el) => el.scrollTo({ top: 0 }));
    const row = page.locator('[data-role="user"]').filter({ hasText: MESSAGE });
    await row.hover();
    await row.getByRole('button', { name: 'Rewind to before this message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind to before this message' });
    await dialog.getByRole('button', { name: 'Restore code and conversation' }).click({ timeout: 30_000 });
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    expect(ws.read('src/slug.js')).toBe(slug);
    await expect(page.locator('[data-approval-for]').count()).resolves.toBe(0);
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe(MESSAGE);

    // the same message again: the same edit asks again, in the bar, as a call of its own
    await page.press('#chat-input', 'Enter');
    const edit = waitingFor(page, 'demo-edit');
    await edit.waitFor({ timeout: 30_000 });
    const editId = (await edit.getAttribute('data-approval-for'))!;
    await expect(cardsOf(page, 'demo-edit').getAttribute('data-state')).resolves.toBe('approval-requested');
    await screenshot(page, `demo-rewind-asks-again-${size.name}`);

    // Deny: the card says denied (not "Approved; running…"), nothing changed, and the turn goes on to the next call.
    // At 1280×720 the continuation the page sends after the answer is lost on the way (a dropped connection): the
    // turn failed, and Retry sends it again
    const drop = size.name === 'wide';
    const posts: Array<{ url: string; status: number }> = [];
    page.on('response', (r) => {
      if (r.request().method() === 'POST') posts.push({ url: r.url(), status: r.status() });
    });
    let chats = 0;
    await page.route('**/api/chat', (route) => (drop && chats++ === 0 ? route.abort('connectionreset') : route.continue()));
    await edit.getByRole('button', { name: /Deny/ }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The turn failed' });
    if (drop) {
      await failed.waitFor({ timeout: 30_000 });
      await expect(cardsOf(page, 'demo-edit').innerText()).resolves.toMatch(/denied/i);
      await screenshot(page, `demo-rewind-retry-${size.name}`);
      await failed.getByRole('button', { name: 'Retry' }).click();
    }
    await expect.poll(() => cardsOf(page, 'demo-edit').getAttribute('data-state'), { timeout: 30_000 }).toBe('output-denied');
    await expect(cardsOf(page, 'demo-edit').innerText()).resolves.not.toMatch(/Approved; running/);
    const test = waitingFor(page, 'demo-test');
    await test.waitFor({ timeout: 30_000 });
    expect(ws.read('src/slug.js')).toBe(slug);
    await expect(failed.count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
    await expect(page.getByText(/already sent|No pending approval/).count()).resolves.toBe(0);
    // what reached the server went through: the answer, then the continuation (sent again by Retry when dropped)
    expect(posts.map((p) => [new URL(p.url).pathname.replace(/\/sessions\/[^/]+/, '/sessions/S'), p.status])).toEqual([
      [`/api/sessions/S/approvals/${editId}`, 200],
      ['/api/chat', 200],
    ]);
    await screenshot(page, `demo-rewind-denied-${size.name}`);

    // the tests' command approved: the turn runs on to the script's next call
    await test.getByRole('button', { name: /Approve once/ }).click();
    await waitingFor(page, 'demo-server').waitFor({ timeout: 30_000 });
    await expect(cardsOf(page, 'demo-test').getAttribute('data-state')).resolves.toBe('output-available');
    await waitingFor(page, 'demo-server').getByRole('button', { name: /Deny/ }).click();
    await page.getByText('That is the tour').waitFor({ timeout: 30_000 });
    await expect(page.getByRole('alert').filter({ hasText: 'The turn failed' }).count()).resolves.toBe(0);
    await screenshot(page, `demo-rewind-end-${size.name}`);
    expect(errors, 'uncaught errors on the page').toEqual([]);
    await ctx.close();
  });
});
