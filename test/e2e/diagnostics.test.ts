/**
 * End-to-end: diagnostics after edits in headless Chromium, against the real launcher, the real
 * typescript-language-server and a fake model: the edit's card says how many new errors the change made
 * and lists them; the settings dialog lists the language servers and turns diagnostics off.
 */
import { describe, expect, it } from 'vitest';
import { card, screenshot, send, waitIdle } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';
import { DIAGNOSTICS_COLD_START_FIGURE_MS } from '../../bench/diagnostics';

const APP_TS = 'export const port: number = 8080;\n\nexport function url(): string {\n  return `http://localhost:${port}`;\n}\n';
const edit = (id: string, from: string, to: string) => ({ toolCalls: [{ name: 'edit_file', args: { path: 'src/app.ts', old_string: from, new_string: to }, id }] });

const scripts = {
  // the first break may meet a cold server; it is fixed and broken again, by then the server is warm
  diag: [
    { toolCalls: [{ name: 'read_file', args: { path: 'src/app.ts' }, id: 'dg-read' }] },
    edit('dg-break-1', 'port: number = 8080', "port: number = '8080'"),
    edit('dg-fix', "port: number = '8080'", 'port: number = 8080'),
    edit('dg-break-2', 'port: number = 8080', "port: number = '8080'"),
    { text: 'The port is a string now; the checker disagrees.' },
  ],
};

const s = e2eSuite('clamp-e2e-diag-', { 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ['src'] }), 'src/app.ts': APP_TS, 'notes.md': '# notes\n' }, scriptedReplies(scripts));

describe('diagnostics after edits in the browser', () => {
  it("an edit's card shows its new error; the settings dialog lists the server and turns it off", { timeout: 6 * DIAGNOSTICS_COLD_START_FIGURE_MS }, async () => {
    const { page } = await s.start('diagnostics');
    await page.selectOption('#mode-picker', 'accept-edits');
    await expect.poll(async () => ((await (await s.clamp.api('/api/sessions')).json()) as { sessions: { mode: string }[] }).sessions[0]?.mode, { timeout: 10_000 }).toBe('accept-edits');
    await send(page, '[e2e:diag] Make the port a string.');
    await page.getByText('The port is a string now').waitFor({ timeout: 5 * DIAGNOSTICS_COLD_START_FIGURE_MS });
    await waitIdle(page);

    const fix = card(page, 'dg-fix');
    await expect(fix.locator('[data-diagnostics]').getAttribute('data-diagnostics')).resolves.toMatch(/checked|not-ready/);
    const broken = card(page, 'dg-break-2');
    const badge = broken.locator('[data-diagnostics]');
    await expect(badge.innerText()).resolves.toBe('1 new error');
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
