/**
 * End-to-end: a session on its own git worktree, from the page. The sidebar's "New session in its own worktree"
 * makes a session whose first message names its branch; the scripted model's edit lands in the worktree (the
 * main checkout untouched, the ignored .env copied in); the changes view shows the worktree and its finish
 * actions; Discard is refused with uncommitted changes until confirmed, then leaves no folder, no branch and a
 * clean `git worktree list`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorktreeAnswer } from '../../lib/contract/worktree';
import { approvalFor, screenshot, send, waitIdle } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const scripts = {
  wt: [{ text: 'Changing the greeting.', toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello from the worktree\n' }, id: 'wt-write' }] }, { text: 'The greeting is changed.' }],
};

const s = e2eSuite('clamp-e2e-worktrees-', { 'hello.txt': 'hello\n', '.gitignore': '.env\n' }, scriptedReplies(scripts));

const git = (...args: string[]) => execFileSync('git', args, { cwd: s.ws.workspace, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });

beforeAll(() => {
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  s.ws.write('.env', 'TOKEN=local\n');
});

async function worktreeOf(id: string): Promise<WorktreeAnswer['worktree']> {
  return ((await (await s.clamp.api(`/api/sessions/${id}/worktree`)).json()) as WorktreeAnswer).worktree;
}

describe('a session on its own worktree, from the page', () => {
  it('edits land in the worktree, not the main checkout; Discard removes folder and branch', { timeout: 240_000 }, async () => {
    const { page } = await s.start('plain');
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    await sidebar.getByLabel('New session in its own worktree').check();
    const before = page.url();
    await sidebar.getByRole('button', { name: '+ New' }).click();
    await expect.poll(() => page.url(), { timeout: 15_000 }).not.toBe(before);
    const id = new URL(page.url()).searchParams.get('s')!;
    expect(await worktreeOf(id)).toMatchObject({ state: 'pending', base: 'main' });

    await send(page, '[e2e:wt] Fix the greeting');
    const bar = await approvalFor(page, 'wt-write');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The greeting is changed.').waitFor({ timeout: 30_000 });
    await waitIdle(page);

    const w = (await worktreeOf(id))!;
    expect(w).toMatchObject({ state: 'active', branch: 'e2e-wt-fix-the-greeting', base: 'main' });
    expect(w.path!.startsWith(path.join(s.ws.dataDir, 'worktrees'))).toBe(true);
    expect(fs.readFileSync(path.join(w.path!, 'hello.txt'), 'utf8')).toBe('hello from the worktree\n');
    expect(fs.readFileSync(path.join(w.path!, '.env'), 'utf8')).toBe('TOKEN=local\n');
    expect(s.ws.read('hello.txt')).toBe('hello\n');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('worktree', 'list')).toContain(w.path!);

    await page.getByRole('button', { name: /^Changes/ }).click();
    const panel = page.getByRole('dialog', { name: 'Changes in this session' });
    const section = panel.getByTestId('worktree-section');
    await section.waitFor({ timeout: 15_000 });
    await expect(section.innerText()).resolves.toContain('e2e-wt-fix-the-greeting');
    await panel.locator('[data-file="hello.txt"]').waitFor({ timeout: 15_000 });
    await section.getByRole('button', { name: 'Merge into main' }).waitFor();
    await section.getByRole('button', { name: 'Keep the branch' }).waitFor();
    await screenshot(page, 'worktree-changes');

    await section.getByRole('button', { name: 'Discard…' }).click();
    await section.getByRole('button', { name: 'Discard', exact: true }).click();
    const result = section.getByTestId('worktree-result');
    await expect.poll(() => result.innerText(), { timeout: 15_000 }).toMatch(/1 uncommitted file \(hello\.txt\)/);
    expect(fs.existsSync(w.path!)).toBe(true);
    await section.getByRole('button', { name: 'Discard them too' }).click();
    await expect.poll(() => result.innerText(), { timeout: 30_000 }).toMatch(/Discarded the worktree/);
    await screenshot(page, 'worktree-discarded');

    expect(fs.existsSync(w.path!)).toBe(false);
    expect(git('branch', '--list', 'e2e-wt-fix-the-greeting')).toBe('');
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(s.ws.read('hello.txt')).toBe('hello\n');
    expect(await worktreeOf(id)).toMatchObject({ state: 'discarded' });
  });
});
