/**
 * End-to-end: three sessions at once, each on its own git worktree of one repository, started from the page (one
 * tab each). The stand-in model holds each session's first reply until all three sessions have sent their first
 * request, so the turns provably run at the same time. Each session's edit lands in its own worktree, the main
 * checkout stays untouched; then, from the page, one worktree is merged into the base branch, one discarded, and
 * one whose change conflicts with the merged one is refused (conflicts named, nothing lost). The host's state is
 * checked with git after each step.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorktreeAnswer, WorktreeView } from '../../lib/contract/worktree';
import { startFakeOpenAI, turnPosition, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { createSession, launchBrowser, openClamp, screenshot, send, waitIdle, type ClampPage, type E2EBrowser } from './browser';
import { tagOf } from './scenarios';

const ORIGINAL = 'hello\n';
/** Each session's one edit: two change hello.txt (differently, so the second merge conflicts), one writes a new file. */
const EDITS: Record<string, FakeReply['toolCalls']> = {
  pa: [{ name: 'edit_file', args: { path: 'hello.txt', old_string: 'hello', new_string: 'hello from A' }, id: 'pa-edit' }],
  pb: [{ name: 'write_file', args: { path: 'b-notes.txt', content: 'notes of B\n' }, id: 'pb-write' }],
  pc: [{ name: 'edit_file', args: { path: 'hello.txt', old_string: 'hello', new_string: 'hello from C' }, id: 'pc-edit' }],
};
const TAGS = Object.keys(EDITS);

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let browser: E2EBrowser;
const pages: ClampPage[] = [];

/** Resolved once every session has sent its first request: until then each first reply is held. */
const firstArrived = new Set<string>();
let allThere!: () => void;
const together = new Promise<void>((r) => (allThere = r));

function reply(req: FakeRequest): FakeReply {
  const tag = tagOf(req);
  if (!tag || !EDITS[tag]) return { text: 'No script for this message.' };
  if (turnPosition(req).results > 0) return { text: `Done in ${tag}.` };
  firstArrived.add(tag);
  if (firstArrived.size === TAGS.length) allThere();
  return { hold: together, text: `Editing for ${tag}.`, toolCalls: EDITS[tag] };
}

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], { cwd: ws.workspace, encoding: 'utf8' });

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-parallel-wt-');
  ws.write('hello.txt', ORIGINAL);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  fake = await startFakeOpenAI(reply);
  [clamp, browser] = await Promise.all([
    startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'accept-edits', CLAMP_DIAGNOSTICS: '0' }),
    launchBrowser(),
  ]);
}, 300_000);
afterAll(async () => {
  for (const p of pages) await p.page.close();
  await browser?.close();
  await clamp?.stop();
  await fake?.close();
  ws?.cleanup();
});

async function worktreeOf(id: string): Promise<WorktreeView | null> {
  return ((await (await clamp.api(`/api/sessions/${id}/worktree`)).json()) as WorktreeAnswer).worktree;
}

/** A new tab on a new session in its own worktree, made from the sidebar; its session id. */
async function newWorktreeTab(ctx: Awaited<ReturnType<E2EBrowser['newContext']>>): Promise<{ page: Page; id: string }> {
  const open = await openClamp(ctx, clamp, await createSession(clamp, 'a start page'));
  pages.push(open);
  const { page } = open;
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  await sidebar.getByLabel('New session in its own worktree').check();
  const before = page.url();
  await sidebar.getByRole('button', { name: '+ New' }).click();
  await expect.poll(() => page.url(), { timeout: 15_000 }).not.toBe(before);
  return { page, id: new URL(page.url()).searchParams.get('s')! };
}

/** The changes view's worktree section of a tab, opened. */
async function worktreeSection(page: Page) {
  await page.getByRole('button', { name: /^Changes/ }).click();
  const section = page.getByRole('dialog', { name: 'Changes in this session' }).getByTestId('worktree-section');
  await section.waitFor({ timeout: 15_000 });
  return section;
}

describe('three sessions at once on worktrees of one repository', () => {
  it('their turns interleave, each edit lands in its own worktree; one is merged, one discarded, one conflicts', { timeout: 300_000 }, async () => {
    const ctx = await browser.newContext();
    const tabs: Array<{ page: Page; id: string; tag: string }> = [];
    for (const tag of TAGS) tabs.push({ ...(await newWorktreeTab(ctx)), tag });
    expect(new Set(tabs.map((t) => t.id)).size).toBe(3);
    for (const t of tabs) await send(t.page, `[e2e:${t.tag}] Work on ${t.tag}`);
    for (const t of tabs) {
      await t.page.getByText(`Done in ${t.tag}.`).waitFor({ timeout: 60_000 });
      await waitIdle(t.page);
    }

    // the request log: all three first requests arrived before any reply was sent, then each session went on
    const first = fake.requests.filter((r) => turnPosition(r).results === 0);
    expect(first.map(tagOf).sort()).toEqual([...TAGS].sort());
    const firstAnswer = Math.min(...first.map((r) => r.answeredAtMs!));
    for (const r of first) expect(r.arrivedAtMs).toBeLessThan(firstAnswer);
    expect(fake.requests.slice(0, 3).map(tagOf).sort()).toEqual([...TAGS].sort());
    expect(fake.requests.slice(3).map(tagOf).sort()).toEqual([...TAGS].sort());

    // each edit is in its own worktree; the main checkout is untouched
    const trees: Record<string, WorktreeView> = {};
    for (const t of tabs) trees[t.tag] = (await worktreeOf(t.id))!;
    for (const t of tabs) expect(trees[t.tag]).toMatchObject({ state: 'active', base: 'main' });
    expect(new Set(Object.values(trees).map((w) => w.path)).size).toBe(3);
    expect(fs.readFileSync(path.join(trees.pa.path!, 'hello.txt'), 'utf8')).toBe('hello from A\n');
    expect(fs.readFileSync(path.join(trees.pb.path!, 'b-notes.txt'), 'utf8')).toBe('notes of B\n');
    expect(fs.readFileSync(path.join(trees.pb.path!, 'hello.txt'), 'utf8')).toBe(ORIGINAL);
    expect(fs.readFileSync(path.join(trees.pc.path!, 'hello.txt'), 'utf8')).toBe('hello from C\n');
    expect(fs.existsSync(path.join(trees.pa.path!, 'b-notes.txt'))).toBe(false);
    expect(git('status', '--porcelain')).toBe('');
    expect(ws.read('hello.txt')).toBe(ORIGINAL);
    expect(fs.existsSync(path.join(ws.workspace, 'b-notes.txt'))).toBe(false);
    // each tab's header names its session's worktree and branch
    for (const t of tabs) {
      await expect.poll(() => t.page.getByTestId('header-workspace').innerText(), { timeout: 15_000 }).toBe(`${trees[t.tag].path} (worktree, branch ${trees[t.tag].branch})`);
    }
    const listed = git('worktree', 'list');
    for (const w of Object.values(trees)) expect(listed).toContain(w.path!);

    // A: merged into main from its page
    const [a, b, c] = tabs;
    const sa = await worktreeSection(a.page);
    await sa.getByRole('button', { name: 'Merge into main' }).click();
    await expect.poll(() => sa.getByTestId('worktree-result').innerText(), { timeout: 30_000 }).toMatch(/Merged e2e-pa-work-on-pa into main/);
    await screenshot(a.page, 'parallel-worktrees-merged');
    expect(git('show', 'main:hello.txt')).toBe('hello from A\n');
    expect(ws.read('hello.txt')).toBe('hello from A\n');
    expect(git('status', '--porcelain')).toBe('');
    expect(fs.existsSync(trees.pa.path!)).toBe(false);
    expect(git('branch', '--list', trees.pa.branch!)).toBe('');
    expect(git('worktree', 'list')).not.toContain(trees.pa.path!);

    // B: discarded (its uncommitted file needs the second confirmation)
    const sb = await worktreeSection(b.page);
    await sb.getByRole('button', { name: 'Discard…' }).click();
    await sb.getByRole('button', { name: 'Discard', exact: true }).click();
    await expect.poll(() => sb.getByTestId('worktree-result').innerText(), { timeout: 15_000 }).toMatch(/1 uncommitted file \(b-notes\.txt\)/);
    await sb.getByRole('button', { name: 'Discard them too' }).click();
    await expect.poll(() => sb.getByTestId('worktree-result').innerText(), { timeout: 30_000 }).toMatch(/Discarded the worktree/);
    expect(fs.existsSync(trees.pb.path!)).toBe(false);
    expect(git('branch', '--list', trees.pb.branch!)).toBe('');
    expect(git('worktree', 'list')).not.toContain(trees.pb.path!);

    // C: its change conflicts with A's on main: reported with the file, main as it was, C's work kept
    const sc = await worktreeSection(c.page);
    await sc.getByRole('button', { name: 'Merge into main' }).click();
    const refused = sc.getByTestId('worktree-result');
    await expect.poll(() => refused.innerText(), { timeout: 30_000 }).toMatch(/conflicts in hello\.txt\. The merge was aborted/);
    await expect(refused.getByRole('listitem').allInnerTexts()).resolves.toEqual(['hello.txt']);
    await screenshot(c.page, 'parallel-worktrees-conflict');
    expect(ws.read('hello.txt')).toBe('hello from A\n');
    expect(git('status', '--porcelain')).toBe('');
    expect(fs.readFileSync(path.join(trees.pc.path!, 'hello.txt'), 'utf8')).toBe('hello from C\n');
    expect(git('show', `${trees.pc.branch!}:hello.txt`)).toBe('hello from C\n');
    expect(await worktreeOf(c.id)).toMatchObject({ state: 'active' });
    const left = git('worktree', 'list').trim().split('\n');
    expect(left).toHaveLength(2);
    expect(left[1]).toContain(trees.pc.path!);

    for (const p of pages) expect(p.errors, 'uncaught errors on the page').toEqual([]);
  });
});
