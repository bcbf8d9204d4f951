/**
 * End-to-end: first run with no model, in headless Chromium against the real launcher. The no-model page,
 * then the settings dialog: its focus and layout, each provider's own hints, Save refusing a configuration
 * that cannot work (a missing script file, a base URL where nothing listens) with the error inside the
 * dialog, Save anyway, and Test connection filling the model picker from loopback stand-ins.
 */
import net from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fake-openai';
import { startFakeOllama } from '../fake-ollama';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { launchBrowser, screenshot, type E2EBrowser } from './browser';

let ws: ReturnType<typeof tempWorkspace>;
let clamp: RunningClamp;
let browser: E2EBrowser;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let ollama: Awaited<ReturnType<typeof startFakeOllama>>;
let deadPort: number;

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-settings-');
  ws.write('README.md', '# Demo\n');
  fake = await startFakeOpenAI([{ text: 'Hello from the stand-in.' }], { models: ['qwen2.5-coder-7b', 'llama-3.1-8b'] });
  ollama = await startFakeOllama(['qwen3-coder:latest', 'gemma3:4b']);
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  deadPort = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  const env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', CLAMP_API_KEY: '', CLAMP_BASE_URL: '', OPENAI_BASE_URL: '' };
  [clamp, browser] = await Promise.all([startClamp(env), launchBrowser()]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await clamp?.stop();
  await Promise.all([fake?.close(), ollama?.close()]);
  ws?.cleanup();
});

const savedProvider = async () => ((await (await clamp.api('/api/settings')).json()) as { settings: { provider: string | null } }).settings.provider;

async function openSettings(page: Page) {
  await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Provider').waitFor({ timeout: 15_000 });
  return dialog;
}

describe('first run: the no-model page and the settings dialog', () => {
  it('the page lists the ways to configure a model, says its heading once, and loads without console errors', { timeout: 60_000 }, async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    await page.getByRole('heading', { name: 'No model is configured' }).waitFor({ timeout: 30_000 });
    const main = page.locator('main');
    expect((await main.innerText()).match(/No model is configured/g)).toHaveLength(1);
    await expect(main.locator('pre').count()).resolves.toBe(0);
    const ways = main.getByRole('list', { name: 'How to configure a model' }).getByRole('listitem');
    await expect(ways.count()).resolves.toBe(5);
    await expect(ways.first().innerText()).resolves.toMatch(/^ANTHROPIC_API_KEY=…\s+Anthropic; model with CLAMP_MODEL=anthropic:claude-sonnet-4-5$/);
    await expect(main.innerText()).resolves.toContain('CLAMP_MODEL=scripted:<file.json>');
    // the favicon is an app icon: no request fails
    await expect(page.locator('link[rel="icon"]').count()).resolves.toBeGreaterThan(0);
    await screenshot(page, 'settings-0-no-model');
    expect(consoleErrors).toEqual([]);
    await ctx.close();
  });

  it('focuses the first field, keeps Close and Save at the bottom, and shows each provider its own hints', { timeout: 60_000 }, async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    const dialog = await openSettings(page);
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('label')?.textContent?.trim().startsWith('Provider') ?? false)).toBe(true);
    const save = dialog.getByRole('button', { name: 'Save', exact: true });
    // Save stays in view at the dialog's foot, however long the sections above it grow
    const [saveBox, dialogBox] = [await save.boundingBox(), await dialog.boundingBox()];
    const viewport = page.viewportSize()!;
    expect(saveBox!.y + saveBox!.height, 'Save in view').toBeLessThanOrEqual(viewport.height);
    expect(dialogBox!.y + dialogBox!.height - (saveBox!.y + saveBox!.height), 'Save at the dialog\'s foot').toBeLessThan(80);
    await screenshot(page, 'settings-1-open');

    const provider = dialog.getByLabel('Provider');
    const model = dialog.getByRole('textbox').first();
    const baseUrl = dialog.getByLabel('Base URL');
    await provider.selectOption('anthropic');
    await expect(model.getAttribute('placeholder')).resolves.toBe('e.g. claude-sonnet-4-5');
    await expect(baseUrl.count()).resolves.toBe(0);
    await expect(dialog.innerText()).resolves.toContain(`Saved to ${path.join(ws.dataDir, 'secrets.json')} (mode 0600, readable by you only), never to the database`);
    await provider.selectOption('openai');
    await expect(model.getAttribute('placeholder')).resolves.toBe('e.g. gpt-5');
    await expect(baseUrl.count()).resolves.toBe(0);
    await provider.selectOption('ollama');
    await expect(model.getAttribute('placeholder')).resolves.toBe('e.g. qwen3-coder');
    await expect(baseUrl.getAttribute('placeholder')).resolves.toBe('http://127.0.0.1:11434');
    await expect(dialog.getByLabel(/^API key/).count()).resolves.toBe(0);
    await provider.selectOption('openai-compatible');
    await expect(baseUrl.getAttribute('placeholder')).resolves.toBe('http://127.0.0.1:1234/v1');
    await expect(dialog.getByLabel(/^API key \(only if your server asks for one\)/).count()).resolves.toBe(1);
    await provider.selectOption('scripted');
    await expect(dialog.getByLabel(/^Script file \(a path, not a model name\)/).getAttribute('placeholder')).resolves.toBe('/path/to/script.json');
    await expect(baseUrl.count()).resolves.toBe(0);
    await screenshot(page, 'settings-2-scripted-hints');
    await ctx.close();
  });

  it('Save with a missing script file or a dead base URL says what is wrong in the dialog and saves nothing; Save anyway saves', { timeout: 90_000 }, async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    const dialog = await openSettings(page);
    const missing = path.join(ws.root, 'no-such-script.json');
    await dialog.getByLabel('Provider').selectOption('scripted');
    await dialog.getByLabel(/^Script file/).fill(missing);
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor({ timeout: 15_000 });
    await expect(alert.innerText()).resolves.toBe(`Not saved: The script file ${missing} does not exist. Give the path of a JSON script of model turns (docs/scripted-model.md).`);
    await expect(dialog.innerText()).resolves.not.toMatch(/Saved\./);
    expect(await savedProvider()).toBeNull();
    await screenshot(page, 'settings-3-missing-file');

    // a base URL where nothing listens
    await dialog.getByLabel('Provider').selectOption('openai-compatible');
    await dialog.getByRole('textbox').first().fill('some-model');
    await dialog.getByLabel('Base URL').fill(`http://127.0.0.1:${deadPort}/v1`);
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => alert.innerText(), { timeout: 15_000 }).toBe(`Not saved: Nothing listens at http://127.0.0.1:${deadPort} (connection refused). Start the server there, or correct the URL.`);
    expect(await savedProvider()).toBeNull();
    await screenshot(page, 'settings-4-dead-url');

    // saving anyway is explicit, and says it will not work
    await dialog.getByRole('button', { name: 'Save anyway' }).click();
    await expect.poll(() => alert.innerText(), { timeout: 15_000 }).toMatch(/^Saved anyway, as asked; new turns will fail until this is fixed: Nothing listens at /);
    expect(await savedProvider()).toBe('openai-compatible');
    await ctx.close();
  });

  it('Test connection lists the stand-in servers’ models in a picker; a picked model saves and the chat opens', { timeout: 90_000 }, async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    const dialog = await openSettings(page);
    // the last test saved some-model: a name Ollama does not list
    await dialog.getByLabel('Provider').selectOption('ollama');
    await dialog.getByLabel('Base URL').fill(ollama.url);
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => dialog.getByRole('alert').innerText(), { timeout: 15_000 }).toBe(`Reached Ollama at ${ollama.url}: 2 models listed. “some-model” is not one of them: pick a listed model, or check the name.`);
    await dialog.getByRole('textbox').first().fill('');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    const picker = dialog.getByLabel(/^Models Ollama lists \(2\)/);
    await picker.waitFor({ timeout: 15_000 });
    await expect(picker.locator('option').allInnerTexts()).resolves.toEqual(['pick one…', 'gemma3:4b', 'qwen3-coder:latest']);
    // reached, with a model left to pick: a status, not an alert
    const choose = dialog.locator('[data-settings-message="choose"]');
    await expect.poll(() => choose.innerText(), { timeout: 15_000 }).toBe(`Reached Ollama at ${ollama.url}: 2 models listed. Pick the model to use from the list.`);
    await expect(choose.getAttribute('role')).resolves.toBe('status');

    await dialog.getByLabel('Provider').selectOption('openai-compatible');
    await dialog.getByLabel('Base URL').fill(fake.url);
    await dialog.getByRole('textbox').first().fill('');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    const list = dialog.getByLabel(/^Models the provider lists \(2\)/);
    await list.waitFor({ timeout: 15_000 });
    await expect(list.locator('option').allInnerTexts()).resolves.toEqual(['pick one…', 'llama-3.1-8b', 'qwen2.5-coder-7b']);
    await list.selectOption('qwen2.5-coder-7b');
    await expect(dialog.getByRole('textbox').first().inputValue()).resolves.toBe('qwen2.5-coder-7b');
    await screenshot(page, 'settings-5-picker');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    const ok = dialog.getByRole('status');
    await expect.poll(() => ok.innerText(), { timeout: 15_000 }).toBe(
      `Saved. New turns use these settings. Reached the server at ${new URL(fake.url).origin}: 2 models listed. qwen2.5-coder-7b is one of them.`,
    );
    expect(fake.modelListRequests.length).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'settings-6-saved');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.locator('#chat-input').waitFor({ timeout: 15_000 });
    await expect(page.getByRole('banner').innerText()).resolves.toContain('qwen2.5-coder-7b');
    await ctx.close();
  });
});
