/**
 * End-to-end: the changes panel, against the real launcher, the real changes routes and a fake
 * OpenAI-compatible model, in a git repository. A session edits a file, writes a new one and runs
 * a command that deletes one; the header's Changes button lists every file with its diff against
 * the session's start; a per-file revert (after its confirmation) restores the file on disk; "commit
 * these" commits the selected files through git_commit, and plan mode's refusal is shown.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvalFor, screenshot, send, waitIdle } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const LIB = 'export function add(a: number, b: number) {\n  return a + b;\n}\n';
const DOOMED = 'delete me\n';

const scripts = {
  work: [
    {
      text: 'Changing things.',
      toolCalls: [
        { name: 'edit_file', args: { path: 'src/lib.ts', old_string: 'return a + b;', new_string: 'return a + b + 0;' }, id: 'ch-edit' },
        { name: 'write_file', args: { path: 'src/new.ts', content: 'export const fresh = 1;\n' }, id: 'ch-write' },
        { name: 'run_command', args: { command: 'rm doomed.txt' }, id: 'ch-rm' },
      ],
    },
    { text: 'All three changes made.' },
  ],
  'plan-work': [{ text: 'One new file.', toolCalls: [{ name: 'write_file', args: { path: 'src/plan.ts', content: 'export const planned = 1;\n' }, id: 'pl-write' }] }, { text: 'The new file is written.' }],
};

const s = e2eSuite('clamp-e2e-changes-', { 'src/lib.ts': LIB, 'doomed.txt': DOOMED, 'README.md': '# Demo\n' }, scriptedReplies(scripts));

const git = (...args: string[]) => execFileSync('git', args, { cwd: s.ws.workspace, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });

beforeAll(() => {
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  git('config', 'user.name', 'Clamp Test');
  git('config', 'user.email', 'clamp-test@example.com');
});

/** The mode of the session with this title, as the server stores it. */
async function modeOf(title: string): Promise<string | undefined> {
  const { sessions } = (await (await s.clamp.api('/api/sessions')).json()) as { sessions: Array<{ title: string; mode: string }> };
  return sessions.find((x) => x.title === title)?.mode;
}

const exists = (rel: string) => fs.existsSync(path.join(s.ws.workspace, rel));

async function makeChanges(page: Page): Promise<void> {
  await page.selectOption('#mode-picker', 'accept-edits');
  await expect.poll(() => modeOf('changes'), { timeout: 10_000 }).toBe('accept-edits');
  await send(page, '[e2e:work] Change three things.');
  const bar = await approvalFor(page, 'ch-rm');
  await bar.getByRole('button', { name: /Approve once/ }).click();
  await page.getByText('All three changes made.').waitFor({ timeout: 30_000 });
  await waitIdle(page);
}

describe('the changes panel in the browser', () => {
  it('lists every changed file with its diff; a per-file revert restores it on disk; commit these commits the selected files', { timeout: 180_000 }, async () => {
    const { page } = await s.start('changes');
    await makeChanges(page);
    expect(exists('doomed.txt')).toBe(false);

    // the header's button counts the files (refreshed after the turn)
    const button = page.getByRole('button', { name: /^Changes/ });
    await expect.poll(() => button.innerText(), { timeout: 15_000 }).toMatch(/Changes\s*3/);
    await button.click();
    const panel = page.getByRole('dialog', { name: 'Changes in this session' });
    await panel.waitFor();
    for (const f of ['src/lib.ts', 'src/new.ts', 'doomed.txt']) await panel.locator(`[data-file="${f}"]`).waitFor({ timeout: 15_000 });
    await expect(panel.innerText()).resolves.toContain('3 files changed since this session started');
    const diff = panel.locator('[aria-label="Diff of src/lib.ts"]');
    await diff.waitFor();
    await expect(diff.innerText()).resolves.toContain('return a + b + 0;');
    await screenshot(page, 'changes-panel');

    // revert the deleted file: a confirmation first, then it is back on disk and off the list
    await panel.getByRole('button', { name: 'Revert doomed.txt' }).click();
    const confirm = panel.getByRole('group', { name: 'Confirm reverting doomed.txt' });
    await confirm.waitFor();
    expect(exists('doomed.txt')).toBe(false);
    await screenshot(page, 'changes-revert-confirm');
    await confirm.getByRole('button', { name: 'Revert' }).click();
    await panel.getByText('Reverted doomed.txt.').waitFor({ timeout: 15_000 });
    expect(s.ws.read('doomed.txt')).toBe(DOOMED);
    await expect.poll(() => panel.locator('[data-file="doomed.txt"]').count(), { timeout: 15_000 }).toBe(0);
    await expect(panel.innerText()).resolves.toContain('2 files changed');

    // commit only src/lib.ts
    await panel.getByRole('checkbox', { name: 'Select src/new.ts for the commit' }).uncheck();
    await panel.getByLabel('Commit message').fill('Add zero to the sum');
    await panel.getByRole('button', { name: 'Commit 1 selected file…' }).click();
    const commitConfirm = panel.getByRole('group', { name: 'Confirm the commit' });
    await expect(commitConfirm.innerText()).resolves.toContain('src/lib.ts');
    await commitConfirm.getByRole('button', { name: 'Commit' }).click();
    const result = panel.getByTestId('commit-result');
    await result.waitFor({ timeout: 30_000 });
    await expect(result.innerText()).resolves.toMatch(/^Committed\./);
    expect(git('log', '-1', '--format=%s').trim()).toBe('Add zero to the sum');
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('src/lib.ts');
    // the new file is left uncommitted
    expect(git('status', '--porcelain')).toContain('?? src/new.ts');
    await screenshot(page, 'changes-committed');

    // narrow and dark: the drawer takes the window's width and stays readable
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 420, height: 820 });
    const box = await panel.boundingBox();
    expect(box && box.width).toBeLessThanOrEqual(420);
    await screenshot(page, 'changes-narrow-dark');
    // the header fits too: nothing in it overflows, and its last button (Settings) is on screen
    await page.keyboard.press('Escape');
    const header = await page.evaluate(() => {
      const h = document.querySelector('header')!;
      const settings = h.querySelector('button[aria-label="Settings"]')!.getBoundingClientRect();
      return { scroll: h.scrollWidth, client: h.clientWidth, settingsRight: settings.right };
    });
    await screenshot(page, 'header-narrow-dark');
    expect(header.scroll, JSON.stringify(header)).toBeLessThanOrEqual(header.client);
    expect(header.settingsRight).toBeLessThanOrEqual(420);
    // the sessions list is not beside the chat at this width: the header's Sessions button opens it as a drawer
    const sessionsList = page.getByRole('navigation', { name: 'Sessions' });
    await expect(sessionsList.isVisible()).resolves.toBe(false);
    await page.getByRole('button', { name: 'Sessions', exact: true }).click();
    const drawer = page.getByRole('dialog', { name: 'Session list' });
    await drawer.waitFor();
    await expect(sessionsList.getByText('changes', { exact: true }).isVisible()).resolves.toBe(true);
    const drawerBox = await drawer.boundingBox();
    expect(drawerBox && drawerBox.x >= 0 && drawerBox.x + drawerBox.width <= 420).toBe(true);
    await screenshot(page, 'sessions-drawer-narrow-dark');
    // choosing a session closes it
    await sessionsList.getByText('changes', { exact: true }).click();
    await drawer.waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('commit these in plan mode: the refusal is shown and nothing is committed', { timeout: 120_000 }, async () => {
    const { page } = await s.start('changes-plan');
    await page.selectOption('#mode-picker', 'accept-edits');
    await expect.poll(() => modeOf('changes-plan'), { timeout: 10_000 }).toBe('accept-edits');
    await send(page, '[e2e:plan-work] Write one file.');
    await page.getByText('The new file is written.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    const head = git('rev-parse', 'HEAD').trim();
    await page.selectOption('#mode-picker', 'plan');
    await expect.poll(() => modeOf('changes-plan'), { timeout: 10_000 }).toBe('plan');
    await page.getByRole('button', { name: /^Changes/ }).click();
    const panel = page.getByRole('dialog', { name: 'Changes in this session' });
    await panel.locator('[data-file="src/plan.ts"]').waitFor({ timeout: 15_000 });
    await panel.getByLabel('Commit message').fill('Should not land');
    await panel.getByRole('button', { name: /^Commit \d+ selected files?…$/ }).click();
    await panel.getByRole('group', { name: 'Confirm the commit' }).getByRole('button', { name: 'Commit' }).click();
    const result = panel.getByTestId('commit-result');
    await result.waitFor({ timeout: 30_000 });
    await expect(result.innerText()).resolves.toMatch(/^Not committed\./);
    await expect(result.innerText()).resolves.toMatch(/plan/i);
    expect(git('rev-parse', 'HEAD').trim()).toBe(head);
    await screenshot(page, 'changes-plan-refused');
  });
});
