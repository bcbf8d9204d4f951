/**
 * End-to-end: subagents' calls nested under the parent's agent card, a child's approval in the bar,
 * the read-only transcript, and ask_user's question answered on the page — headless Chromium, the
 * real launcher and the fake OpenAI-compatible model (a child's task carries its own tag).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalFor, card, screenshot, send, unique, waitIdle } from './browser';
import { messageText, scriptedReplies, tagOf, toolResults } from './scenarios';
import { e2eSuite } from './suite';

const marker = unique('sub');

const scripts = {
  nested: [
    {
      text: 'I will send an explorer.',
      toolCalls: [{ name: 'agent', id: 'sa-agent', args: { type: 'explore', description: 'find the greeting', prompt: '[e2e:child-explore] Find where the greeting is written; report the file and line.' } }],
    },
    { text: 'The explorer says the greeting lives in src/app.ts.' },
  ],
  'child-explore': [
    { text: 'Searching.', toolCalls: [{ name: 'grep', id: 'ce-grep', args: { pattern: 'Hello', path: 'src' } }], delayMs: 600 },
    { toolCalls: [{ name: 'read_file', id: 'ce-read', args: { path: 'src/app.ts' } }], delayMs: 600 },
    { text: 'CHILD REPORT: the greeting is on line 2 of src/app.ts.' },
  ],
  approve: [
    { toolCalls: [{ name: 'agent', id: 'sg-agent', args: { type: 'general', description: 'make the marker', prompt: `[e2e:child-general] Create the file ${marker}.txt.` } }] },
    { text: 'The helper made the file.' },
  ],
  'child-general': [{ toolCalls: [{ name: 'run_command', id: 'cg-run', args: { command: `touch ${marker}.txt` } }] }, { text: `Created ${marker}.txt.` }],
  ask: [
    { text: 'One question first.', toolCalls: [{ name: 'ask_user', id: 'q-ask', args: { question: 'Which colour should the banner be?', choices: ['red', 'blue', 'green'] } }] },
    { text: 'Blue it is: I will paint the banner blue.' },
  ],
};

const s = e2eSuite('clamp-e2e-sub-', { 'src/app.ts': 'export function greet(name: string): string {\n  return `Hello ${name}`;\n}\n' }, scriptedReplies(scripts));

describe('subagents and ask_user in the browser', () => {
  it("shows a child's calls nested under the agent card, live, stored for a reload, with a read-only transcript", { timeout: 120_000 }, async () => {
    const { page } = await s.start('nested');
    await send(page, '[e2e:nested] Where is the greeting?');
    const nested = page.locator('[data-subagent-for="sa-agent"]');
    // live: the child's first call is listed while the parent's agent call still runs
    await nested.locator('[data-child-call-id="ce-grep"]').waitFor({ timeout: 30_000 });
    await expect(card(page, 'sa-agent').getAttribute('data-running')).resolves.toBe('true');
    await page.getByText('The explorer says the greeting lives in src/app.ts.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    await expect.poll(() => nested.getAttribute('data-subagent-status')).toBe('done');
    const rows = await nested.locator('[data-child-call-id]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-child-call-id'), e.getAttribute('data-state')]));
    expect(rows).toEqual([
      ['ce-grep', 'ok'],
      ['ce-read', 'ok'],
    ]);
    expect(await nested.innerText()).toMatch(/subagent · explore[\s\S]*find the greeting[\s\S]*finished[\s\S]*3 steps/);
    // the parent's next request holds the report, not what the child read
    const after = s.fake.requests.filter((r) => tagOf(r) === 'nested' && toolResults(r).length > 0);
    expect(toolResults(after[0]).join('\n')).toContain('CHILD REPORT: the greeting is on line 2 of src/app.ts.');
    expect(after[0].body.messages.map(messageText).join('\n')).not.toContain('return `Hello ${name}`');
    await card(page, 'sa-agent').scrollIntoViewIfNeeded();
    await screenshot(page, 'subagent-nested');

    await page.reload();
    await page.locator('[data-subagent-for="sa-agent"] [data-child-call-id="ce-read"]').waitFor({ timeout: 30_000 });

    const href = await page.locator('[data-subagent-for="sa-agent"] [data-transcript-link]').getAttribute('href');
    const t = await s.ctx.newPage();
    await t.goto(`${s.clamp.base}${href}`);
    await t.locator('[data-transcript]').waitFor({ timeout: 30_000 });
    await t.getByText('CHILD REPORT: the greeting is on line 2 of src/app.ts.').waitFor({ timeout: 30_000 });
    await expect(t.locator('[data-tool-call-id="ce-read"]').count()).resolves.toBe(1);
    await expect(t.locator('#chat-input').isDisabled()).resolves.toBe(true);
    await screenshot(t, 'subagent-transcript');
    await t.close();
  });

  it("a general child's command waits in the approval bar, labelled with the child, while the parent's call runs", { timeout: 120_000 }, async () => {
    const { page } = await s.start('approve');
    await send(page, '[e2e:approve] Make the marker file.');
    const bar = await approvalFor(page, 'cg-run');
    await expect(bar.innerText()).resolves.toContain('from subagent general: make the marker');
    await expect(bar.locator('pre').innerText()).resolves.toBe(`touch ${marker}.txt`);
    await expect(card(page, 'sg-agent').getAttribute('data-running')).resolves.toBe('true');
    await expect(page.locator('[data-subagent-for="sg-agent"] [data-child-call-id="cg-run"]').getAttribute('data-state')).resolves.toBe('waiting');
    await screenshot(page, 'subagent-approval');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The helper made the file.').waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(s.ws.workspace, `${marker}.txt`))).toBe(true);
    await expect(page.locator('[data-approval-for]').count()).resolves.toBe(0);
  });

  it("ask_user: the question and its choices appear in the approval area; the answer is what the model reads next", { timeout: 120_000 }, async () => {
    const { page } = await s.start('ask');
    await send(page, '[e2e:ask] Make a banner.');
    const q = page.locator('[data-question-for="q-ask"]');
    await q.waitFor({ timeout: 30_000 });
    await expect(q.innerText()).resolves.toContain('Which colour should the banner be?');
    const choices = await q.getByRole('group', { name: 'Choices' }).getByRole('button').allInnerTexts();
    expect(choices).toEqual(['red', 'blue', 'green']);
    await expect(page.locator('section[aria-label="Pending approvals"] [data-question-for="q-ask"]').count()).resolves.toBe(1);
    await screenshot(page, 'ask-user-question');
    await q.getByRole('button', { name: 'blue' }).click();
    await page.getByText('Blue it is: I will paint the banner blue.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    const after = s.fake.requests.filter((r) => tagOf(r) === 'ask' && toolResults(r).length > 0);
    expect(toolResults(after[0]).join('\n')).toContain('The user answered: blue');
    await expect(page.locator('[data-question-for]').count()).resolves.toBe(0);
    await expect(card(page, 'q-ask').innerText()).resolves.toContain('Which colour should the banner be? → blue');
  });
});
