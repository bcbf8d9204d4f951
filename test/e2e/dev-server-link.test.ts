/**
 * End-to-end (issue 25, item 2): a dev server the model starts as a background task, in default sandbox
 * settings, shows in the task panel as a link to this machine's 127.0.0.1, and the link answers. Headless
 * Chromium at 1280×720 (the panel's column) and 420×900 (the drawer), against the real launcher and a fake
 * OpenAI-compatible model.
 */
import { describe, expect, it } from 'vitest';
import { approvalFor, screenshot, send, unique } from './browser';
import { scriptedReplies } from './scenarios';
import { e2eSuite } from './suite';

const marker = unique('e2e-link');
// a dev server as frameworks print them: listens on a port of its choosing and prints its URL
const DEV_SERVER =
  `node -e "const s=require('http').createServer((q,r)=>r.end('hello from the dev server'));` +
  `s.listen(0,'127.0.0.1',()=>console.log('Local: http://127.0.0.1:'+s.address().port+'/'))" ${marker}`;

const scripts = {
  dev: [
    { text: 'Starting the dev server in the background.', toolCalls: [{ name: 'run_command', args: { command: DEV_SERVER, background: true }, id: 'dev-run' }] },
    { text: 'The dev server runs; open it from the Tasks panel.' },
  ],
};

const s = e2eSuite('clamp-e2e-link-', { 'README.md': '# Blog\n' }, scriptedReplies(scripts));

describe('a dev server the model starts', () => {
  it('shows in the task panel as a link to 127.0.0.1 that answers, at 1280×720 and in the drawer at 420×900', { timeout: 120_000 }, async () => {
    const { page } = await s.start('dev server link');
    await page.setViewportSize({ width: 1280, height: 720 });
    await send(page, '[e2e:dev] Start the dev server.');
    const bar = await approvalFor(page, 'dev-run');
    await bar.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('The dev server runs; open it from the Tasks panel.').waitFor({ timeout: 30_000 });

    const panel = page.getByRole('complementary', { name: 'Background tasks' });
    const link = panel.getByRole('link', { name: /^http:\/\/127\.0\.0\.1:\d+\/$/ });
    await link.waitFor({ timeout: 20_000 });
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await link.getAttribute('target')).toBe('_blank');
    // the printed URL and the link agree (the port was free here), and the link answers from this machine
    await panel.getByText(`Local: ${href}`).waitFor({ timeout: 10_000 }).catch(async () => {
      await panel.getByRole('button', { name: new RegExp(marker) }).click();
      await panel.getByText(`Local: ${href}`).waitFor({ timeout: 10_000 });
    });
    expect(await (await fetch(href)).text()).toBe('hello from the dev server');
    await screenshot(page, 'dev-server-link-1280');

    await page.setViewportSize({ width: 420, height: 900 });
    await page.getByRole('button', { name: /^Tasks/ }).click();
    const drawer = page.getByRole('dialog');
    const narrow = drawer.getByRole('link', { name: href });
    await narrow.waitFor({ timeout: 10_000 });
    const box = (await narrow.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(420);
    await screenshot(page, 'dev-server-link-420');

    // killed, the task listens on nothing: the link goes
    await drawer.getByRole('button', { name: /^Kill / }).click();
    await expect.poll(() => drawer.getByRole('link', { name: href }).count(), { timeout: 15_000 }).toBe(0);
  });

  it('the settings page lists the hosts commands may reach, refuses one that is not a host, and saves the others', { timeout: 60_000 }, async () => {
    const { page } = await s.start('allowed hosts');
    for (const size of [{ width: 1280, height: 720 }, { width: 420, height: 900 }]) {
      await page.setViewportSize(size);
      await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog');
      const field = dialog.getByLabel('Hosts commands may reach');
      await field.waitFor({ timeout: 15_000 });
      await field.fill('https://packages.example.org/simple');
      await field.blur();
      await dialog.getByRole('alert').filter({ hasText: '"https://packages.example.org/simple" is not a host name' }).waitFor();
      await field.fill(size.width === 1280 ? 'packages.example.org\n*.example.net' : 'packages.example.org');
      await field.blur();
      const want = size.width === 1280 ? ['packages.example.org', '*.example.net'] : ['packages.example.org'];
      await expect
        .poll(async () => ((await (await s.clamp.api('/api/settings')).json()) as { sandbox: { allowHosts: string[] } }).sandbox.allowHosts, { timeout: 10_000 })
        .toEqual(want);
      await field.scrollIntoViewIfNeeded();
      const box = (await field.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      await screenshot(page, `allowed-hosts-${size.width}`);
      await dialog.getByRole('button', { name: 'Close' }).click();
    }
  });
});
