/**
 * End-to-end: the two defects of "one exit", in headless Chromium against the real launcher and the
 * fake OpenAI-compatible model. Approving a write of a few MB continues the turn (the page sends ids,
 * not the message); calls the mode forbids, malformed JSON and unknown tools show as cards with
 * Clamp's own text, never as a provider failure.
 */
import { describe, expect, it } from 'vitest';
import type { Request as PwRequest } from 'playwright-core';
import { approvalFor, card, screenshot, send, waitIdle } from './browser';
import { scriptedReplies, tagOf, toolResults } from './scenarios';
import { e2eSuite } from './suite';

/** about 3 MB of text: more than a chat body may carry, well within what write_file writes */
const BIG = Array.from({ length: 3000 }, (_, i) => `${String(i).padStart(6, '0')} ${'b'.repeat(1000)}\n`).join('');

const scripts = {
  'big-write': [
    { text: 'Writing the data file.', toolCalls: [{ name: 'write_file', args: { path: 'data/big.txt', content: BIG }, id: 'bw-write' }], argChunkChars: 256 * 1024 },
    { text: 'The big file is written.' },
  ],
  refusals: [
    {
      text: 'Trying a few things.',
      toolCalls: [
        { name: 'write_file', args: { path: 'nope.txt', content: 'x' }, id: 'rf-write' },
        { name: 'read_file', rawArgs: '{"path": "README.md" "limit": 3}', id: 'rf-malformed' },
        { name: 'no_such_tool', args: { a: 1 }, id: 'rf-unknown' },
      ],
    },
    { text: 'I will stay read-only.' },
  ],
};

const s = e2eSuite('clamp-e2e-exit-', { 'README.md': '# Demo\n' }, scriptedReplies(scripts));

/** The bodies the page POSTs to /api/chat, as sent. */
function chatBodies(page: import('playwright-core').Page): string[] {
  const bodies: string[] = [];
  page.on('request', (r: PwRequest) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat') bodies.push(r.postData() ?? '');
  });
  return bodies;
}

describe('one exit, in the browser', () => {
  it('approving a 3 MB write: the page continues with ids only, the file is written and the model goes on', { timeout: 180_000 }, async () => {
    const { page } = await s.start('big write');
    const bodies = chatBodies(page);
    await send(page, '[e2e:big-write] Write the data file.');
    const bar = await approvalFor(page, 'bw-write');
    await expect(bar.innerText()).resolves.toContain('write_file');
    await screenshot(page, 'exit-big-write-bar');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The big file is written.').waitFor({ timeout: 60_000 });
    await waitIdle(page);
    expect(s.ws.read('data/big.txt')).toBe(BIG);
    await expect.poll(() => card(page, 'bw-write').getAttribute('data-state')).toBe('output-available');
    await expect(page.getByText('The turn failed').count()).resolves.toBe(0);
    // the continuation named the message; it did not carry it back
    expect(bodies).toHaveLength(2);
    const cont = JSON.parse(bodies[1]) as Record<string, unknown>;
    expect(Object.keys(cont).sort()).toEqual(['continue', 'sessionId']);
    expect(bodies[1].length).toBeLessThan(300);
    // the model read the write's result
    const after = s.fake.requests.filter((r) => tagOf(r) === 'big-write' && toolResults(r).length > 0);
    expect(after).toHaveLength(1);
    expect(toolResults(after[0])[0]).toMatch(/data\/big\.txt/);
    await screenshot(page, 'exit-big-write-done');
  });

  it('in plan mode a forbidden write, malformed JSON and an unknown tool: cards with Clamp\'s text, no provider error', { timeout: 90_000 }, async () => {
    const { page } = await s.start('refusals');
    await page.selectOption('#mode-picker', 'plan');
    await expect.poll(async () => (await (await s.clamp.api('/api/sessions')).json()) as unknown, { timeout: 10_000 }).toMatchObject({
      sessions: expect.arrayContaining([expect.objectContaining({ title: 'refusals', mode: 'plan' })]),
    });
    await send(page, '[e2e:refusals] Try a few things.');
    await page.getByText('I will stay read-only.').waitFor({ timeout: 30_000 });
    await waitIdle(page);

    // no provider-failure line, nowhere the words of one
    await expect(page.getByText('The turn failed').count()).resolves.toBe(0);
    const all = await page.locator('[role="log"]').innerText();
    expect(all).not.toMatch(/Send your message again|unavailable tool|Expected ',' or '}'/);

    for (const id of ['rf-write', 'rf-malformed', 'rf-unknown']) await expect.poll(() => card(page, id).getAttribute('data-state')).toBe('output-available');
    const write = card(page, 'rf-write');
    if ((await write.locator('button').first().getAttribute('aria-expanded')) !== 'true') await write.locator('button').first().click();
    await expect(write.innerText()).resolves.toContain('write_file is not available: file changes are not allowed in plan mode.');
    await expect(card(page, 'rf-malformed').innerText()).resolves.toContain('Invalid arguments for read_file: they are not valid JSON.');
    await expect(card(page, 'rf-unknown').innerText()).resolves.toContain('Unknown tool `no_such_tool`. Available: ');

    const told = s.fake.requests.filter((r) => tagOf(r) === 'refusals' && toolResults(r).length > 0);
    expect(told).toHaveLength(1);
    expect(toolResults(told[0])).toEqual([
      'write_file is not available: file changes are not allowed in plan mode. Do not retry it; use the read-only tools, or ask the user to switch modes.',
      "Invalid arguments for read_file: they are not valid JSON. Send a JSON object matching the tool's schema.",
      expect.stringMatching(/^Unknown tool `no_such_tool`\. Available: read_file, /),
    ]);
    await screenshot(page, 'exit-refusals');
  });
});
