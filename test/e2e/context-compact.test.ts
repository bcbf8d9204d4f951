/**
 * End-to-end: compaction on the page, through the real server and the fake OpenAI-compatible server
 * enforcing a 16,384-token window that it reports as vLLM does. A turn of 80 reads compacts on its
 * own: the divider appears live with the summary one click away, the earlier cards stay in the list,
 * and the meter names the server's own answer as the window's source. Then Compact by hand: typed as
 * `/compact <focus>` in the composer and from the meter's Compact button, each adding its divider;
 * and a compact with nothing to compact says so in words.
 */
import { describe, expect, it } from 'vitest';
import type { CompactionInfo, SessionDetail } from '../../lib/contract/protocol';
import type { FakeReply, FakeRequest } from '../fake-openai';
import { card, screenshot, send, waitIdle } from './browser';
import { findInChat, scrollChat } from './chat-scroll';
import { e2eSuite } from './suite';

const READS = 80;
const WINDOW_TOKENS = 16_384;
const SUMMARY_HEAD = '## Goal and constraints';

function sourceFile(i: number): string {
  const lines: string[] = [];
  for (let k = 0; lines.join('\n').length < 6000; k++) lines.push(`export const value_${i}_${k} = ${i * 1000 + k}; // file ${i}, line ${k + 1}`);
  return lines.join('\n') + '\n';
}
const files: Record<string, string> = { 'README.md': '# Demo\n' };
for (let i = 0; i < READS; i++) files[`src/f${i}.ts`] = sourceFile(i);

/** One read per step; a request without tools is a summary request and gets a structured summary. */
let made = 0;
function replies(req: FakeRequest): FakeReply {
  if (!req.body.tools) return { text: `${SUMMARY_HEAD}\n- read every file in src/\n## Files\n- read ${made} files so far\n## Next step\n- read file ${made}` };
  if (made >= READS) return { text: `Read all ${READS} files.` };
  const i = made++;
  return { text: '', toolCalls: [{ name: 'read_file', args: { path: `src/f${i}.ts` }, id: `cc-read-${i}` }] };
}

const s = e2eSuite('clamp-e2e-compact-', files, replies, { window: { tokens: WINDOW_TOKENS } });

/** The summary requests (no tools) the fake server received. */
const summaryRequests = () => s.fake.requests.filter((r) => !r.body.tools);

describe('compaction in the browser', () => {
  it('a turn of 80 reads on a 16,384-token window compacts on its own: the divider, its summary, the earlier cards still there', { timeout: 240_000 }, async () => {
    const { page } = await s.start('compacting');
    await send(page, 'Read every file in src/ one by one.');
    await page.getByText(`Read all ${READS} files.`).waitFor({ timeout: 180_000 });
    await waitIdle(page);
    expect(s.fake.requests.filter((r) => r.overWindow)).toEqual([]);

    // a summary was asked for, and its divider is in the list (off screen until scrolled to)
    expect(s.fake.requests.filter((r) => !r.body.tools).length).toBeGreaterThan(0);
    const divider = await findInChat(page, '[data-compaction-id]');
    await divider.scrollIntoViewIfNeeded();
    await expect(divider.getAttribute('aria-label')).resolves.toMatch(/^Context compacted at step \d+: [\d.]+k → [\d.]+k tokens$/);
    await expect(divider.innerText()).resolves.toContain('automatic');
    await divider.getByRole('button', { name: 'Show summary' }).click();
    await divider.getByText(SUMMARY_HEAD).waitFor();
    await screenshot(page, 'context-compact-divider');

    // the meter: the window as the server reported it
    await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
    const details = page.getByRole('dialog', { name: 'Context details' });
    await expect(details.innerText()).resolves.toContain("Window size from the model server's own answer: the server's /v1/models (max_model_len)");
    await page.keyboard.press('Escape');

    // the earliest cards are still in the list, marked pruned
    await scrollChat(page, 'top');
    const first = card(page, 'cc-read-0');
    await first.waitFor({ timeout: 10_000 });
    await expect(first.getAttribute('data-pruned')).resolves.toBe('true');
    await screenshot(page, 'context-compact-top');

    // by hand, typed: /compact with a focus; the summary request carries the focus, the divider says "by hand"
    const before = summaryRequests().length;
    const meter = page.getByRole('meter', { name: 'Context window used' });
    const usedBefore = Number(await meter.getAttribute('aria-valuenow'));
    await scrollChat(page, 'bottom');
    await send(page, '/compact keep the list of files read');
    await expect.poll(() => page.locator('[data-compaction-id]').filter({ hasText: 'by hand' }).count(), { timeout: 60_000 }).toBe(1);
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('');
    expect(summaryRequests().length).toBe(before + 1);
    expect(JSON.stringify(summaryRequests().at(-1)!.body.messages)).toContain('keep the list of files read');
    const manual = page.locator('[data-compaction-id]').filter({ hasText: 'by hand' });
    await expect(manual.getAttribute('aria-label')).resolves.toMatch(/^Context compacted at step \d+: /);
    // the meter shows the stored compaction's count until the next step counts again
    const sessionId = new URL(page.url()).searchParams.get('s')!;
    const detail = (await (await s.clamp.api(`/api/sessions/${sessionId}`)).json()) as SessionDetail;
    const stored = detail.messages.flatMap((m) => m.parts).filter((p) => p.type === 'data-compaction').at(-1) as { data: CompactionInfo };
    expect(stored.data.trigger).toBe('manual');
    await expect.poll(async () => Number(await meter.getAttribute('aria-valuenow'))).toBe(stored.data.afterTokens);
    expect(stored.data.afterTokens).not.toBe(usedBefore);
    await screenshot(page, 'context-compact-by-hand');

    // by hand, from the meter's Compact button
    await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
    await page.getByRole('dialog', { name: 'Context details' }).getByRole('button', { name: 'Compact now' }).click();
    await expect.poll(() => summaryRequests().length, { timeout: 60_000 }).toBe(before + 2);
    await expect.poll(() => page.locator('[data-compaction-id]').filter({ hasText: 'by hand' }).count(), { timeout: 60_000 }).toBe(2);
    await expect(page.getByRole('dialog', { name: 'Context details' }).innerText()).resolves.toMatch(/Session totals[\s\S]*compactions · pruned results\s+\d+ · \d+/i);
    await screenshot(page, 'context-compact-button');
  });

  it('compacting a session with nothing to compact says so, and changes nothing', { timeout: 60_000 }, async () => {
    const { page } = await s.start('nothing to compact');
    await send(page, '/compact');
    const alert = page.getByRole('alert').filter({ hasText: 'Compacting the context failed' });
    await alert.waitFor({ timeout: 30_000 });
    await expect(alert.locator('p').innerText()).resolves.toMatch(/^Compacting the context failed: Nothing to compact yet: [^\n]*more work\. Nothing was changed; the conversation is as it was\.$/);
    await expect(page.locator('[data-compaction-id]').count()).resolves.toBe(0);
    await screenshot(page, 'context-compact-nothing');
  });
});
