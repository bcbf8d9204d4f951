/**
 * End-to-end: the session's context on the page, from a conversation stored with the data parts the
 * server writes (data-context, data-ledger, data-pruned, data-compaction): the header's meter and its
 * breakdown, the window's source, the turn's ledger, pruned cards with their stubs, the compaction
 * divider with its summary (and a fallback said plainly), the earlier messages still there to scroll.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ClampMessage, CompactionInfo, ContextInfo, LedgerStep } from '../../lib/contract/protocol';
import { openDb } from '../../lib/store/db';
import { saveMessages } from '../../lib/store/messages';
import { createSession } from '../../lib/store/sessions';
import { card, openClamp, screenshot } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const s = e2eSuite('clamp-e2e-context-', { 'README.md': '# Demo\n' }, scriptedReplies({}));

const SUMMARY = '## Goal\nRead every module under src/ and report the exported values.\n\n## Files read\n- src/mod-0.ts … src/mod-5.ts (values 0–5039)\n\n## Next step\nRead src/mod-6.ts.';

function read(i: number): ClampMessage['parts'][number] {
  const output = Array.from({ length: 30 }, (_, k) => `export const v${i}_${k} = ${k};`).join('\n');
  return { type: 'tool-read_file', toolCallId: `ctx-read-${i}`, state: 'output-available', input: { path: `src/mod-${i}.ts` }, output: { status: 'ok', output, truncation: null } } as never;
}

function ledger(step: number, fresh: number, cacheRead: number): ClampMessage['parts'][number] {
  const data: LedgerStep = { step, inputTokens: { fresh, cacheRead, cacheWrite: step === 1 ? 2100 : 0 }, outputTokens: 120 + step, estimatedInputTokens: fresh + cacheRead, toolBytesProduced: step * 800, toolBytesShown: step * 800 - (step > 4 ? 2400 : 0), costUsd: null, model: 'fake' };
  return { type: 'data-ledger', data };
}

function context(step: number, used: number, estimated: boolean): ClampMessage['parts'][number] {
  const data: ContextInfo = {
    usedTokens: used,
    windowTokens: 16_384,
    windowSource: { kind: 'server', detail: 'vLLM /v1/models max_model_len' },
    step,
    estimated,
    breakdown: { systemAndTools: 3000, projectDocs: 400, conversation: Math.round((used - 3400) * 0.3), toolResults: Math.round((used - 3400) * 0.7) },
  };
  return { type: 'data-context', data };
}

function compaction(id: string, step: number, outcome: CompactionInfo['outcome'], trigger: CompactionInfo['trigger'], firstKeptMessageId: string): ClampMessage['parts'][number] {
  const data: CompactionInfo = { id, step, beforeTokens: 14_800, afterTokens: outcome === 'summary' ? 3_100 : 9_600, summary: outcome === 'summary' ? SUMMARY : 'No summary could be written (the model answered with nothing); older tool results were pruned instead.', trigger, firstKeptMessageId, firstKeptStep: step - 1, outcome, durationMs: 2300 };
  return { type: 'data-compaction', data };
}

/** A stored session of two turns: six reads, three of them pruned at step 5, a compaction at step 7, then a fallback one at step 9. */
function seed(): string {
  const db = openDb(s.ws.dataDir);
  const sess = createSession(db, { workspace: fs.realpathSync(s.ws.workspace), title: 'context on the page', mode: 'default' });
  const messages: ClampMessage[] = [
    { id: 'cx-u1', role: 'user', parts: [{ type: 'text', text: 'Read every module under src/ and tell me the values.' }] },
    {
      id: 'cx-a1',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Reading the modules one by one.' },
        ...[0, 1, 2, 3, 4, 5].flatMap((i) => [ledger(i + 1, 2000 + i * 1500, i ? 2000 : 0), context(i + 1, 4000 + i * 1800, false), read(i)]),
        { type: 'data-pruned', data: { step: 5, items: [0, 1, 2].map((i) => ({ toolCallId: `ctx-read-${i}`, toolName: 'read_file', bytes: 900 + i, stub: `[read_file src/mod-${i}.ts, step ${i + 1}: ${900 + i} bytes elided to save context; read it again if you need it]`, spillPath: null })) } },
        { type: 'text', text: 'All six read.' },
      ],
    },
    { id: 'cx-u2', role: 'user', parts: [{ type: 'text', text: 'Now go on with the rest.' }] },
    {
      id: 'cx-a2',
      role: 'assistant',
      parts: [
        compaction('cmp-1', 7, 'summary', 'auto', 'cx-a1'),
        ledger(7, 1200, 1900),
        context(7, 3100, false),
        { type: 'text', text: 'Continuing after the summary.' },
        compaction('cmp-2', 9, 'fallback-pruning', 'overflow', 'cx-a2'),
        ledger(8, 1500, 2100),
        ledger(9, 1600, 2200),
        context(9, 9600, true),
        { type: 'text', text: 'Done for now.' },
      ],
    },
  ];
  saveMessages(db, sess.id, messages);
  return sess.id;
}

async function scrollTo(page: Page, where: 'top' | 'bottom'): Promise<void> {
  await page.evaluate((w) => {
    const el = document.querySelector<HTMLElement>('[data-chat-scroll]')!;
    el.scrollTop = w === 'top' ? 0 : el.scrollHeight;
  }, where);
}

describe('the context on the page', () => {
  it('the meter, its breakdown, source and ledger; pruned cards; the divider with its summary', { timeout: 120_000 }, async () => {
    const id = seed();
    const { page, errors } = await openClamp(s.ctx, s.clamp, id);
    try {
      // the meter shows the latest context: 9,600 of 16,384 tokens
      const meter = page.getByRole('meter', { name: 'Context window used' });
      await expect.poll(() => meter.getAttribute('aria-valuenow')).toBe('9600');
      await expect(meter.getAttribute('aria-valuemax')).resolves.toBe('16384');
      await expect(page.getByRole('banner').innerText()).resolves.toContain('9.6k / 16k tokens');

      // the details: source, breakdown by kind, the turn's ledger on demand
      await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
      const details = page.getByRole('dialog', { name: 'Context details' });
      await details.waitFor();
      const text = await details.innerText();
      expect(text).toContain('9,600 of 16,384 tokens (59%)');
      expect(text).toContain("What the request at step 9 holds: the provider's count of the one before, and Clamp's estimate of what was added");
      expect(text).toContain("Window size from the model server's own answer: vLLM /v1/models max_model_len");
      const kinds = await details.getByRole('table', { name: 'Context by kind' }).innerText();
      expect(kinds).toMatch(/system \+ tools\s+3\.0k/);
      expect(kinds).toMatch(/project docs\s+400/);
      expect(kinds).toMatch(/conversation\s+1\.9k/);
      expect(kinds).toMatch(/tool results\s+4\.3k/);
      await details.getByRole('button', { name: /Show this turn's ledger \(3 steps\)/ }).click();
      const ledgerRows = details.getByRole('table', { name: "This turn's ledger" }).locator('tbody tr');
      await expect(ledgerRows.count()).resolves.toBe(3);
      await expect(ledgerRows.nth(2).innerText()).resolves.toMatch(/^9\s+1\.6k\s+2\.2k\s+0\s+129\s+7,200 bytes → 4,800 bytes\s+—$/);
      await screenshot(page, 'context-meter-details');
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });

      // the dividers: the summary one click away; the fallback said plainly
      const divider = page.getByRole('separator', { name: 'Context compacted at step 7: 15k → 3.1k tokens' });
      await divider.waitFor();
      await expect(divider.innerText()).resolves.toContain('automatic');
      await divider.getByRole('button', { name: 'Show summary' }).click();
      await divider.getByText('Read src/mod-6.ts.').waitFor();
      const fallback = page.getByRole('separator', { name: 'Context reduced at step 9 without a summary: 15k → 9.6k tokens' });
      await expect(fallback.innerText()).resolves.toMatch(/after the provider said the request was too long[\s\S]*The summary could not be written, so older tool results were pruned harder instead/);
      await screenshot(page, 'context-divider');

      // the earlier messages are still there, and pruned cards say so with their stub on demand
      await scrollTo(page, 'top');
      await page.getByText('Read every module under src/ and tell me the values.', { exact: true }).waitFor();
      const pruned = card(page, 'ctx-read-1');
      await expect(pruned.getAttribute('data-pruned')).resolves.toBe('true');
      // collapsed, the card says since when; opened, what the model sees instead
      await expect(pruned.locator('button').first().innerText()).resolves.toContain('pruned at step 5');
      await pruned.locator('button').first().click();
      await expect(pruned.innerText()).resolves.toContain('Pruned from context at step 5: the model sees a stub instead of these 901 bytes; full output kept');
      await pruned.getByRole('button', { name: 'Show the stub' }).click();
      await expect(pruned.getByLabel('What the model is sent instead').innerText()).resolves.toBe('[read_file src/mod-1.ts, step 2: 901 bytes elided to save context; read it again if you need it]');
      await expect(card(page, 'ctx-read-4').getAttribute('data-pruned')).resolves.toBeNull();
      await screenshot(page, 'context-pruned-card');

      await page.emulateMedia({ colorScheme: 'dark' });
      await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
      await page.getByRole('dialog', { name: 'Context details' }).waitFor();
      await screenshot(page, 'context-dark');
    } finally {
      await page.close();
    }
    expect(errors).toEqual([]);
  });
});
