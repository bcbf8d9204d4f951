/**
 * End-to-end: the everything test server's resources and prompts in the composer, in headless Chromium against the
 * real launcher and the stand-in model. `@` completes a resource as `@everything:<uri>` and sending it attaches the
 * resource read through dispatch; `/mcp__everything__args_prompt Paris` sends the prompt's expanded message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { startFakeOpenAI, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { createSession, launchBrowser, openClamp, screenshot, send, waitIdle, type E2EBrowser } from './browser';
import { messageText } from './scenarios';
import { BIN } from '../mcp/hub-bed';

let ws: ReturnType<typeof tempWorkspace>;
let clamp: RunningClamp;
let browser: E2EBrowser;
let ctx: BrowserContext;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;

const lastUser = (r: FakeRequest) => messageText([...r.body.messages].reverse().find((m) => m.role === 'user')!);
const ARCH = 'demo://resource/static/document/architecture.md';

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-mcp-res-');
  ws.write('README.md', '# Demo\n');
  const config = path.join(ws.root, 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: BIN('mcp-server-everything'), args: ['stdio'] } } }));
  fake = await startFakeOpenAI(() => ({ text: 'Read it.' }));
  [clamp, browser] = await Promise.all([
    startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'default', CLAMP_MCP_CONFIG: config }),
    launchBrowser(),
  ]);
  ctx = await browser.newContext();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await clamp?.stop();
  await fake?.close();
  ws?.cleanup();
});

describe("an MCP server's resources and prompts in the composer", () => {
  it('@ completes a resource as <server>:<uri>; sending it attaches its content, read through dispatch', { timeout: 180_000 }, async () => {
    const { page, errors } = await openClamp(ctx, clamp, await createSession(clamp, 'resource'));
    await page.locator('#chat-input').pressSequentially('summarise @everything:demo://resource/static/document/archi');
    const option = page.getByRole('option', { name: `everything:${ARCH}` });
    await option.waitFor({ timeout: 60_000 });
    await screenshot(page, 'mcp-resource-completion');
    await page.press('#chat-input', 'Tab');
    await expect(page.locator('#chat-input').inputValue()).resolves.toBe(`summarise @everything:${ARCH} `);
    await page.press('#chat-input', 'Enter');
    await expect.poll(() => fake.requests.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const told = lastUser(fake.requests.at(-1)!);
    expect(told).toContain(`The user attached @everything:${ARCH} (the MCP resource, read_resource result):`);
    expect(told).toMatch(/# Everything Server – Architecture/);
    await waitIdle(page);
    await page.locator(`[data-attached="everything:${ARCH}"]`).waitFor({ timeout: 10_000 });
    await screenshot(page, 'mcp-resource-attached');
    expect(errors).toEqual([]);
  });

  it('a resource of a server that is not there: the page says so before sending', { timeout: 60_000 }, async () => {
    const { page, errors } = await openClamp(ctx, clamp, await createSession(clamp, 'no-server'));
    const before = fake.requests.length;
    await send(page, 'look at @nosuch:demo://resource/x.md');
    await page.getByText(/No running MCP server nosuch offers resources \(these do: everything\)/).waitFor({ timeout: 15_000 });
    expect(fake.requests.length).toBe(before);
    expect(errors).toEqual([]);
  });

  it('/mcp__everything__args_prompt with an argument sends the prompt’s expanded message to the model', { timeout: 120_000 }, async () => {
    const { page, errors } = await openClamp(ctx, clamp, await createSession(clamp, 'prompt'));
    await page.locator('#chat-input').pressSequentially('/mcp__everything__args');
    const option = page.getByRole('listbox', { name: /Commands/ }).getByRole('option', { name: /^\/mcp__everything__args_prompt/ });
    await option.waitFor({ timeout: 60_000 });
    await expect(option.innerText()).resolves.toContain('city');
    await screenshot(page, 'mcp-prompt-listed');
    const before = fake.requests.length;
    await send(page, '/mcp__everything__args_prompt Paris');
    await expect.poll(() => fake.requests.length, { timeout: 30_000 }).toBeGreaterThan(before);
    expect(lastUser(fake.requests.at(-1)!)).toContain("What's weather in Paris?");
    await waitIdle(page);
    expect(errors).toEqual([]);
  });
});
