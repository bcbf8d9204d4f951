/**
 * End-to-end: the conversation and the approval bar in headless Chromium, against the real launcher
 * and a fake OpenAI-compatible model on loopback. One server for the file, one session per test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalFor, card, screenshot, send, unique, waitIdle } from './browser';
import { scriptedReplies, tagOf, toolResults } from './scenarios';
import { e2eSuite } from './suite';

const APP_TS = 'export function greet(name: string): string {\n  return `Hello ${name}`;\n}\n\nconsole.log(greet("world"));\n';
const marker = unique('e2e');
// touch asks in default mode (echo and printf alone only print, and run without asking)
const APPROVE_CMD = `touch approved-${marker}.txt && echo approved-${marker} && printf 'second line\\n'`;

const scripts = {
  'read-grep-edit': [
    {
      text: "I'll look around first.",
      toolCalls: [
        { name: 'read_file', args: { path: 'src/app.ts' }, id: 'rge-read' },
        { name: 'grep', args: { pattern: 'greet', path: 'src' }, id: 'rge-grep' },
      ],
    },
    { text: 'Now the greeting.', toolCalls: [{ name: 'edit_file', args: { path: 'src/app.ts', old_string: 'Hello ${name}', new_string: 'Hello, ${name}!' }, id: 'rge-edit' }] },
    { text: 'Done: the greeting now has a comma and an exclamation mark.\n\n```ts\nreturn `Hello, ${name}!`;\n```' },
  ],
  approve: [
    { text: 'Let me run it.', toolCalls: [{ name: 'run_command', args: { command: APPROVE_CMD }, id: 'ap-run' }] },
    { text: 'The command ran and printed two lines.' },
  ],
  deny: [{ text: 'Cleaning up.', toolCalls: [{ name: 'run_command', args: { command: 'rm -rf build' }, id: 'dn-run' }] }, { text: 'Understood: I will leave the build folder alone.' }],
  edit: [{ text: 'Making a file.', toolCalls: [{ name: 'run_command', args: { command: `touch original-${marker}.txt` }, id: 'ed-run' }] }, { text: 'The file is made.' }],
  reload: [{ text: 'Writing a file.', toolCalls: [{ name: 'run_command', args: { command: `echo after-reload > reload-${marker}.txt` }, id: 'rl-run' }] }, { text: 'Written.' }],
};

const s = e2eSuite('clamp-e2e-chat-', { 'README.md': '# Demo\n\nA tiny project: `src/app.ts` prints a greeting.\n', 'src/app.ts': APP_TS, 'build/keep.txt': 'keep me\n' }, scriptedReplies(scripts));

describe('the conversation in the browser', () => {
  it('reads, greps and edits: the cards appear in call order and the edit shows its diff', { timeout: 90_000 }, async () => {
    const { page } = await s.start('read grep edit');
    // the header's mode switch: edits run without asking in accept-edits
    await page.selectOption('#mode-picker', 'accept-edits');
    await expect.poll(async () => (await (await s.clamp.api('/api/sessions')).json()) as unknown, { timeout: 10_000 }).toMatchObject({
      sessions: expect.arrayContaining([expect.objectContaining({ title: 'read grep edit', mode: 'accept-edits' })]),
    });
    await send(page, '[e2e:read-grep-edit] Add punctuation to the greeting in src/app.ts.');
    await page.getByText('Done: the greeting now has a comma').waitFor({ timeout: 30_000 });
    await waitIdle(page);

    const ids = await page.locator('[data-tool-call-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool-call-id')));
    expect(ids).toEqual(['rge-read', 'rge-grep', 'rge-edit']);
    for (const id of ids) await expect.poll(() => card(page, id!).getAttribute('data-state')).toBe('output-available');
    await expect(card(page, 'rge-read').locator('button').first().innerText()).resolves.toMatch(/read_file\s*src\/app\.ts[\s\S]*done/);
    await expect(card(page, 'rge-grep').locator('button').first().innerText()).resolves.toMatch(/grep\s*greet[\s\S]*done/);
    const diff = card(page, 'rge-edit').locator('[aria-label^="Diff of edit_file"]');
    await diff.waitFor();
    const diffText = await diff.innerText();
    expect(diffText).toContain('return `Hello ${name}`;');
    expect(diffText).toContain('return `Hello, ${name}!`;');
    expect(s.ws.read('src/app.ts')).toBe(APP_TS.replace('Hello ${name}', () => 'Hello, ${name}!'));
    await expect(page.locator('[data-approval-for]').count()).resolves.toBe(0);
    // the reply's code block is highlighted (the highlighter loads with the first code fence, not with the page)
    await expect.poll(() => page.locator('.md code.hljs.language-ts .hljs-keyword').first().textContent({ timeout: 1_000 }).catch(() => null), { timeout: 10_000 }).toBe('return');
    await card(page, 'rge-read').scrollIntoViewIfNeeded();
    await screenshot(page, 'chat-read-grep-edit');
  });

  it('a command that needs approval: the bar shows it, Approve once runs it, its output lands on the card', { timeout: 90_000 }, async () => {
    const { page } = await s.start('approve');
    await send(page, '[e2e:approve] Run the echo.');
    const bar = await approvalFor(page, 'ap-run');
    await expect(bar.locator('pre').innerText()).resolves.toBe(APPROVE_CMD);
    await expect(bar.innerText()).resolves.toContain(`Working directory:`);
    // focus moves to the bar when it appears, so the keys answer it
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-approval-for]'))).toBe(true);
    await expect(card(page, 'ap-run').innerText()).resolves.toContain('waiting for approval');
    await screenshot(page, 'chat-approve-bar');

    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The command ran and printed two lines.').waitFor({ timeout: 30_000 });
    const c = card(page, 'ap-run');
    await expect.poll(() => c.getAttribute('data-state')).toBe('output-available');
    const text = await c.innerText();
    expect(text).toContain(`approved-${marker}`);
    expect(text).toContain('second line');
    expect(text).toMatch(/done[\s\S]*exit 0/);
    await expect(page.locator('[data-approval-for]').count()).resolves.toBe(0);
    await screenshot(page, 'chat-approve-ran');
  });

  it('deny with a reason: the next request to the model carries the reason inside the instruction', { timeout: 90_000 }, async () => {
    const { page } = await s.start('deny');
    await send(page, '[e2e:deny] Clean up the build folder.');
    const bar = await approvalFor(page, 'dn-run');
    await bar.getByLabel(/Reason for denying/).fill('keep the build folder, I need it');
    await screenshot(page, 'chat-deny-reason');
    await bar.getByRole('button', { name: /Deny/ }).click();
    await page.getByText('Understood: I will leave the build folder alone.').waitFor({ timeout: 30_000 });

    const after = s.fake.requests.filter((r) => tagOf(r) === 'deny' && toolResults(r).length > 0);
    expect(after).toHaveLength(1);
    expect(toolResults(after[0]).join('\n')).toContain('The user denied this call: keep the build folder, I need it. Do not retry it; ask the user what to do instead.');
    await expect(card(page, 'dn-run').innerText()).resolves.toMatch(/denied/);
    expect(fs.existsSync(path.join(s.ws.workspace, 'build/keep.txt'))).toBe(true);
    await screenshot(page, 'chat-deny-done');
  });

  it('edit & approve: the edited command is the one that runs', { timeout: 90_000 }, async () => {
    const { page } = await s.start('edit');
    await send(page, '[e2e:edit] Make a file.');
    const bar = await approvalFor(page, 'ed-run');
    await bar.getByRole('button', { name: /Edit & approve/ }).click();
    const field = bar.locator('textarea');
    await expect(field.inputValue()).resolves.toBe(`touch original-${marker}.txt`);
    await field.fill(`touch edited-${marker}.txt`);
    await screenshot(page, 'chat-edit-editing');
    await bar.getByRole('button', { name: /Approve edited/ }).click();
    await page.getByText('The file is made.').waitFor({ timeout: 30_000 });

    expect(fs.existsSync(path.join(s.ws.workspace, `edited-${marker}.txt`))).toBe(true);
    expect(fs.existsSync(path.join(s.ws.workspace, `original-${marker}.txt`))).toBe(false);
    const head = await card(page, 'ed-run').locator('button').first().innerText();
    expect(head).toContain(`touch edited-${marker}.txt`);
    expect(head).toContain('edited');
    const told = s.fake.requests.filter((r) => tagOf(r) === 'edit').flatMap(toolResults).join('\n');
    expect(told).toContain(`What ran: touch edited-${marker}.txt`);
    await screenshot(page, 'chat-edit-ran');
  });

  it('a reload while an approval is pending: still pending afterwards, and approving runs the command', { timeout: 90_000 }, async () => {
    const { page } = await s.start('reload');
    await send(page, '[e2e:reload] Write the file.');
    await approvalFor(page, 'rl-run');
    await waitIdle(page);
    await screenshot(page, 'chat-reload-before');

    await page.reload();
    const bar = await approvalFor(page, 'rl-run');
    await expect(bar.locator('pre').innerText()).resolves.toBe(`echo after-reload > reload-${marker}.txt`);
    await expect(card(page, 'rl-run').innerText()).resolves.toContain('waiting for approval');
    expect(fs.existsSync(path.join(s.ws.workspace, `reload-${marker}.txt`))).toBe(false);
    await screenshot(page, 'chat-reload-after');

    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('Written.', { exact: true }).waitFor({ timeout: 30_000 });
    expect(s.ws.read(`reload-${marker}.txt`)).toBe('after-reload\n');
    await expect.poll(() => card(page, 'rl-run').getAttribute('data-state')).toBe('output-available');
    await screenshot(page, 'chat-reload-approved');
  });
});
