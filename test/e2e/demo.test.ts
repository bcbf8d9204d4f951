/**
 * End-to-end: `npm run demo` as a new user runs it (really through npm, its own folder in a temp dir),
 * driven in headless Chromium through every stage of the script, with a screenshot of each: the reads and
 * the grep, the edit waiting for approval, the long output cut with its note and the viewer, the
 * background task live in the panel. The checkout is never touched, and no command outlives the demo.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { buildOnce, type RunningClamp } from '../server/harness';
import { approvalFor, card, launchBrowser, openClamp, screenshot, send, waitIdle, type E2EBrowser } from './browser';

let demoDir: string;
let npm: ChildProcess;
let out = '';
let browser: E2EBrowser;
let clamp: Pick<RunningClamp, 'base' | 'token'>;
const checkoutSlug = fs.readFileSync(path.join(ROOT, 'demo/workspace/src/slug.js'), 'utf8');

/** Every file under the checkout's demo/ folder with its content: the demo must leave it as it was. */
function demoFolder(dir = path.join(ROOT, 'demo')): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, demoFolder(p));
    else out[path.relative(ROOT, p)] = fs.readFileSync(p, 'utf8');
  }
  return out;
}
const checkoutDemo = demoFolder();

/** Processes whose working directory is inside the demo's workspace (the commands it started). */
function demoProcesses(): number[] {
  const ws = path.join(demoDir, 'workspace');
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readlinkSync(`/proc/${d}/cwd`).startsWith(ws);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  await buildOnce();
  demoDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-e2e-demo-')));
  npm = spawn('npm', ['run', 'demo'], {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CLAMP_DEMO_DIR: demoDir, CLAMP_PORT: '0', CLAMP_TOKEN: 'not-the-demo-token' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  npm.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const [m] = await Promise.all([
    new Promise<RegExpExecArray>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the demo did not start in 120 s:\n${out}`)), 120_000);
      const check = () => {
        const found = /Open (http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(out);
        if (found) {
          clearTimeout(t);
          resolve(found);
        }
      };
      npm.stdout!.on('data', check);
      npm.once('exit', (code) => reject(new Error(`the demo exited with ${code}:\n${out}`)));
    }),
    launchBrowser().then((b) => (browser = b)),
  ]);
  clamp = { base: m[1], token: m[2] };
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (npm && npm.exitCode === null) {
    npm.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 3000));
  }
  for (const pid of demoDir ? demoProcesses() : []) process.kill(pid, 'SIGKILL');
  if (demoDir) fs.rmSync(demoDir, { recursive: true, force: true });
});

describe('npm run demo', () => {
  it('prints its own token, folder and model, and plays the whole script in the browser', { timeout: 240_000 }, async () => {
    // its own token (not one from the environment), its own folder, the scripted model named as such
    expect(clamp.token).not.toBe('not-the-demo-token');
    expect(clamp.token.length).toBeGreaterThanOrEqual(24);
    expect(out).toContain(`Clamp is working in ${path.join(demoDir, 'workspace')}`);
    expect(out).toContain(`Data: ${path.join(demoDir, 'data')} · mode: default`);
    expect(out).toContain('Model: scripted demo · script.json (not a real model)');
    expect(fs.readFileSync(path.join(demoDir, 'workspace/src/slug.js'), 'utf8')).toBe(checkoutSlug);

    const ctx = await browser.newContext();
    const consoleErrors: string[] = [];
    const { page, errors } = await openClamp(ctx, clamp as RunningClamp);
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await expect(page.getByRole('banner').innerText()).resolves.toMatch(/scripted demo \(not a real model\)/);
    await screenshot(page, 'demo-0-start');

    // 1. the reads and the grep run without asking; the edit waits for approval, with its diff
    await send(page, 'Show me what Clamp does.');
    const edit = await approvalFor(page, 'demo-edit');
    for (const id of ['demo-read', 'demo-grep']) await expect.poll(() => card(page, id).getAttribute('data-state'), { timeout: 30_000 }).toBe('output-available');
    await expect(card(page, 'demo-grep').innerText()).resolves.toMatch(/grep\s*slugify/);
    // open the grep's card: every use of slugify, with its line
    await card(page, 'demo-grep').locator('button').first().click();
    await card(page, 'demo-grep').getByText(/src\/posts\.js/).first().waitFor({ timeout: 10_000 });
    await card(page, 'demo-read').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-1-read-grep');
    await expect(edit.innerText()).resolves.toMatch(/Approval needed\s*edit_file/);
    // said once, and no e key where there is no Edit button
    await expect(page.locator('section[aria-label="Pending approvals"]').innerText()).resolves.not.toMatch(/needs approval/);
    await expect(page.locator('section[aria-label="Pending approvals"]').innerText()).resolves.not.toMatch(/\be\s*edit\b/);
    const diff = edit.locator('[aria-label^="Proposed change of edit_file"]');
    await expect(diff.innerText()).resolves.toContain(".replace(/^-+|-+$/g, '');");
    await screenshot(page, 'demo-2-edit-waiting');
    expect(fs.readFileSync(path.join(demoDir, 'workspace/src/slug.js'), 'utf8')).toBe(checkoutSlug);
    await edit.getByRole('button', { name: /Approve once/ }).click();

    // 2. the tests: a command (it asks too) whose long output is cut with the note, and the viewer
    const test = await approvalFor(page, 'demo-test');
    expect(fs.readFileSync(path.join(demoDir, 'workspace/src/slug.js'), 'utf8')).toContain(".replace(/^-+|-+$/g, '');");
    await expect(test.locator('pre').innerText()).resolves.toBe('node test/run.js');
    // a command has an Edit button, so its e key is listed
    await expect(page.locator('section[aria-label="Pending approvals"]').innerText()).resolves.toMatch(/\be\s*edit\b/);
    await test.getByRole('button', { name: /Approve once/ }).click();
    const note = card(page, 'demo-test').getByRole('note').first();
    await note.waitFor({ timeout: 30_000 });
    await expect(note.innerText()).resolves.toMatch(/model saw [\d.]+ KB of [\d.]+ KB · [\d,]+ lines omitted/);
    await expect(card(page, 'demo-test').innerText()).resolves.toMatch(/# 1503 tests, 1503 passed, 0 failed/);
    await note.scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-3-long-output-note');
    await note.getByRole('button', { name: 'Open full output' }).click();
    const viewer = page.getByRole('dialog');
    await viewer.getByText(/^lines 1–/).waitFor({ timeout: 20_000 });
    // the script's next turn waits 4 s, so (unless the machine is very slow) it asks while the viewer is open
    const askedBefore = (await page.locator('[data-approval-for="demo-server"]').count()) > 0;
    if (askedBefore) console.warn('demo test: the next call asked before the viewer opened; the focus race was not exercised');
    await viewer.getByText('ok 1 - slugify("Hello, World!") is "hello-world"').waitFor({ timeout: 20_000 });
    // the next call asks while the viewer is open: it must not pull the cursor out of it (Esc there denied it)
    const server = page.locator('[data-approval-for="demo-server"]');
    await server.waitFor({ state: 'attached', timeout: 30_000 });
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]')), { timeout: 5000 }).toBe(true);
    await screenshot(page, 'demo-4-viewer');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    await expect(server.count()).resolves.toBe(1);

    // 3. the dev server as a background task, live in the panel
    await server.getByRole('button', { name: /Approve once/ }).click();
    await page.getByText('That is the tour').waitFor({ timeout: 30_000 });
    await waitIdle(page);
    const panel = page.locator('section[aria-labelledby="task-panel-title"]');
    await panel.getByText(/dev server listening on http:\/\/127\.0\.0\.1:\d+/).waitFor({ timeout: 20_000 });
    await panel.getByText(/GET \/2026\/hello-world\/ 200/).first().waitFor({ timeout: 20_000 });
    await expect(panel.innerText()).resolves.toMatch(/1 running · 1 in all/);
    expect(demoProcesses().length).toBeGreaterThan(0);
    await screenshot(page, 'demo-5-background-task');
    await page.getByText('That is the tour').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-6-end');

    expect(errors, 'uncaught errors on the page').toEqual([]);
    expect(consoleErrors, 'console errors (a missing favicon among them)').toEqual([]);
    await ctx.close();

    // the checkout is untouched; stopping the demo stops its dev server
    expect(demoFolder()).toEqual(checkoutDemo);
    const launcher = Number(fs.readFileSync(path.join(demoDir, 'demo.pid'), 'utf8'));
    const exited = new Promise((r) => npm.once('exit', r));
    npm.kill('SIGTERM');
    await exited;
    await expect.poll(() => demoProcesses(), { timeout: 10_000 }).toEqual([]);
    await expect.poll(() => alive(launcher), { timeout: 10_000 }).toBe(false);
  });

  it('a second start replaces the demo folder, and a folder it did not make is left alone', { timeout: 120_000 }, async () => {
    // the first run edited slug.js; a start puts back a fresh copy (then fails here on a taken port)
    expect(fs.readFileSync(path.join(demoDir, 'workspace/src/slug.js'), 'utf8')).not.toBe(checkoutSlug);
    fs.writeFileSync(path.join(demoDir, 'workspace/leftover.txt'), 'from the last run\n');
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const again = spawnSync(process.execPath, [path.join(ROOT, 'demo/run.mjs')], { cwd: ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CLAMP_DEMO_DIR: demoDir, CLAMP_PORT: String(port) }, encoding: 'utf8', timeout: 100_000 });
      expect(again.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(fs.readFileSync(path.join(demoDir, 'workspace/src/slug.js'), 'utf8')).toBe(checkoutSlug);
      expect(fs.existsSync(path.join(demoDir, 'workspace/leftover.txt'))).toBe(false);
    } finally {
      taken.close();
    }

    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-e2e-not-demo-'));
    try {
      fs.writeFileSync(path.join(other, 'precious.txt'), 'keep\n');
      const r = spawnSync(process.execPath, [path.join(ROOT, 'demo/run.mjs')], { cwd: ROOT, env: { ...process.env, CLAMP_DEMO_DIR: other }, encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`clamp demo: ${other} exists and was not made by the demo, so it is left alone. Remove it, or set CLAMP_DEMO_DIR to another folder.\n`);
      expect(fs.readFileSync(path.join(other, 'precious.txt'), 'utf8')).toBe('keep\n');
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
