/**
 * End-to-end: diagnostics after edits in headless Chromium, against the real launcher, the real
 * typescript-language-server and a fake model: the edit's card says how many new errors the change made
 * and lists them; the settings dialog lists the language servers and turns diagnostics off. With a language
 * server that takes 5 s to start, the card says "checking" and shows the errors when they arrive, during
 * the turn and after it, and after a reload.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { card, createSession, openClamp, screenshot, send, waitIdle } from './browser';
import { scriptedReplies, tagOf, toolResults } from './scenarios';
import type { FakeReply, FakeRequest } from '../fake-openai';
import { e2eSuite } from './suite';
import { DIAGNOSTICS_COLD_START_FIGURE_MS } from '../../bench/diagnostics';

const APP_TS = 'export const port: number = 8080;\n\nexport function url(): string {\n  return `http://localhost:${port}`;\n}\n';
const edit = (id: string, from: string, to: string) => ({ toolCalls: [{ name: 'edit_file', args: { path: 'src/app.ts', old_string: from, new_string: to }, id }] });

const scripts = {
  // the first break may meet a cold server (its result goes back pending); it is fixed and broken again
  diag: [
    { toolCalls: [{ name: 'read_file', args: { path: 'src/app.ts' }, id: 'dg-read' }] },
    edit('dg-break-1', 'port: number = 8080', "port: number = '8080'"),
    edit('dg-fix', "port: number = '8080'", 'port: number = 8080'),
    edit('dg-break-2', 'port: number = 8080', "port: number = '8080'"),
    { text: 'The port is a string now; the checker disagrees.' },
  ],
};

const FAKE_LSP = path.resolve(__dirname, '../lsp/fake-lsp.mjs');
const SLOW_START_MS = 5000;
const NOTE = '[Clamp: diagnostics of earlier changes, which arrived after their results.';

/**
 * "[e2e:late]": write a.slow, then read notes.md half a second apart until a result carries the late
 * diagnostics, then say so. "[e2e:late-idle]": write b.slower and end the turn at once.
 */
function lateReplies(req: FakeRequest): FakeReply | undefined {
  const tag = tagOf(req);
  const msgs = req.body.messages;
  const results = toolResults(req);
  if (tag === 'late') {
    if (msgs.at(-1)?.role === 'user') return { toolCalls: [{ name: 'write_file', args: { path: 'a.slow', content: 'ok\nBAD line\n' }, id: 'lt-write' }] };
    if (!results.some((t) => t.includes(NOTE)) && results.length < 60) return { delayMs: 500, toolCalls: [{ name: 'read_file', args: { path: 'notes.md' }, id: `lt-read-${results.length}` }] };
    return { text: 'The late check found a BAD line.' };
  }
  if (tag === 'late-idle') {
    if (msgs.at(-1)?.role === 'user') return { toolCalls: [{ name: 'write_file', args: { path: 'b.slower', content: 'BAD\n' }, id: 'lt-idle-write' }] };
    return { text: 'Written; its check goes on.' };
  }
  return undefined;
}

const scripted = scriptedReplies(scripts);
// lib without the DOM's declarations, which src/app.ts never uses: the TypeScript server loads about 1.2 s of CPU less
const s = e2eSuite('clamp-e2e-diag-', { 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, lib: ['ES2022'] }, include: ['src'] }), 'src/app.ts': APP_TS, 'notes.md': '# notes\n' }, (req) => lateReplies(req) ?? scripted(req));

/** Stand-in language servers that take SLOW_START_MS to start (the person's lsp.json), each cold for one test. */
function slowServers(): void {
  const servers = Object.fromEntries(['slow', 'slower'].map((name) => [name, { command: process.execPath, args: [FAKE_LSP, 'push', '--init-delay-ms', String(SLOW_START_MS)], patterns: [`*.${name}`], sandbox: false }]));
  fs.writeFileSync(path.join(s.ws.dataDir, 'lsp.json'), JSON.stringify({ servers }));
}

describe('diagnostics after edits in the browser', () => {
  it("an edit's card shows its new error; the settings dialog lists the server and turns it off", { timeout: 9 * DIAGNOSTICS_COLD_START_FIGURE_MS }, async () => {
    const { page } = await s.start('diagnostics');
    await page.selectOption('#mode-picker', 'accept-edits');
    await expect.poll(async () => ((await (await s.clamp.api('/api/sessions')).json()) as { sessions: { mode: string }[] }).sessions[0]?.mode, { timeout: 10_000 }).toBe('accept-edits');
    await send(page, '[e2e:diag] Make the port a string.');
    await page.getByText('The port is a string now').waitFor({ timeout: 5 * DIAGNOSTICS_COLD_START_FIGURE_MS });
    await waitIdle(page);

    // a call whose result went back before the server answered shows the answer when it comes
    const fix = card(page, 'dg-fix');
    await expect.poll(() => fix.locator('[data-diagnostics]').getAttribute('data-diagnostics'), { timeout: 3 * DIAGNOSTICS_COLD_START_FIGURE_MS }).toMatch(/checked|not-ready/);
    const broken = card(page, 'dg-break-2');
    const badge = broken.locator('[data-diagnostics]');
    await expect.poll(() => badge.innerText(), { timeout: 3 * DIAGNOSTICS_COLD_START_FIGURE_MS }).toBe('1 new error');
    const list = broken.locator('[data-diagnostics-list]');
    await list.waitFor();
    const text = await list.innerText();
    expect(text).toContain('src/app.ts:1:14');
    expect(text).toContain("TS2322 Type 'string' is not assignable to type 'number'.");
    await broken.scrollIntoViewIfNeeded();
    await screenshot(page, 'diagnostics-card');

    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.locator('[data-settings-diagnostics]');
    await section.waitFor();
    await expect(section.locator('[data-language-server="typescript"]').getAttribute('data-state')).resolves.toBe('running');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'diagnostics-settings');
    await section.getByLabel('Check edited files with language servers').uncheck();
    await expect.poll(async () => ((await (await s.clamp.api('/api/settings/diagnostics')).json()) as { enabled: boolean }).enabled).toBe(false);
    await expect.poll(() => section.locator('[data-language-server="typescript"]').getAttribute('data-state')).toBe('idle');
  });
});

/** The card's diagnostics badge and list once the late report has arrived. */
async function expectLateErrors(page: Page, id: string, file: string, line: number): Promise<void> {
  const c = card(page, id);
  await expect.poll(() => c.locator('[data-diagnostics]').getAttribute('data-diagnostics'), { timeout: 6 * SLOW_START_MS }).toBe('checked');
  await expect(c.locator('[data-diagnostics]').innerText()).resolves.toBe('1 new error');
  if (!(await c.locator('[data-diagnostics-list]').isVisible())) await c.locator('button').first().click();
  await expect(c.locator('[data-diagnostics-list]').innerText()).resolves.toContain(`${file}:${line}:1`);
}

describe('an edit does not wait on a cold language server, in the browser', () => {
  it('during the turn: the card says "checking", then shows the errors when they arrive; the model read them; a reload still shows them', { timeout: 120_000 }, async () => {
    slowServers();
    await s.clamp.api('/api/settings/diagnostics', { method: 'PUT', json: { enabled: true } });
    const id = await createSession(s.clamp, 'late diagnostics', 'accept-edits');
    const { page, errors } = await openClamp(s.ctx, s.clamp, id);
    try {
      await page.setViewportSize({ width: 1280, height: 720 });
      await send(page, '[e2e:late] Write a.slow.');
      const badge = card(page, 'lt-write').locator('[data-diagnostics]');
      await expect.poll(() => badge.getAttribute('data-diagnostics'), { timeout: 20_000 }).toBe('pending');
      await expect(badge.innerText()).resolves.toBe('checking…');
      await screenshot(page, 'diagnostics-late-pending-1280');
      await expectLateErrors(page, 'lt-write', 'a.slow', 2);
      await page.getByText('The late check found a BAD line.').waitFor({ timeout: 30_000 });
      // the model read them with a later result of the same turn
      const read = s.fake.requests.filter((r) => tagOf(r) === 'late').flatMap(toolResults).filter((t) => t.includes(NOTE));
      expect(read).toEqual([expect.stringContaining(`${NOTE}\nwrite_file of a.slow (call lt-write): Diagnostics (slow): 1 new error (showing 1):\n  a.slow:2:1 error [bad]: BAD is not allowed here]`)]);
      await card(page, 'lt-write').scrollIntoViewIfNeeded();
      await screenshot(page, 'diagnostics-late-arrived-1280');
      await page.reload();
      await page.waitForSelector('#chat-input');
      await expectLateErrors(page, 'lt-write', 'a.slow', 2);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('after the turn: the idle page shows them when they arrive, at 420 px too; a reload still shows them', { timeout: 120_000 }, async () => {
    slowServers();
    const id = await createSession(s.clamp, 'late diagnostics, idle', 'accept-edits');
    const { page, errors } = await openClamp(s.ctx, s.clamp, id);
    try {
      await page.setViewportSize({ width: 420, height: 900 });
      await send(page, '[e2e:late-idle] Write b.slower.');
      await page.getByText('Written; its check goes on.').waitFor({ timeout: 20_000 });
      await waitIdle(page);
      const badge = card(page, 'lt-idle-write').locator('[data-diagnostics]');
      await expect(badge.getAttribute('data-diagnostics')).resolves.toBe('pending');
      await screenshot(page, 'diagnostics-late-pending-420');
      await expectLateErrors(page, 'lt-idle-write', 'b.slower', 1);
      await screenshot(page, 'diagnostics-late-arrived-420');
      await page.reload();
      await page.waitForSelector('#chat-input');
      await expectLateErrors(page, 'lt-idle-write', 'b.slower', 1);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
