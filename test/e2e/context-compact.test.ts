/**
 * End-to-end: compaction on the page, through the real server and the fake OpenAI-compatible server
 * enforcing a 16,384-token window that it reports as vLLM does. A turn of 40 reads compacts on its
 * own: the divider appears live with the summary one click away, the earlier cards stay in the list,
 * and the meter names the server's own answer as the window's source.
 */
import { describe, expect, it } from 'vitest';
import type { FakeReply, FakeRequest } from '../fake-openai';
import { card, screenshot, send, waitIdle } from './browser';
import { findInChat, scrollChat } from './chat-scroll';
import { e2eSuite } from './suite';

const READS = 40;
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

describe('compaction in the browser', () => {
  it('a turn of 40 reads on a 16,384-token window compacts on its own: the divider, its summary, the earlier cards still there', { timeout: 240_000 }, async () => {
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
  });
});
