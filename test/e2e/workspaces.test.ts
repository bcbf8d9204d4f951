/**
 * End-to-end: a second folder opened from the page. The sidebar's workspace control refuses a folder that does not
 * exist (saying so), opens another one, and the page then lists only that folder's sessions; a session started there
 * (the page starts one, as in any folder without sessions) reads and writes in that folder, never the launcher's; the recent list takes the page back to the first workspace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../helpers';
import { approvalFor, screenshot, send, waitIdle } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const scripts = {
  ws: [
    {
      text: 'Reading, then writing.',
      toolCalls: [
        { name: 'read_file', args: { path: 'only-b.txt' }, id: 'ws-read' },
        { name: 'write_file', args: { path: 'made.txt', content: 'made in B\n' }, id: 'ws-write' },
      ],
    },
    { text: 'Wrote made.txt in the second folder.' },
  ],
};

const s = e2eSuite('clamp-e2e-workspaces-', { 'only-a.txt': 'A\n' }, scriptedReplies(scripts));
const b = tempWorkspace('clamp-e2e-second-');
b.write('only-b.txt', 'the text of B\n');
afterAll(() => b.cleanup());

describe('a second workspace, opened from the page', () => {
  it('opens the folder, starts a session there whose tools work in it, and goes back', { timeout: 240_000 }, async () => {
    const { page } = await s.start('in the first folder');
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    await sidebar.getByText('in the first folder').waitFor();
    await sidebar.getByRole('button', { name: 'Workspace' }).click();
    const field = sidebar.getByLabel('Folder to open');

    await field.fill(path.join(b.workspace, 'missing'));
    await sidebar.getByRole('button', { name: 'Open', exact: true }).click();
    await expect.poll(() => sidebar.getByRole('alert').textContent()).toContain('does not exist');

    await field.fill(b.workspace);
    await sidebar.getByRole('button', { name: 'Open', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('workspace'), { timeout: 15_000 }).toBe(fs.realpathSync(b.workspace));
    await expect.poll(() => sidebar.getByTestId('workspace-current').textContent(), { timeout: 15_000 }).toContain(path.basename(b.workspace));
    // a folder with no session gets one, as the launcher's does, ready to type
    await expect.poll(() => new URL(page.url()).searchParams.get('s'), { timeout: 15_000 }).toBeTruthy();
    await page.waitForSelector('#chat-input', { timeout: 15_000 });
    expect(await sidebar.getByText('in the first folder').count()).toBe(0);
    const id = new URL(page.url()).searchParams.get('s')!;
    await send(page, '[e2e:ws] read and write here');
    const bar = await approvalFor(page, 'ws-write');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('Wrote made.txt in the second folder.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    await screenshot(page, 'workspaces-second');

    expect(b.read('made.txt')).toBe('made in B\n');
    expect(fs.existsSync(path.join(s.ws.workspace, 'made.txt'))).toBe(false);
    expect(s.fake.requests.map((r) => JSON.stringify(r.body.messages)).join('\n')).toContain('the text of B');
    const listed = async (q: string) => ((await (await s.clamp.api(`/api/sessions${q}`)).json()) as { sessions: { id: string }[] }).sessions.map((x) => x.id);
    expect(await listed(`?workspace=${encodeURIComponent(b.workspace)}`)).toEqual([id]);
    expect(await listed('')).not.toContain(id);

    await sidebar.getByRole('button', { name: 'Workspace' }).click();
    await screenshot(page, 'workspaces-menu');
    await sidebar.getByRole('list', { name: 'Recent workspaces' }).getByRole('button', { name: /default/ }).click();
    await sidebar.getByText('in the first folder').waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).searchParams.get('workspace')).toBeNull();
  });
});
