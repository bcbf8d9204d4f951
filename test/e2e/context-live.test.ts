/**
 * End-to-end: the session's context live, through the real server and the fake OpenAI-compatible
 * model with a 16,384-token window set in the settings: a turn of many reads fills the window, the
 * server prunes old results, and the page shows it: the meter with the window's source and the
 * turn's ledger, and the pruned cards with exactly the stub the model was sent.
 */
import { describe, expect, it } from 'vitest';
import { card, screenshot, send, waitIdle } from './browser';
import type { FakeReply, FakeRequest } from '../fake-openai';
import { toolResults } from './scenarios';
import { e2eSuite } from './suite';

const FILES = 9;
const WINDOW_TOKENS = 16_384;
const files: Record<string, string> = { 'README.md': '# Demo\n' };
for (let i = 0; i < FILES; i++) files[`src/part-${i}.ts`] = Array.from({ length: 120 }, (_, k) => `export const part${i}_line${k} = 'value ${i}-${k} padded to make the line longer';`).join('\n') + '\n';

// one read per step, counted here: the server may summarise older steps, so the request's own history does not count them
let made = 0;
function replies(req: FakeRequest): FakeReply {
  if (!req.body.tools) return { text: '## Goal\n- read every part\n## Next step\n- read the next part' };
  if (made >= FILES) return { text: 'Every part read.' };
  const i = made++;
  return { text: `Reading part ${i}.`, toolCalls: [{ name: 'read_file', args: { path: `src/part-${i}.ts` }, id: `live-read-${i}` }] };
}
const s = e2eSuite('clamp-e2e-context-live-', files, replies);

describe('the context live in the browser', () => {
  it('a turn that fills a 16,384-token window: pruned cards carry the stub the model was sent; the meter names the settings as the source', { timeout: 180_000 }, async () => {
    const put = await s.clamp.api('/api/settings', { method: 'PUT', json: { contextWindow: WINDOW_TOKENS } });
    expect(put.status).toBe(200);
    const { page } = await s.start('live context');
    await send(page, 'Read every part under src/.');
    await page.getByText('Every part read.').waitFor({ timeout: 120_000 });
    await waitIdle(page);

    const meter = page.getByRole('meter', { name: 'Context window used' });
    await expect.poll(() => meter.getAttribute('aria-valuemax')).toBe(String(WINDOW_TOKENS));
    const used = Number(await meter.getAttribute('aria-valuenow'));
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(WINDOW_TOKENS);

    // the newest read is never pruned; the first is, once the window fills
    await expect(card(page, `live-read-${FILES - 1}`).getAttribute('data-pruned')).resolves.toBeNull();
    await page.evaluate(() => {
      document.querySelector<HTMLElement>('[data-chat-scroll]')!.scrollTop = 0;
    });
    const first = card(page, 'live-read-0');
    await first.waitFor();
    await expect.poll(() => first.getAttribute('data-pruned'), { timeout: 10_000 }).toBe('true');
    await first.locator('button').first().click();
    await first.getByRole('button', { name: 'Show the stub' }).click();
    // the stub on the card is exactly what the model was sent for that read, from the step it names on
    const stub = await first.getByLabel('What the model is sent instead').innerText();
    const main = s.fake.requests.filter((r) => r.body.tools);
    const firstStub = main.findIndex((r) => toolResults(r).includes(stub));
    expect(firstStub, 'a request carried the stub').toBeGreaterThan(0);
    const fullText = files['src/part-0.ts'].split('\n')[0];
    expect(toolResults(main[firstStub - 1]).some((t) => t.includes(fullText)), 'the request before carried the full result').toBe(true);
    for (const r of main.slice(firstStub)) expect(toolResults(r).some((t) => t.includes(fullText)), 'no later request carries the full result').toBe(false);
    await screenshot(page, 'context-live-pruned');

    await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
    const details = page.getByRole('dialog', { name: 'Context details' });
    await expect(details.innerText()).resolves.toContain('Window size from the settings override');
    await details.getByRole('button', { name: /Show this turn's ledger/ }).click();
    const rows = await details.getByRole('table', { name: "This turn's ledger" }).locator('tbody tr').count();
    expect(rows).toBe(FILES + 1);
    await screenshot(page, 'context-live-meter');
  });
});
