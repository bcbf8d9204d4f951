/**
 * End-to-end: a call interrupted by a restart, on the page. The server is killed (SIGKILL) while a
 * command that changed a file still runs; after a restart on the same data dir the call's card says
 * it was interrupted by a restart, shows what its log captured, and offers the rewind to the
 * checkpoint taken before it, which puts the file back on disk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { approvalFor, card, createSession, launchBrowser, openClamp, screenshot, send, unique, type E2EBrowser } from './browser';
import { scriptedReplies } from './scenarios';

const marker = unique('e2e-int');
// changes a file, prints three lines, then waits long enough to be killed mid-run
const CMD = `printf 'changed\\n' > data.txt && for i in 1 2 3; do echo step-$i; done && sleep 120 # ${marker}`;
const scripts = { long: [{ text: 'Running the long job.', toolCalls: [{ name: 'run_command', args: { command: CMD }, id: 'int-run' }] }, { text: 'Done.' }] };

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let browser: E2EBrowser;
const servers: RunningClamp[] = [];

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-interrupted-');
  ws.write('data.txt', 'original\n');
  fake = await startFakeOpenAI(scriptedReplies(scripts));
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  for (const c of servers) if (c.proc.exitCode === null && c.proc.signalCode === null) await c.stop();
  await fake?.close();
  ws?.cleanup();
});

const env = () => ({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'default' });

describe('a call interrupted by a restart', () => {
  it('SIGKILL mid-command, restart: the card says so with its captured output, and its rewind restores the file', { timeout: 240_000 }, async () => {
    const first = await startClamp(env());
    servers.push(first);
    const id = await createSession(first, 'interrupted');
    const ctx = await browser.newContext();
    const one = await openClamp(ctx, first, id);
    await send(one.page, '[e2e:long] Run the long job.');
    const bar = await approvalFor(one.page, 'int-run');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await expect.poll(() => card(one.page, 'int-run').innerText(), { timeout: 30_000 }).toContain('step-3');
    expect(ws.read('data.txt')).toBe('changed\n');
    await first.crash();
    await one.page.close();

    const second = await startClamp(env(), first.token);
    servers.push(second);
    const { page, errors } = await openClamp(ctx, second, id);
    const c = card(page, 'int-run');
    await c.waitFor({ timeout: 30_000 });
    await expect(c.getAttribute('data-state')).resolves.toBe('output-error');
    const text = await c.innerText();
    expect(text).toContain('interrupted by a restart');
    expect(text).toContain('Interrupted by a restart');
    expect(text).toContain('step-3');
    // its header names the call as a live card does: the tool and its command, not its input as JSON
    const header = await c.locator('button[aria-expanded]').first().innerText();
    expect(header).toMatch(/^[▸▾]?\s*run_command\s*printf 'changed/);
    expect(header).not.toContain('{"command"');
    await screenshot(page, 'interrupted-card');
    // the whole log opens in the output viewer, with the lines printed before the kill
    await c.getByRole('button', { name: 'Open log' }).click();
    const viewer = page.getByRole('dialog', { name: /Log of the interrupted call int-run/ });
    await viewer.waitFor();
    await expect.poll(() => viewer.innerText(), { timeout: 10_000 }).toContain('step-3');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });

    await c.getByRole('button', { name: 'Rewind to before this call…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind to before this message' });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toContain('Run the long job.');
    await dialog.getByRole('region', { name: 'Files that will change' }).locator('[data-file="data.txt"]').waitFor({ timeout: 30_000 });
    await dialog.getByRole('radio', { name: /^Restore code/ }).last().check();
    await screenshot(page, 'interrupted-rewind');
    await dialog.getByRole('button', { name: 'Restore code', exact: true }).click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    expect(ws.read('data.txt')).toBe('original\n');
    // code only: the conversation keeps the interrupted card
    await expect(c.count()).resolves.toBe(1);
    await page.getByRole('note', { name: 'Rewound code' }).waitFor();
    expect(errors).toEqual([]);
  });
});
