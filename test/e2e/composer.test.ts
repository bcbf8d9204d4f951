/**
 * End-to-end: the composer in headless Chromium against the real launcher and a fake OpenAI-compatible
 * model that records every request: @-mentions (completion, the attached read, a missing file), a
 * pasted image reaching a vision model as a file part, slash commands, a queued message, steering,
 * the per-session model picker (the next request names the new model), export and import.
 */
import fs from 'node:fs';
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fake-openai';
import { card, screenshot, send, waitIdle } from './browser';
import { messageText, scriptedReplies, tagOf } from './scenarios';
import { e2eSuite } from './suite';

const APP_TS = 'export function greet(name: string): string {\n  return `Hello ${name}`;\n}\n\nconsole.log(greet("world"));\n';
const SKILL = '---\nname: release-notes\ndescription: Write release notes from the git log\n---\nRead the log, then write the notes.\n';
// an 8×8 red PNG
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGO4o6aGFTEMLQkAF/tKAS/fz4YAAAAASUVORK5CYII=';

const scripts = {
  mention: [{ text: 'I read the attached file.' }],
  late: [{ text: 'Sent after the late completion.' }],
  missing: [{ text: 'That file is not there.' }],
  image: [{ text: 'A small red square.' }],
  first: [{ text: 'First answer.' }],
  second: [{ text: 'Second answer, from the new model.' }],
  midturn: [{ text: 'Reading.', toolCalls: [{ name: 'read_file', args: { path: 'src/app.ts' }, id: 'mt-read' }], delayMs: 3000 }, { text: 'Done after the switch.' }],
  slow: [{ text: 'Slow answer done.', delayMs: 3500 }],
  after: [{ text: 'The queued message was answered.' }],
  steer: [{ text: 'Looking.', toolCalls: [{ name: 'read_file', args: { path: 'README.md' }, id: 'st-read' }], delayMs: 3000 }, { text: 'This step must never be asked for.' }],
  steered: [{ text: 'Steered: answering the new message.' }],
  export: [{ text: 'Something to **export**.', toolCalls: [{ name: 'read_file', args: { path: 'README.md' }, id: 'ex-read' }] }, { text: 'Exported answer.' }],
};

const s = e2eSuite(
  'clamp-e2e-composer-',
  { 'README.md': '# Demo\n\nA tiny project.\n', 'src/app.ts': APP_TS, 'src/util.ts': 'export const x = 1;\n', '.clamp/skills/release-notes/SKILL.md': SKILL },
  scriptedReplies(scripts),
  { models: ['fake', 'fake-vision'] },
);

const requestsOf = (tag: string): FakeRequest[] => s.fake.requests.filter((r) => tagOf(r) === tag);
const lastUser = (r: FakeRequest) => [...r.body.messages].reverse().find((m) => m.role === 'user')!;

async function pickModel(page: Page, value: string) {
  const picker = page.locator('#model-picker');
  await picker.locator(`option[value="${value}"]`).waitFor({ state: 'attached', timeout: 20_000 });
  await picker.selectOption(value);
  await expect.poll(async () => ((await (await s.clamp.api('/api/sessions')).json()) as { sessions: { model?: string }[] }).sessions.some((x) => x.model === value), { timeout: 10_000 }).toBe(true);
}

describe('the composer', () => {
  it('@ completes workspace paths; the mention attaches the read the model sees, shown on the message', { timeout: 120_000 }, async () => {
    const { page } = await s.start('mention');
    await page.locator('#chat-input').pressSequentially('[e2e:mention] explain @src/ap');
    const option = page.getByRole('option', { name: 'src/app.ts' });
    await option.waitFor({ timeout: 15_000 });
    await screenshot(page, 'composer-mention-completion');
    await page.press('#chat-input', 'Tab');
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('[e2e:mention] explain @src/app.ts ');
    await page.locator('#chat-input').pressSequentially('and @README.md#L1-1');
    await page.press('#chat-input', 'Escape');
    await page.press('#chat-input', 'Enter');
    await page.getByText('I read the attached file.').waitFor({ timeout: 30_000 });
    await waitIdle(page);

    const [req] = requestsOf('mention');
    const told = messageText(lastUser(req));
    expect(told).toContain('The user attached @src/app.ts (read_file result):');
    expect(told).toContain('1\texport function greet(name: string): string {');
    expect(told).toContain('The user attached @README.md lines 1-1 (read_file result):');
    expect(told).toContain('1\t# Demo');
    expect(told).not.toContain('A tiny project');
    const attached = page.locator('[data-attached="src/app.ts"]');
    await attached.waitFor({ timeout: 10_000 });
    await attached.locator('summary').click();
    await expect(attached.innerText()).resolves.toContain('export function greet');
    await screenshot(page, 'composer-mention-attached');
  });

  it('a completion answered after the choice was taken does not reopen the list: Enter then sends', { timeout: 120_000 }, async () => {
    const { page } = await s.start('late');
    // every answer for text past "src/" comes late: the list on show is the one for "@src", whose first choice is the folder
    const slow = /\/api\/paths\?q=src%2F/;
    await page.route(slow, async (route) => {
      await new Promise((r) => setTimeout(r, 2_000));
      await route.continue().catch(() => undefined);
    });
    // the late request's end for the last letter typed: its answer reached the page, or the page cancelled it
    const late = /\/api\/paths\?q=src%2Fapp(&|$)/;
    const lateEnded = new Promise<void>((resolve) => {
      const ended = (r: Request) => late.test(r.url()) && resolve();
      page.on('requestfinished', ended);
      page.on('requestfailed', ended);
    });
    await page.locator('#chat-input').pressSequentially('[e2e:late] explain @src');
    const options = page.locator('#composer-options').getByRole('option');
    await options.filter({ hasText: /^src\/$/ }).waitFor({ timeout: 15_000 });
    // typed on while the answers are late: the list for "@src" shows only what "@src/ap" still matches
    await page.locator('#chat-input').pressSequentially('/ap');
    await expect.poll(() => options.allInnerTexts(), { timeout: 5_000 }).toEqual(['src/app.ts']);
    await page.press('#chat-input', 'p');
    await page.press('#chat-input', 'Tab');
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('[e2e:late] explain @src/app.ts ');
    await lateEnded;
    // what the page does with an answer happens in its next tasks: two frames, and a margin for a loaded machine
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.waitForTimeout(300);
    await expect(page.getByRole('option', { name: 'src/app.ts' }).count()).resolves.toBe(0);
    await page.press('#chat-input', 'Enter');
    await page.getByText('Sent after the late completion.').waitFor({ timeout: 30_000 });
    expect(messageText(lastUser(requestsOf('late')[0]))).toContain('The user attached @src/app.ts (read_file result):');
    await page.unroute(slow);
  });

  it('a mention of a missing file: the page says so before sending; sent anyway, the model reads the error', { timeout: 120_000 }, async () => {
    const { page } = await s.start('missing');
    await send(page, '[e2e:missing] look at @src/nope.ts');
    const problems = page.getByTestId('mention-problems');
    await problems.waitFor({ timeout: 10_000 });
    await expect(problems.innerText()).resolves.toContain('@src/nope.ts: No file src/nope.ts in the workspace.');
    expect(requestsOf('missing')).toHaveLength(0);
    await screenshot(page, 'composer-mention-missing');
    await problems.getByRole('button', { name: 'Send anyway' }).click();
    await page.getByText('That file is not there.').waitFor({ timeout: 30_000 });
    const told = messageText(lastUser(requestsOf('missing')[0]));
    expect(told).toContain('The user attached @src/nope.ts (read_file error):');
    expect(told).toMatch(/not found/i);
    await expect(page.locator('[data-attached="src/nope.ts"]').getAttribute('data-status')).resolves.toBe('error');
  });

  it('a pasted image: refused for a model without vision; after picking a vision model it reaches the model as an image part', { timeout: 120_000 }, async () => {
    const { page } = await s.start('image');
    const paste = () =>
      page.evaluate((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'red.png', { type: 'image/png' }));
        document.querySelector('#chat-input')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }, PNG_BASE64);
    await page.fill('#chat-input', '[e2e:image] what is this?');
    await paste();
    await page.locator('[data-attachment="red.png"]').waitFor({ timeout: 10_000 });
    const refusal = page.getByTestId('image-refusal');
    await refusal.waitFor({ timeout: 10_000 });
    await expect(refusal.innerText()).resolves.toMatch(/does not take images \(not a known vision model/);
    await expect(page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).resolves.toBe(true);
    await screenshot(page, 'composer-image-refused');

    await pickModel(page, 'openai-compatible:fake-vision');
    await refusal.waitFor({ state: 'detached', timeout: 10_000 });
    await page.press('#chat-input', 'Enter');
    await page.getByText('A small red square.').waitFor({ timeout: 30_000 });
    const [req] = requestsOf('image');
    expect(req.body.model).toBe('fake-vision');
    const content = lastUser(req).content as Array<{ type: string; image_url?: { url: string } }>;
    expect(content.find((p) => p.type === 'image_url')?.image_url?.url).toBe(`data:image/png;base64,${PNG_BASE64}`);
    await page.locator('[data-role="user"] img[alt="red.png"]').waitFor({ timeout: 10_000 });
    await screenshot(page, 'composer-image-sent');
  });

  it('the model picker: the next request names the new model, and the conversation shows the switch', { timeout: 120_000 }, async () => {
    const { page } = await s.start('picker');
    await send(page, '[e2e:first] hello');
    await page.getByText('First answer.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    expect(requestsOf('first')[0].body.model).toBe('fake');
    await pickModel(page, 'openai-compatible:fake-vision');
    await send(page, '[e2e:second] again');
    await page.getByText('Second answer, from the new model.').waitFor({ timeout: 30_000 });
    expect(requestsOf('second')[0].body.model).toBe('fake-vision');
    await expect(page.getByTestId('model-switch').innerText()).resolves.toContain('Model: fake → fake-vision');
    await screenshot(page, 'composer-model-switched');

    // a switch during a turn: the step after it asks the new model
    await page.locator('#model-picker').selectOption('');
    // as pickModel does: the switch back is on the server before the message is sent
    await expect.poll(async () => ((await (await s.clamp.api('/api/sessions')).json()) as { sessions: { title: string; model?: string | null }[] }).sessions.filter((x) => x.title === 'picker').map((x) => x.model ?? null), { timeout: 10_000 }).toEqual([null]);
    await send(page, '[e2e:midturn] read it');
    await expect.poll(() => requestsOf('midturn').length, { timeout: 20_000 }).toBe(1);
    await pickModel(page, 'openai-compatible:fake-vision');
    await page.getByText('Done after the switch.').waitFor({ timeout: 30_000 });
    expect(requestsOf('midturn').map((r) => r.body.model)).toEqual(['fake', 'fake-vision']);
  });

  it('slash commands: the list with help, /help, /cost, /mode, a skill, an unknown command, /new', { timeout: 120_000 }, async () => {
    const { page } = await s.start('slash');
    await page.locator('#chat-input').pressSequentially('/');
    const list = page.getByRole('listbox', { name: /Commands/ });
    await list.waitFor({ timeout: 10_000 });
    // the skills come from the server: the list takes them in when they arrive
    await list.getByRole('option', { name: /^\/release-notes/ }).waitFor({ timeout: 15_000 });
    const names = await list.getByRole('option').allInnerTexts();
    for (const c of ['/compact', '/new', '/clear', '/model', '/mode', '/rewind', '/cost', '/help', '/release-notes']) expect(names.some((n) => n.startsWith(c))).toBe(true);
    expect(names.find((n) => n.startsWith('/release-notes'))).toContain('Write release notes from the git log');
    await screenshot(page, 'composer-slash-list');

    await page.locator('#chat-input').pressSequentially('he');
    await page.press('#chat-input', 'Tab');
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('/help ');
    await page.press('#chat-input', 'Enter');
    const panel = page.getByTestId('composer-panel');
    await expect(panel.innerText()).resolves.toContain('/cost — ');

    await send(page, '/cost');
    await expect.poll(() => panel.innerText()).toMatch(/0 model steps; input 0 tokens/);
    await send(page, '/mode plan');
    await expect.poll(() => page.locator('#mode-picker').inputValue()).toBe('plan');
    await send(page, '/bogus');
    await expect.poll(() => panel.innerText()).toContain('No such command.');

    await send(page, '/release-notes since v1.2');
    await expect.poll(() => s.fake.requests.some((r) => messageText(lastUser(r)).includes('The user invoked the skill "release-notes"')), { timeout: 30_000 }).toBe(true);
    const req = s.fake.requests.find((r) => messageText(lastUser(r)).includes('The user invoked the skill "release-notes"'))!;
    expect(messageText(lastUser(req))).toContain('with these arguments: since v1.2');
    await waitIdle(page);

    const before = new URL(page.url()).searchParams.get('s');
    await send(page, '/new');
    await expect.poll(() => new URL(page.url()).searchParams.get('s'), { timeout: 10_000 }).not.toBe(before);
    await screenshot(page, 'composer-slash-new');
  });

  it('a message typed while the turn runs is queued (editable, cancellable) and sent when the turn ends', { timeout: 120_000 }, async () => {
    const { page } = await s.start('queue');
    await send(page, '[e2e:slow] take your time');
    await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 10_000 });
    await send(page, '[e2e:after] a first draft');
    await send(page, 'a message to cancel');
    const queued = page.locator('[data-queued]');
    await expect(queued.count()).resolves.toBe(2);
    await screenshot(page, 'composer-queued');
    await queued.nth(1).getByRole('button', { name: /Cancel/ }).click();
    await queued.first().getByRole('button', { name: 'Edit' }).click();
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe('[e2e:after] a first draft');
    await page.fill('#chat-input', '[e2e:after] the edited message');
    await page.press('#chat-input', 'Enter');
    await expect(queued.count()).resolves.toBe(1);
    expect(requestsOf('after')).toHaveLength(0);

    await page.getByText('Slow answer done.').waitFor({ timeout: 30_000 });
    await page.getByText('The queued message was answered.').waitFor({ timeout: 30_000 });
    expect(messageText(lastUser(requestsOf('after')[0]))).toBe('[e2e:after] the edited message');
    expect(s.fake.requests.some((r) => messageText(lastUser(r)) === 'a message to cancel')).toBe(false);
    await expect(queued.count()).resolves.toBe(0);
  });

  it('Send now steers: the turn ends after its running tool call, before the next model step, and the message goes', { timeout: 120_000 }, async () => {
    const { page } = await s.start('steer');
    await send(page, '[e2e:steer] look around');
    await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 10_000 });
    await page.fill('#chat-input', '[e2e:steered] change of plan');
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByText('sending at the next safe point').waitFor({ timeout: 5000 });
    await screenshot(page, 'composer-steering');
    await page.getByText('Steered: answering the new message.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    // the read ran and its result is stored; the model was not asked for the step after it
    await expect.poll(() => card(page, 'st-read').getAttribute('data-state')).toBe('output-available');
    expect(requestsOf('steer')).toHaveLength(1);
    const steered = requestsOf('steered')[0];
    expect(steered.body.messages.some((m) => m.role === 'tool')).toBe(true);
    await screenshot(page, 'composer-steered');
  });

  it('export as JSON and Markdown from the sidebar, and import the JSON: a new session with the same conversation', { timeout: 120_000 }, async () => {
    const { page } = await s.start('export me');
    await send(page, '[e2e:export] do something');
    await page.getByText('Exported answer.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    const row = page.getByRole('navigation', { name: 'Sessions' }).locator('li', { hasText: 'export me' }).first();
    await row.hover();
    const [jsonDl] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: /as JSON/ }).click()]);
    const jsonPath = await jsonDl.path();
    const exported = JSON.parse(fs.readFileSync(jsonPath, 'utf8')) as { format: string; session: { title: string }; messages: { role: string }[] };
    expect(exported.format).toBe('clamp-session');
    expect(exported.session.title).toBe('export me');
    expect(exported.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const [mdDl] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: /as Markdown/ }).click()]);
    const md = fs.readFileSync(await mdDl.path(), 'utf8');
    expect(md).toContain('# export me');
    expect(md).toContain('## User\n\n[e2e:export] do something');
    expect(md).toContain('**read_file** `{"path":"README.md"}`');
    expect(md).toContain('Exported answer.');

    const input = page.locator('input[aria-label="Import a session (JSON export)"]');
    await input.setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"other","version":1,"session":{"title":"x"},"messages":[]}') });
    const err = page.getByTestId('import-error');
    await err.waitFor({ timeout: 10_000 });
    await expect(err.innerText()).resolves.toContain('bad.json: Invalid request: field "format": is not "clamp-session": this is not a Clamp session export.');
    await screenshot(page, 'composer-import-error');
    await err.getByRole('button', { name: 'Dismiss' }).click();

    await input.setInputFiles(jsonPath);
    await expect.poll(() => page.getByRole('navigation', { name: 'Sessions' }).locator('[aria-current="true"]').innerText(), { timeout: 10_000 }).toContain('export me (imported)');
    await page.getByText('Exported answer.').waitFor({ timeout: 10_000 });
    await expect.poll(() => card(page, 'ex-read').getAttribute('data-state')).toBe('output-available');
    await screenshot(page, 'composer-imported');
  });
});
