/**
 * End-to-end: rewind from the page, against the real launcher, the real checkpoint routes and a fake
 * OpenAI-compatible model. A conversation edits files and runs a command that creates and deletes
 * files; the rewind dialog on a user message previews the files that will change with their diffs
 * and what a rewind cannot undo; confirming puts the files back on disk and shortens the
 * conversation, whose later messages stay openable as a read-only branch. Edit and resend rewinds
 * conversation and code, then sends the edited text.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { approvalFor, card, screenshot, send, waitIdle } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const APP = 'export const greeting = "hello";\n';
const NOTES = 'line one\nline two\n';
const OLD = 'an old file the command deletes\n';
const CMD = "rm old.txt && printf 'made by a command\\n' > made.txt";

const scripts = {
  first: [
    { text: 'Editing the greeting.', toolCalls: [{ name: 'edit_file', args: { path: 'src/app.ts', old_string: '"hello"', new_string: '"hello, world"' }, id: 'rw-edit' }] },
    { text: 'First change done.' },
  ],
  second: [
    {
      text: 'Rewriting the notes and tidying up.',
      toolCalls: [
        { name: 'write_file', args: { path: 'notes.txt', content: 'line one\nline 2, rewritten\nline three\n' }, id: 'rw-write' },
        { name: 'run_command', args: { command: CMD }, id: 'rw-run' },
      ],
    },
    { text: 'Second change done.' },
  ],
  'er-one': [{ text: 'Writing v1.', toolCalls: [{ name: 'write_file', args: { path: 'er/answer.txt', content: 'v1\n' }, id: 'er-w1' }] }, { text: 'Wrote v1.' }],
  'er-two': [{ text: 'Writing v2 elsewhere.', toolCalls: [{ name: 'write_file', args: { path: 'er/other.txt', content: 'v2\n' }, id: 'er-w2' }] }, { text: 'Wrote v2.' }],
};

const s = e2eSuite('clamp-e2e-rewind-', { 'src/app.ts': APP, 'notes.txt': NOTES, 'old.txt': OLD }, scriptedReplies(scripts));

/** The mode of the session with this title, as the server stores it. */
async function modeOf(title: string): Promise<string | undefined> {
  const { sessions } = (await (await s.clamp.api('/api/sessions')).json()) as { sessions: Array<{ title: string; mode: string }> };
  return sessions.find((x) => x.title === title)?.mode;
}

const exists = (rel: string) => fs.existsSync(path.join(s.ws.workspace, rel));
const userRow = (page: Page, text: string) => page.locator('[data-role="user"]').filter({ hasText: text });

describe('rewind in the browser', () => {
  it('rewind from a message: preview with files and diffs, confirm, files restored on disk, conversation shortened, the branch openable', { timeout: 180_000 }, async () => {
    const { page } = await s.start('rewind');
    await page.selectOption('header select', 'accept-edits');
    await expect.poll(() => modeOf('rewind'), { timeout: 10_000 }).toBe('accept-edits');

    await send(page, '[e2e:first] Make the greeting longer.');
    await page.getByText('First change done.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    await send(page, '[e2e:second] Rewrite the notes and tidy up.');
    // the command asks in accept-edits
    const bar = await approvalFor(page, 'rw-run');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('Second change done.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(exists('old.txt')).toBe(false);
    expect(s.ws.read('made.txt')).toBe('made by a command\n');
    expect(s.ws.read('notes.txt')).not.toBe(NOTES);

    // the rewind control on the second message
    const second = userRow(page, 'Rewrite the notes and tidy up.');
    await second.hover();
    await second.getByRole('button', { name: 'Rewind to before this message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind to before this message' });
    await dialog.waitFor();
    const files = dialog.getByRole('region', { name: 'Files that will change' });
    await files.waitFor({ timeout: 30_000 });
    // the command's deletion and creation are in the preview as well as the tool's write; the first turn's edit is not
    for (const f of ['notes.txt', 'old.txt', 'made.txt']) await files.locator(`[data-file="${f}"]`).waitFor();
    await expect(files.locator('[data-file="src/app.ts"]').count()).resolves.toBe(0);
    const diff = files.locator('[aria-label="Diff of notes.txt"]');
    await diff.waitFor();
    const diffText = await diff.innerText();
    expect(diffText).toContain('line two');
    expect(diffText).toContain('line 2, rewritten');
    await expect(dialog.getByTestId('cannot-undo').innerText()).resolves.toMatch(/cannot undo/i);
    await screenshot(page, 'rewind-preview');

    await dialog.getByRole('button', { name: 'Restore code and conversation' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });

    // files byte-identical to before the second message; the first turn's edit stays
    expect(s.ws.read('notes.txt')).toBe(NOTES);
    expect(s.ws.read('old.txt')).toBe(OLD);
    expect(exists('made.txt')).toBe(false);
    expect(s.ws.read('src/app.ts')).toBe('export const greeting = "hello, world";\n');

    // the conversation ends before the second message; its text is back in the composer
    await expect.poll(() => page.getByText('Second change done.').count()).toBe(0);
    await expect(userRow(page, 'Rewrite the notes and tidy up.').count()).resolves.toBe(0);
    await expect(page.getByText('First change done.').count()).resolves.toBe(1);
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('[e2e:second] Rewrite the notes and tidy up.');
    // where the conversation was cut: what was restored, and the branch
    const note = page.getByRole('note', { name: 'Rewound code and conversation' });
    await note.waitFor();
    await expect(note.innerText()).resolves.toMatch(/Restored 3 files: /);
    await expect(note.innerText()).resolves.toMatch(/later messages are kept as a branch/);
    // after a reload the stored conversation is the short one too
    const stored = (await (await s.clamp.api(`/api/sessions/${new URL(page.url()).searchParams.get('s')}`)).json()) as { messages: Array<{ role: string; parts: Array<{ type: string }> }> };
    expect(stored.messages.filter((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text'))).toHaveLength(1);
    await screenshot(page, 'rewind-done');

    // the branch: read-only, with the rewound message and its tool cards
    await note.getByRole('button', { name: 'open it' }).click();
    const branch = page.getByRole('dialog', { name: /^Branch/ });
    await branch.waitFor();
    await branch.getByText('Second change done.').waitFor({ timeout: 15_000 });
    await expect(branch.getByText('Rewrite the notes and tidy up.').count()).resolves.toBe(1);
    await expect(branch.locator('[data-tool-call-id="rw-run"]').count()).resolves.toBe(1);
    await expect(branch.getByRole('button', { name: 'Rewind to before this message' }).count()).resolves.toBe(0);
    await screenshot(page, 'rewind-branch');
    await page.keyboard.press('Escape');
    await branch.waitFor({ state: 'detached' });

    // the kept branches are listed above the composer too
    const kept = page.getByTestId('rewind-bar');
    await kept.getByRole('button', { name: /1 kept branch/ }).click();
    await expect(kept.getByRole('list', { name: 'Kept branches' }).innerText()).resolves.toContain('Rewrite the notes');

    // undo the code rewind: the files come back as the second turn left them
    await note.getByRole('button', { name: 'Undo the code rewind' }).click();
    await note.getByRole('button', { name: 'Undo it' }).click();
    await expect.poll(() => exists('made.txt'), { timeout: 15_000 }).toBe(true);
    expect(exists('old.txt')).toBe(false);
    expect(s.ws.read('notes.txt')).toBe('line one\nline 2, rewritten\nline three\n');
  });

  it('edit and resend: the edited text is sent after a rewind of the conversation and the code', { timeout: 120_000 }, async () => {
    const { page } = await s.start('edit-resend');
    await page.selectOption('header select', 'accept-edits');
    await expect.poll(() => modeOf('edit-resend'), { timeout: 10_000 }).toBe('accept-edits');
    await send(page, '[e2e:er-one] Write the answer.');
    await page.getByText('Wrote v1.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(s.ws.read('er/answer.txt')).toBe('v1\n');

    const row = userRow(page, 'Write the answer.');
    await row.hover();
    await row.getByRole('button', { name: 'Edit this message' }).click();
    const editor = page.locator('[data-editing]');
    await editor.waitFor();
    const restore = editor.getByRole('checkbox', { name: /Also restore code/ });
    // on by default once the preview shows the file that would change
    await expect.poll(() => restore.isChecked(), { timeout: 15_000 }).toBe(true);
    await expect(editor.innerText()).resolves.toMatch(/1 file back to its state before this message/);
    await editor.locator('textarea').fill('[e2e:er-two] Write it elsewhere instead.');
    await screenshot(page, 'rewind-edit-in-place');
    await editor.getByRole('button', { name: 'Send edited' }).click();

    await page.getByText('Wrote v2.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(exists('er/answer.txt')).toBe(false);
    expect(s.ws.read('er/other.txt')).toBe('v2\n');
    await expect(userRow(page, 'Write the answer.').count()).resolves.toBe(0);
    await expect(userRow(page, 'Write it elsewhere instead.').count()).resolves.toBe(1);
    await expect(page.getByText('Wrote v1.').count()).resolves.toBe(0);
    await expect(card(page, 'er-w2').getAttribute('data-state')).resolves.toBe('output-available');
    await screenshot(page, 'rewind-edit-resent');
  });
});
