/**
 * End-to-end: commands from files in headless Chromium against the real launcher and the fake model:
 * `/` lists a command from `.claude/commands` with its help, and sending it sends its expanded text to the model its
 * file names, with only the tools its allowed-tools line names.
 */
import { describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fake-openai';
import { screenshot, send, waitIdle } from './browser';
import { messageText, scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const REVIEW = '---\ndescription: Review a file for bugs\nargument-hint: <file> [focus]\nallowed-tools: Read, Grep\nmodel: fake-reviewer\n---\n[e2e:cmd] Review $1 and look hard at $2.\n';

const s = e2eSuite('clamp-e2e-cmds-', { 'README.md': '# Demo\n', '.claude/commands/review.md': REVIEW, '.claude/commands/too big.md': 'x\n' }, scriptedReplies({ cmd: [{ text: 'Reviewed.' }] }));

const lastUser = (r: FakeRequest) => [...r.body.messages].reverse().find((m) => m.role === 'user')!;

describe('commands from files', () => {
  it('/ lists a command from .claude/commands with its help; sending it sends its expanded text', { timeout: 120_000 }, async () => {
    const { page } = await s.start('cmds');
    await page.locator('#chat-input').pressSequentially('/rev');
    const list = page.getByRole('listbox', { name: /Commands/ });
    const option = list.getByRole('option', { name: /^\/review/ });
    await option.waitFor({ timeout: 15_000 });
    const line = await option.innerText();
    expect(line).toContain('<file> [focus]');
    expect(line).toContain('Review a file for bugs');
    await screenshot(page, 'file-command-list');
    await page.fill('#chat-input', '');
    await send(page, '/review src/app.ts "error handling"');
    await expect.poll(() => s.fake.requests.length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(messageText(lastUser(s.fake.requests[0]))).toContain('[e2e:cmd] Review src/app.ts and look hard at error handling.');
    // its front matter holds for the turn: the model it names, and only its allowed tools
    expect(s.fake.requests[0].body.model).toBe('fake-reviewer');
    expect((s.fake.requests[0].body.tools ?? []).map((t) => t.function.name).sort()).toEqual(['grep', 'read_file']);
    await waitIdle(page);
    await expect(page.getByText('Reviewed.').first().isVisible()).resolves.toBe(true);
    await screenshot(page, 'file-command-sent');
    // a command file that is not offered is named, with why, in /help
    await send(page, '/help');
    const panel = page.getByTestId('composer-panel');
    await expect.poll(() => panel.innerText()).toContain('1 command or agent file is not offered:');
    await expect(panel.innerText()).resolves.toContain('too big.md: the name "too big" is not a command name');
  });
});
