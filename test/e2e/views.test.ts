/**
 * The views no chat scenario reaches: the empty state of a server with no model, the settings dialog
 * (rules and memories), and the page in dark mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { ROOT } from '../../lib/server/build';
import { launchBrowser, screenshot, type E2EBrowser } from './browser';

let ws: ReturnType<typeof tempWorkspace>;
let clamp: RunningClamp;
let browser: E2EBrowser;

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-views-');
  ws.write('README.md', '# Demo\n');
  const env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', CLAMP_API_KEY: '', CLAMP_BASE_URL: '', OPENAI_BASE_URL: '' };
  // a memory for the settings dialog to list, saved through the tool CLI in the same data dir
  const saved = spawnSync(process.execPath, [path.join(ROOT, 'bin/clamp-tool.mjs'), 'memory_save', '{"text":"Builds use pnpm, not npm."}'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  expect(JSON.parse(saved.stdout).status).toBe('ok');
  [clamp, browser] = await Promise.all([startClamp(env), launchBrowser()]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await clamp?.stop();
  ws?.cleanup();
});

describe('views in the browser', () => {
  it('with no model configured, the page says exactly how to configure one', { timeout: 60_000 }, async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    await page.getByText('No model is configured').first().waitFor({ timeout: 30_000 });
    const text = await page.locator('main').innerText();
    expect(text).toContain('ANTHROPIC_API_KEY');
    expect(text).toContain('CLAMP_MODEL=scripted:<file.json>');
    await screenshot(page, 'views-no-model');

    // the settings dialog: its form, the saved rules, and the workspace's memories (deletable)
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Builds use pnpm, not npm.').waitFor({ timeout: 15_000 });
    await expect(dialog.innerText()).resolves.toMatch(/Saved rules[\s\S]*Memories/);
    await screenshot(page, 'views-settings');
    await dialog.getByRole('button', { name: /^Delete memory: Builds use pnpm/ }).click();
    await dialog.getByText('Builds use pnpm, not npm.').waitFor({ state: 'detached', timeout: 15_000 });
    await ctx.close();
  });

  it('follows a dark colour scheme', { timeout: 60_000 }, async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    await page.getByText('No model is configured').first().waitFor({ timeout: 30_000 });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = (bg.match(/\d+(\.\d+)?/g) ?? []).map(Number);
    expect(r + g + b, `body background ${bg}`).toBeLessThan(150);
    await screenshot(page, 'views-dark');
    await ctx.close();
  });
});
