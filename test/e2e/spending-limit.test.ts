/**
 * End-to-end: a turn paused at a spending limit — the prompt where approvals appear and in the inbox, continuing with
 * a new limit, and the ledger's spend against it — headless Chromium, the real launcher and the fake model, whose
 * every answer reports 1,000 tokens in and 100 out.
 */
import { describe, expect, it } from 'vitest';
import { screenshot, send, waitIdle } from './browser';
import { scriptedReplies, tagOf } from './scenarios';
import { e2eSuite } from './suite';

const usage = { prompt_tokens: 1000, completion_tokens: 100 };
const read = (id: string) => ({ usage, toolCalls: [{ name: 'read_file', id, args: { path: 'notes.txt' } }] });

const s = e2eSuite(
  'clamp-e2e-limit-',
  { 'notes.txt': 'the notes\n' },
  scriptedReplies({
    limit: [read('l-1'), read('l-2'), read('l-3'), { usage, text: 'LIMIT DONE: read the notes three times.' }],
    stop: [read('s-1'), read('s-2'), read('s-3'), { usage, text: 'never said' }],
  }),
);

describe('spending limits in the browser', () => {
  it('pauses at the session token limit, asks on the page, and goes on with the new limit', { timeout: 180_000 }, async () => {
    const put = await s.clamp.api('/api/settings/limits', { method: 'PUT', json: { sessionTokens: 2000 } });
    expect(put.status).toBe(200);
    const { page } = await s.start('limit');
    await send(page, '[e2e:limit] Read the notes three times.');
    const prompt = page.locator('section[aria-label="Pending approvals"] [data-limit-for]');
    await prompt.waitFor({ timeout: 30_000 });
    await expect(prompt.innerText()).resolves.toContain('Session limit of 2,000 tokens reached (2,200 used). The turn waits before its next model request.');
    // two requests reached the limit; the third was never sent
    expect(s.fake.requests.filter((r) => tagOf(r) === 'limit').length).toBe(2);
    // the inbox lists it too
    await expect.poll(async () => ((await (await s.clamp.api('/api/board')).json()) as { inbox: { info?: { question?: { limit?: unknown } } }[] }).inbox.filter((i) => i.info?.question?.limit).length).toBe(1);
    await screenshot(page, 'spending-limit-prompt');
    const input = prompt.getByRole('textbox', { name: /New session limit/ });
    await expect(input.inputValue()).resolves.toBe('4000');
    // a limit below what is used is refused on the page, before anything is sent
    await input.fill('1500');
    await prompt.getByRole('button', { name: 'Continue with the new limit' }).click();
    await expect(prompt.getByRole('alert').innerText()).resolves.toBe('The new limit must be above what is already used (2,200 tokens). Type a larger one, or stop.');
    await input.fill('10,000');
    await prompt.getByRole('button', { name: 'Continue with the new limit' }).click();
    await page.getByText('LIMIT DONE: read the notes three times.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(s.fake.requests.filter((r) => tagOf(r) === 'limit').length).toBe(4);
    await expect(page.locator('[data-limit-for]').count()).resolves.toBe(0);
    // the ledger shows the session's spend against its (raised) limit
    await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
    const details = page.getByRole('dialog', { name: 'Context details' });
    await expect.poll(() => details.innerText()).toMatch(/limit · session tokens\s+4,400 \/ 10,000 tokens this session/);
    await screenshot(page, 'spending-limit-ledger');
  });

  it('Stop ends the turn with a notice; nothing more is sent', { timeout: 180_000 }, async () => {
    const { page } = await s.start('stop');
    await send(page, '[e2e:stop] Read the notes three times.');
    const prompt = page.locator('[data-limit-for]');
    await prompt.waitFor({ timeout: 30_000 });
    await prompt.getByRole('button', { name: 'Stop' }).click();
    await page.getByText(/Session limit of 2,000 tokens reached \(2,200 used\)\. The turn stopped before its next model request\./).waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(s.fake.requests.filter((r) => tagOf(r) === 'stop').length).toBe(2);
    await screenshot(page, 'spending-limit-stopped');
  });
});
