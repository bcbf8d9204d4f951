/**
 * End-to-end: MCP servers in headless Chromium against the real launcher. A server of the person's
 * (CLAMP_MCP_CONFIG) starts at launch; a workspace .mcp.json server does not start when the workspace
 * and the page are opened, only once approved on the settings page; a conversation (fake
 * OpenAI-compatible model) calls an MCP tool that asks, is approved, and shows its card.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { approvalFor, card, createSession, launchBrowser, openClamp, screenshot, send, waitIdle, type E2EBrowser } from './browser';
import { scriptedReplies, toolResults } from './scenarios';
import { FIXTURE } from '../mcp/hub-bed';

let ws: ReturnType<typeof tempWorkspace>;
let clamp: RunningClamp;
let browser: E2EBrowser;
let ctx: BrowserContext;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let marker: string;
let lastToolResults: string[] = [];

const scripts = {
  mcp: [
    { text: 'Adding the tool.', toolCalls: [{ name: 'mcp__fixture__add_tool', args: {}, id: 'mcp-add' }] },
    { text: 'The server now has its late tool.' },
  ],
};

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-mcp-');
  // in the workspace: a repository's server runs in the sandbox, where only the workspace is writable
  marker = path.join(ws.workspace, 'repo-server-started');
  const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); import(${JSON.stringify(FIXTURE)})`;
  ws.write('.mcp.json', JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: ['-e', script] } } }));
  ws.write('README.md', '# Demo\n');
  const config = path.join(ws.root, 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE] } } }));
  const replies = scriptedReplies(scripts);
  fake = await startFakeOpenAI((req) => {
    lastToolResults = toolResults(req);
    return replies(req);
  });
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

describe('MCP servers on the page', () => {
  it('lists the servers with status, tool count and tokens; the .mcp.json server waits for approval and has not run', { timeout: 120_000 }, async () => {
    const { page, errors } = await openClamp(ctx, clamp);
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    const fixture = dialog.locator('[data-server="fixture"]');
    await fixture.locator('[data-status="running"]').waitFor({ timeout: 60_000 });
    await expect(fixture.innerText()).resolves.toMatch(/fixture\s+CLAMP_MCP_CONFIG\s+running\s+6 tools · \d+ tokens/);
    const repo = dialog.locator('[data-server="repo"]');
    await expect(repo.locator('[data-status]').innerText()).resolves.toBe('needs approval');
    await expect(repo.innerText()).resolves.toContain('Nothing runs until you approve this exact definition');
    await fixture.getByRole('button', { name: 'Show 6 tools' }).click();
    await expect(fixture.locator('[data-tool="mcp__fixture__shout"]').innerText()).resolves.toMatch(/shout\s+\d+ tokens\s+read/);
    await dialog.locator('#mcp-h').scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-settings-servers');
    // opening the workspace and the page ran nothing of the repository's
    expect(fs.existsSync(marker)).toBe(false);

    await repo.getByRole('button', { name: 'Approve and start' }).click();
    await repo.locator('[data-status="running"]').waitFor({ timeout: 60_000 });
    expect(fs.existsSync(marker)).toBe(true);
    await repo.getByRole('button', { name: 'Log' }).click();
    await expect(repo.getByLabel('Server log').innerText()).resolves.toContain('fixture: started on stdio');
    await screenshot(page, 'mcp-settings-approved');
    // a single tool disabled is no longer offered
    await fixture.getByLabel('Offer hang').click();
    await expect.poll(async () => ((await (await clamp.api('/api/mcp')).json()) as { servers: { name: string; tools: { name: string; state: string }[] }[] }).servers.find((s) => s.name === 'fixture')!.tools.find((t) => t.name === 'hang')!.state).toBe('disabled');
    await page.close();
    expect(errors).toEqual([]);
  });

  it('a conversation calls an MCP tool: it asks, is approved, and its card shows the result', { timeout: 120_000 }, async () => {
    const id = await createSession(clamp, 'mcp call');
    const { page, errors } = await openClamp(ctx, clamp, id);
    await send(page, '[e2e:mcp] Add the late tool.');
    const bar = await approvalFor(page, 'mcp-add');
    await expect(bar.innerText()).resolves.toContain('mcp__fixture__add_tool');
    await expect(card(page, 'mcp-add').innerText()).resolves.toContain('waiting for approval');
    await screenshot(page, 'mcp-chat-approval');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The server now has its late tool.').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    await expect.poll(() => card(page, 'mcp-add').getAttribute('data-state')).toBe('output-available');
    await card(page, 'mcp-add').locator('button').first().click();
    await expect(card(page, 'mcp-add').innerText()).resolves.toContain('added "late"');
    expect(lastToolResults.join('\n')).toContain('added "late"');
    await screenshot(page, 'mcp-chat-card');
    await page.close();
    expect(errors).toEqual([]);
  });
});
