/**
 * End-to-end: the sandbox as a person meets it, against the real launcher, the real page in headless
 * Chromium and a fake OpenAI-compatible model. With bwrap present, a script that writes outside the
 * workspace is refused by the sandbox and the model reads the sandbox note; with bwrap missing, the
 * launcher and the page say so and auto mode runs no command.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { createSession, launchBrowser, openClamp, send, waitIdle, type E2EBrowser } from './browser';
import { scriptedReplies, tagOf, toolResults } from './scenarios';

const outsideDir = fs.mkdtempSync(path.join('/var/tmp', 'clamp-e2e-sbx-out-'));
const outside = path.join(outsideDir, 'escaped.txt');
const scripts = {
  escape: [
    { text: 'Running the script.', toolCalls: [{ name: 'run_command', args: { command: 'sh ./x.sh' }, id: 'sbx-run' }] },
    { text: 'Done.' },
  ],
};

describe('the sandbox end to end', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let browser: E2EBrowser;
  const requests: FakeRequest[] = [];
  const servers: RunningClamp[] = [];
  const replies = scriptedReplies(scripts);

  beforeAll(async () => {
    ws = tempWorkspace('clamp-e2e-sbx-');
    ws.write('x.sh', `echo inside > inside.txt\necho out > ${outside}\n`);
    fake = await startFakeOpenAI((req) => {
      requests.push(req);
      return replies(req);
    });
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.stop();
    await fake?.close();
    ws?.cleanup();
    fs.rmSync(outsideDir, { recursive: true, force: true });
  });

  const launch = async (env: Record<string, string>) => {
    const c = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake', CLAMP_BASE_URL: fake.url, CLAMP_MODE: 'auto', ...env });
    servers.push(c);
    return c;
  };

  it('with bwrap: the launcher names the sandbox, the page shows no warning, and the escape is refused with the note', { timeout: 180_000 }, async () => {
    const clamp = await launch({});
    expect(clamp.output()).toContain('Sandbox: bubblewrap, workspace-write (debug mode: read-only), no direct network.');
    const status = await (await clamp.api('/api/status')).json();
    expect(status.sandbox).toEqual({ level: 'by-mode', available: true, network: false, net: { available: true } });
    expect(clamp.output()).toContain("Sandbox network: only through Clamp's proxy, to the hosts you allow");
    const ctx = await browser.newContext();
    const { page, errors } = await openClamp(ctx, clamp, await createSession(clamp, 'sandbox escape', 'auto'));
    expect(await page.getByTestId('sandbox-badge').count()).toBe(0);
    await send(page, '[e2e:escape] run the script');
    await waitIdle(page);
    const read = requests.filter((r) => tagOf(r) === 'escape').flatMap(toolResults).join('\n');
    expect(read).toMatch(/Read-only file system/);
    expect(read).toContain('This failure looks like Clamp\'s sandbox at work');
    expect(fs.existsSync(outside)).toBe(false);
    expect(ws.read('inside.txt')).toBe('inside\n');
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('without bwrap: the launcher and the page say so, and auto mode runs no command', { timeout: 180_000 }, async () => {
    requests.length = 0;
    fs.rmSync(path.join(ws.workspace, 'inside.txt'), { force: true });
    const clamp = await launch({ CLAMP_BWRAP: '/nonexistent/bwrap' });
    expect(clamp.output()).toMatch(/Sandbox: NOT AVAILABLE: bubblewrap \(bwrap\) is not installed.*Every command asks first, and auto mode runs none\./);
    const status = await (await clamp.api('/api/status')).json();
    expect(status.sandbox).toMatchObject({ level: 'by-mode', available: false, problem: expect.stringContaining('apt-get install bubblewrap') });
    const ctx = await browser.newContext();
    const { page, errors } = await openClamp(ctx, clamp, await createSession(clamp, 'no sandbox', 'auto'));
    const badge = page.getByTestId('sandbox-badge');
    await badge.waitFor({ timeout: 15_000 });
    expect(await badge.innerText()).toBe('no sandbox');
    expect(await badge.getAttribute('title')).toMatch(/bubblewrap \(bwrap\) is not installed.*auto mode runs none/);
    await send(page, '[e2e:escape] run the script');
    await waitIdle(page);
    const read = requests.filter((r) => tagOf(r) === 'escape').flatMap(toolResults).join('\n');
    expect(read).toMatch(/run_command was refused: bubblewrap \(bwrap\) is not installed.*Auto mode runs no command without the sandbox/);
    expect(fs.existsSync(path.join(ws.workspace, 'inside.txt'))).toBe(false);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
