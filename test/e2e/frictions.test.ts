/**
 * End-to-end: the page's smaller frictions, each at 1280×720 and 420×900 in headless Chromium against
 * the real launcher and a fake OpenAI-compatible server that lists one model. The changes panel offers
 * a commit only in a git repository; Test connection's success is a success and picks the only model;
 * select boxes show their whole text; a failing model server's retries are shown while they wait; the
 * full-output viewer states an ended output's exact line count, keeps line numbers at the end and
 * searches the whole file; the context meter says when pruning lowered it; the sidebar keeps one line;
 * Rewind and Edit are readable; a hint written for the model is not shown as the person's; the demo says
 * that any message starts its script.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ClampMessage, ContextInfo } from '../../lib/contract/protocol';
import { openDb } from '../../lib/store/db';
import { saveMessages } from '../../lib/store/messages';
import { createSession as storeSession } from '../../lib/store/sessions';
import type { FakeReply, FakeRequest } from '../fake-openai';
import { startClamp } from '../server/harness';
import { approvalFor, card, openClamp, screenshot, send, waitIdle } from './browser';
import { scriptedReplies, tagOf } from './scenarios';
import { e2eSuite } from './suite';

/** the two windows every check runs at */
const SIZES = [
  { name: 'wide', width: 1280, height: 720 },
  { name: 'narrow', width: 420, height: 900 },
] as const;

const BIG_LINES = 300_000;
const scripts = {
  write: [{ text: 'Writing it.', toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'a note\n' }, id: 'fr-write' }] }, { text: 'The note is written.' }],
  big: [{ text: 'Printing the numbers.', toolCalls: [{ name: 'run_command', args: { command: `seq 1 ${BIG_LINES}` }, id: 'fr-big' }] }, { text: 'That printed many lines.' }],
  ask: [{ text: 'Touching a file.', toolCalls: [{ name: 'run_command', args: { command: 'touch asked.txt' }, id: 'fr-ask' }] }, { text: 'Touched.' }],
  flaky: [{ text: 'Answered at last.' }],
};

/** The scripts, but the first two requests of a [e2e:flaky] message fail as a busy server does (503). */
function replies(): (req: FakeRequest) => FakeReply {
  const play = scriptedReplies(scripts);
  let flaky = 0;
  return (req) => (tagOf(req) === 'flaky' && ++flaky <= 2 ? { failStatus: 503, failMessage: 'the server is busy' } : play(req));
}

const s = e2eSuite('clamp-e2e-frictions-', { 'README.md': '# Not a repository\n' }, replies(), { models: ['fake'] });

/** The mode of the session with this title, as the server stores it. */
async function modeOf(title: string): Promise<string | undefined> {
  const { sessions } = (await (await s.clamp.api('/api/sessions')).json()) as { sessions: Array<{ title: string; mode: string }> };
  return sessions.find((x) => x.title === title)?.mode;
}

/** Visible select boxes whose chosen option's text is wider than the box shows (measured in the box's own font). */
async function cutSelects(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d')!;
    const out: string[] = [];
    for (const sel of document.querySelectorAll('select')) {
      if (!(sel instanceof HTMLSelectElement) || sel.offsetParent === null || sel.selectedIndex < 0) continue;
      const cs = getComputedStyle(sel);
      canvas.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const text = sel.options[sel.selectedIndex].text;
      const need = canvas.measureText(text).width;
      // the text's room: the box less its padding, borders and the arrow (about 1.25em)
      const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - parseFloat(cs.fontSize) * 1.25;
      if (need > room + 0.5) out.push(`${sel.id || sel.getAttribute('aria-label') || sel.closest('label')?.textContent?.slice(0, 40)}: "${text}" needs ${need.toFixed(0)} px, has ${room.toFixed(0)}`);
    }
    return out;
  });
}

describe('the page’s smaller frictions', () => {
  it('the launcher’s start prints no stray line of Next’s', () => {
    expect(s.clamp.output()).toMatch(/Open http:\/\/127\.0\.0\.1:\d+\//);
    expect(s.clamp.output()).not.toMatch(/Running next\.config|✓/);
  });

  it('outside a git repository the changes panel lists the changes and says why there is no commit, instead of offering one', { timeout: 120_000 }, async () => {
    const { page } = await s.start('no-repo');
    await page.selectOption('#mode-picker', 'accept-edits');
    await expect.poll(() => modeOf('no-repo'), { timeout: 10_000 }).toBe('accept-edits');
    await send(page, '[e2e:write] Write a note.');
    await page.getByText('The note is written.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    const button = page.getByRole('button', { name: /^Changes/ });
    await expect.poll(() => button.innerText(), { timeout: 15_000 }).toMatch(/Changes\s*1/);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await button.click();
      const panel = page.getByRole('dialog', { name: 'Changes in this session' });
      await panel.locator('[data-file="notes.txt"]').waitFor({ timeout: 15_000 });
      const why = panel.getByTestId('no-commit');
      await why.waitFor({ timeout: 15_000 });
      await expect(why.innerText()).resolves.toBe(
        `No commit from here: ${s.ws.workspace} is not in a git repository, so there is nothing to commit these changes to. Run git init there to start one; the changes stay listed here either way.`,
      );
      await expect(panel.getByRole('button', { name: /^Commit/ }).count()).resolves.toBe(0);
      await expect(panel.getByLabel('Commit message').count()).resolves.toBe(0);
      await expect(panel.getByRole('checkbox').count()).resolves.toBe(0);
      // revert is still there: it needs no repository
      await expect(panel.getByRole('button', { name: 'Revert notes.txt' }).count()).resolves.toBe(1);
      await screenshot(page, `frictions-changes-no-repo-${size.name}`);
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
    }
    // the route refuses too, in the same words
    const id = ((await (await s.clamp.api('/api/sessions')).json()) as { sessions: Array<{ id: string; title: string }> }).sessions.find((x) => x.title === 'no-repo')!.id;
    const r = await s.clamp.api(`/api/sessions/${id}/changes/commit`, { json: { paths: ['notes.txt'], message: 'x' } });
    expect(r.status).toBe(409);
    await expect(r.json()).resolves.toMatchObject({ error: expect.stringContaining('is not in a git repository') });
  });

  it('Test connection that reaches a server listing one model is a success, and that model is chosen', { timeout: 120_000 }, async () => {
    const { page } = await s.start('settings');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Provider').waitFor({ timeout: 15_000 });
      await dialog.getByLabel('Provider').selectOption('openai-compatible');
      await dialog.getByLabel('Base URL').fill(s.fake.url);
      const model = dialog.getByRole('textbox').first();
      await model.fill('');
      await dialog.getByRole('button', { name: 'Test connection' }).click();
      const status = dialog.locator('[data-settings-message="checked"]');
      await status.waitFor({ timeout: 15_000 });
      await expect(status.innerText()).resolves.toBe(`Reached the server at ${new URL(s.fake.url).origin}: 1 model listed. Clamp uses fake, the only one listed; it is filled in as the Model.`);
      await expect(status.getAttribute('role')).resolves.toBe('status');
      // green, not red
      await expect(status.getAttribute('class')).resolves.toMatch(/text-emerald-/);
      await expect(dialog.getByRole('alert').count()).resolves.toBe(0);
      await expect(model.inputValue()).resolves.toBe('fake');
      const picker = dialog.getByLabel(/^Models the provider lists \(1\)/);
      await expect(picker.inputValue()).resolves.toBe('fake');
      await expect(cutSelects(page)).resolves.toEqual([]);
      await screenshot(page, `frictions-settings-test-${size.name}`);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
  });

  it('a model server that fails: "retrying (1/2) in 2 s…" shows while it waits, then the answer', { timeout: 120_000 }, async () => {
    const { page } = await s.start('flaky');
    await page.setViewportSize(SIZES[0]);
    await send(page, '[e2e:flaky] Say something.');
    const notice = page.getByText(/retrying \(1\/2\) in 2 s…/);
    await notice.waitFor({ timeout: 15_000 });
    await expect(notice.innerText()).resolves.toBe('fake failed on its side (503): retrying (1/2) in 2 s…');
    await screenshot(page, 'frictions-retrying-wide');
    await page.getByText(/retrying \(2\/2\) in 4 s…/).waitFor({ timeout: 15_000 });
    await page.setViewportSize(SIZES[1]);
    await screenshot(page, 'frictions-retrying-narrow');
    await page.getByText('Answered at last.').waitFor({ timeout: 30_000 });
    await page.getByText('fake answered after 2 retries.').waitFor({ timeout: 10_000 });
    await waitIdle(page);
    // no error: neither a failed turn nor an error notice in the conversation
    await expect(page.getByText(/The turn failed/).count()).resolves.toBe(0);
    await expect(page.locator('[data-chat-scroll] [role="alert"]').count()).resolves.toBe(0);
  });

  it('the full-output viewer: the exact line count of an ended output, numbers kept at the end, and a search over the whole file', { timeout: 180_000 }, async () => {
    const { page } = await s.start('big output');
    await send(page, '[e2e:big] Print the numbers.');
    await page.getByText('That printed many lines.').waitFor({ timeout: 60_000 });
    await waitIdle(page);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const note = card(page, 'fr-big').getByRole('note').first();
      await note.scrollIntoViewIfNeeded();
      await note.getByRole('button', { name: 'Open full output' }).click();
      const dialog = page.getByRole('dialog');
      const label = dialog.locator('header p');
      await expect.poll(() => label.innerText(), { timeout: 20_000 }).toMatch(/^lines 1–\d+ of 300,000 · /);
      await expect(dialog.locator('footer').innerText()).resolves.toContain('Scroll to load more.');
      await screenshot(page, `frictions-viewer-start-${size.name}`);

      // Jump to end: the line numbers stay, and the end says it is the end
      await dialog.getByRole('button', { name: 'Jump to end' }).click();
      await expect.poll(() => label.innerText(), { timeout: 20_000 }).toMatch(/^lines [\d,]+–300,000 of 300,000 · /);
      const lastRow = await dialog.evaluate((d) => {
        const rows = [...d.querySelectorAll<HTMLElement>('[role="region"] div.absolute')];
        const last = rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).at(-1)!;
        return { gutter: last.firstElementChild?.textContent, text: last.lastElementChild?.textContent };
      });
      expect(lastRow).toEqual({ gutter: '300000', text: '300000' });
      await expect.poll(() => dialog.locator('footer').innerText()).toContain('End of the output.');
      await expect(dialog.locator('footer').innerText()).resolves.not.toContain('Scroll to load more');
      await screenshot(page, `frictions-viewer-end-${size.name}`);

      // search the whole file (the end is loaded; the match is near the start): count, then next and previous
      const search = dialog.getByRole('searchbox', { name: 'Search the whole output' });
      await search.fill('12345');
      await search.press('Enter');
      const status = dialog.getByTestId('search-status');
      // 12345, 112345, 123450–123459, 212345
      await expect.poll(() => status.innerText(), { timeout: 20_000 }).toBe('1 of 13');
      const current = dialog.locator('[data-match="current"]');
      await expect.poll(() => current.locator('span').last().innerText(), { timeout: 20_000 }).toBe('12345');
      await expect(current.locator('span').first().innerText()).resolves.toBe('12345');
      await expect(label.innerText()).resolves.toMatch(/ of 300,000 · /);
      await dialog.getByRole('button', { name: 'Next match' }).click();
      await expect.poll(() => status.innerText()).toBe('2 of 13');
      await expect.poll(() => current.locator('span').last().innerText(), { timeout: 20_000 }).toBe('112345');
      await dialog.getByRole('button', { name: 'Previous match' }).click();
      await dialog.getByRole('button', { name: 'Previous match' }).click();
      await expect.poll(() => status.innerText()).toBe('13 of 13');
      await expect.poll(() => current.locator('span').last().innerText(), { timeout: 20_000 }).toBe('212345');
      await screenshot(page, `frictions-viewer-search-${size.name}`);
      // Esc clears the search first, then closes
      await search.press('Escape');
      await expect(search.inputValue()).resolves.toBe('');
      await expect(dialog.count()).resolves.toBe(1);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
    // the card's hint is the model's, and says so
    const hint = card(page, 'fr-big').getByTestId('model-hint');
    await expect(hint.innerText()).resolves.toBe('What the model was told to do next');
    await expect(card(page, 'fr-big').innerText()).resolves.not.toMatch(/^Hint:/m);
  });

  it('the context meter says when pruning lowered it, at both widths', { timeout: 60_000 }, async () => {
    const db = openDb(s.ws.dataDir);
    const sess = storeSession(db, { workspace: fs.realpathSync(s.ws.workspace), title: 'pruned meter', mode: 'default' });
    const ctx = (step: number, used: number, lowered?: ContextInfo['lowered']): ClampMessage['parts'][number] =>
      ({ type: 'data-context', data: { usedTokens: used, windowTokens: 16_384, windowSource: { kind: 'server', detail: 'test' }, step, estimated: true, breakdown: { systemAndTools: 3000, projectDocs: 0, conversation: 500, toolResults: used - 3500 }, ...(lowered ? { lowered } : {}) } }) as never;
    saveMessages(db, sess.id, [
      { id: 'pm-u1', role: 'user', parts: [{ type: 'text', text: 'Read everything.' }] },
      { id: 'pm-a1', role: 'assistant', parts: [ctx(4, 9800), { type: 'text', text: 'Reading.' }, ctx(5, 6200, { by: 'pruning', fromTokens: 9800 })] },
    ]);
    const { page, errors } = await openClamp(s.ctx, s.clamp, sess.id);
    try {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        const mark = page.getByRole('banner').getByTestId('context-lowered');
        await mark.waitFor({ timeout: 15_000 });
        await expect(mark.innerText()).resolves.toBe('↓ pruned');
        await expect(page.getByRole('meter', { name: 'Context window used' }).getAttribute('aria-valuetext')).resolves.toBe('6.2k / 16k tokens; Pruning lowered it from 9,800 tokens');
        await page.getByRole('banner').getByRole('button', { name: /Context/ }).click();
        const details = page.getByRole('dialog', { name: 'Context details' });
        await expect(details.innerText()).resolves.toContain('Pruning lowered it from 9,800 tokens before step 5: older tool results are sent as short stubs');
        await screenshot(page, `frictions-meter-pruned-${size.name}`);
        await page.keyboard.press('Escape');
      }
    } finally {
      await page.close();
    }
    expect(errors).toEqual([]);
  });

  it('a waiting session keeps its sidebar line whole; Rewind and Edit are readable at rest', { timeout: 120_000 }, async () => {
    const { page } = await s.start('waiting');
    await page.setViewportSize(SIZES[0]);
    await send(page, '[e2e:ask] Touch a file.');
    await approvalFor(page, 'fr-ask');
    const entry = page.getByRole('navigation', { name: 'Sessions' }).locator('li', { hasText: 'waiting' }).first();
    await expect.poll(() => entry.innerText(), { timeout: 15_000 }).toMatch(/1 waiting/);
    // every item of the line on one line: "just now" never wraps
    const lines = await entry.getByTestId('session-meta').evaluate((el) => [...el.children].map((c) => ({ text: c.textContent, lines: c.getClientRects().length, h: c.getBoundingClientRect().height })));
    for (const item of lines) expect(item.lines, JSON.stringify(lines)).toBe(1);
    expect(Math.max(...lines.map((l) => l.h)) - Math.min(...lines.map((l) => l.h))).toBeLessThan(2);
    expect(lines.map((l) => l.text)).toEqual(['just now', 'default', '1 waiting']);
    // Rewind and Edit: WCAG AA contrast on the chat's background, without hovering
    await page.mouse.move(0, 0);
    for (const name of ['Rewind to before this message', 'Edit this message']) {
      const ratio = await page.getByRole('button', { name }).first().evaluate((el) => {
        const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
        let alpha = 1;
        for (let e: Element | null = el; e; e = e.parentElement) alpha *= Number(getComputedStyle(e).opacity);
        let bg = [255, 255, 255];
        for (let e: Element | null = el; e; e = e.parentElement) {
          const c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length === 3 || (c.length === 4 && c[3] > 0)) {
            bg = c.slice(0, 3);
            break;
          }
        }
        const fg = rgb(getComputedStyle(el).color).slice(0, 3).map((v, i) => v * alpha + bg[i] * (1 - alpha));
        const lum = (c: number[]) => {
          const [r, g, b] = c.map((v) => {
            const x = v / 255;
            return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
      });
      expect(ratio, name).toBeGreaterThanOrEqual(4.5);
    }
    await screenshot(page, 'frictions-waiting-wide');
    await page.setViewportSize(SIZES[1]);
    await screenshot(page, 'frictions-waiting-narrow');
  });

  it('the demo (a scripted model) says that any message starts its script', { timeout: 120_000 }, async () => {
    const script = path.join(s.ws.root, 'demo-script.json');
    fs.writeFileSync(script, JSON.stringify([{ text: 'The script plays.' }]));
    const demoData = path.join(s.ws.root, 'demo-data');
    fs.mkdirSync(demoData);
    const demo = await startClamp({ CLAMP_WORKSPACE: s.ws.workspace, CLAMP_DATA_DIR: demoData, CLAMP_MODEL: `scripted:${script}`, CLAMP_MODE: 'default' });
    try {
      const res = await demo.api('/api/sessions', { json: { title: 'demo' } });
      const id = ((await res.json()) as { session: { id: string } }).session.id;
      const { page, errors } = await openClamp(s.ctx, demo, id);
      for (const size of SIZES) {
        await page.setViewportSize(size);
        const note = page.getByTestId('demo-note');
        await note.waitFor({ timeout: 15_000 });
        await expect(note.innerText()).resolves.toMatch(/^This is the demo: a scripted model, not a real one\.\s+Send any message to start its script\./);
        await screenshot(page, `frictions-demo-note-${size.name}`);
      }
      await send(page, 'anything at all');
      await page.getByText('The script plays.').waitFor({ timeout: 30_000 });
      await page.close();
      expect(errors).toEqual([]);
    } finally {
      await demo.stop();
    }
  });
});
