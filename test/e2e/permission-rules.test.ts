/**
 * End-to-end: permission rules from a workspace's Claude Code settings file. The settings page's rules section lists
 * each with its file; the person turns reading them on and approves the workspace's allow rule; the model's
 * read_file of a Read-denied file is then refused, and the file's text never reaches the model.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { card, screenshot, send, waitIdle } from './browser';
import { e2eSuite } from './suite';

const CANARY = 'CANARY-e2e-4b1d';
const SETTINGS = { permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./secrets/**)', 'Bash(git push:*)'], ask: ['WebFetch(example.com)'] } };

const s = e2eSuite('clamp-e2e-perm-', { '.claude/settings.json': JSON.stringify(SETTINGS, null, 2), 'secrets/key.txt': `token=${CANARY}\n` }, (req) =>
  req.body.messages.at(-1)?.role === 'tool' ? { text: 'That file is off limits.' } : { toolCalls: [{ name: 'read_file', args: { path: 'secrets/key.txt' }, id: 'call_secret' }] },
);

describe('permission rules from settings files on the page', () => {
  it('the rules section lists each rule with its file; once on, a Read deny refuses the read', async () => {
    const { page } = await s.start('permission rules');
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    const section = dialog.locator('section[aria-labelledby="file-rules-h"]');
    const list = section.getByRole('list', { name: 'Rules from settings files' });
    const file = path.join(s.ws.workspace, '.claude/settings.json');
    await list.locator('[data-file-rule="Read(./secrets/**)"]').getByText(`${file} (this workspace)`).waitFor();
    expect(await list.locator('[data-file-rule="Bash(npm test:*)"]').getAttribute('data-state')).toBe('pending');
    const broken = list.locator('[data-file-rule="WebFetch(example.com)"]');
    expect(await broken.getAttribute('data-state')).toBe('error');
    await broken.getByRole('alert').getByText(/^WebFetch takes a domain, as in WebFetch\(domain:example\.com\)\. This rule does nothing until it is fixed in /).waitFor();
    const on = section.getByRole('checkbox', { name: 'Read the permission rules (allow, ask, deny) of Claude Code settings files' });
    expect(await on.isChecked()).toBe(false);
    await on.click(); // the box follows the saved setting, once the server answers
    await expect.poll(() => on.isChecked()).toBe(true);
    await list.getByRole('button', { name: 'Approve Bash(npm test:*)' }).click();
    await expect.poll(() => list.locator('[data-file-rule="Bash(npm test:*)"]').getAttribute('data-state')).toBe('active');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'permission-rules-section');
    await page.keyboard.press('Escape');

    await send(page, 'what is the token?');
    await waitIdle(page);
    const c = card(page, 'call_secret');
    await c.getByRole('button').first().click();
    await c.getByText(/the rule Read\(\.\/secrets\/\*\*\) in \.claude\/settings\.json denies it/).first().waitFor();
    await screenshot(page, 'permission-rules-card');
    const all = s.fake.requests.map((r) => JSON.stringify(r.body)).join('\n');
    expect(all).not.toContain(CANARY);
    expect(all).toContain('the rule Read(./secrets/**) in .claude/settings.json denies it');
  });
});
