/**
 * Screenshot smoke run of the page (not a vitest file; a later e2e suite grows from it).
 * Starts the real launcher with a scripted model on a temp workspace, drives headless Debian Chromium
 * through a conversation (reads, grep, an edit with approval, a reload while it is pending, live command
 * output, a truncated output and its viewer, a denial with a reason, a 10,000-line diff, settings) and
 * saves /tmp/ui-*.png. Run: npx tsx test/e2e/screenshot-smoke.ts  (CLAMP_E2E_PORT to change the port).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const PORT = Number(process.env.CLAMP_E2E_PORT ?? 4310);
const TOKEN = 't';
const OUT = process.env.CLAMP_E2E_OUT ?? '/tmp';
const BASE = `http://127.0.0.1:${PORT}`;

function makeWorkspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-ui-ws-'));
  fs.mkdirSync(path.join(ws, 'src'));
  fs.writeFileSync(path.join(ws, 'README.md'), '# Demo\n\nA tiny project: `src/app.ts` prints a greeting.\n');
  fs.writeFileSync(path.join(ws, 'src/app.ts'), 'export function greet(name: string): string {\n  return `Hello ${name}`;\n}\n\nconsole.log(greet("world"));\n');
  spawnSync('git', ['init', '-q'], { cwd: ws });
  return ws;
}

function script(): unknown {
  const bigFile = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}: ${'x'.repeat(20)}`).join('\n') + '\n';
  return [
    { text: "I'll look around first.", toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }, { name: 'grep', args: { pattern: 'greet', path: 'src' } }, { name: 'list_dir', args: { path: '.' } }, { name: 'todo_write', args: { items: [{ content: 'Read the project', status: 'completed' }, { content: 'Fix the greeting', status: 'in_progress' }, { content: 'Show some output', status: 'pending' }] } }] },
    { text: 'Now the greeting.', toolCalls: [{ name: 'edit_file', args: { path: 'src/app.ts', old_string: 'Hello ${name}', new_string: 'Hello, ${name}!' } }] },
    { text: 'Running a slow command to show live output.', toolCalls: [{ name: 'run_command', args: { command: 'for i in 1 2 3 4 5; do echo "step $i"; sleep 0.6; done && echo finished' } }] },
    { text: 'And a big output.', toolCalls: [{ name: 'run_command', args: { command: 'seq 1 200000' } }] },
    { text: 'A 10,000-line file.', toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: bigFile } }] },
    {
      text: 'Done. Summary:\n\n| file | change |\n| --- | --- |\n| `src/app.ts` | greeting |\n\n```ts\nexport function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n```\n',
    },
    { text: 'Cleaning up.', toolCalls: [{ name: 'run_command', args: { command: 'rm -rf build && git status' } }] },
    { text: 'Understood, I will not delete anything.' },
    { text: 'Making a file.', toolCalls: [{ name: 'run_command', args: { command: 'touch original.txt' } }] },
    { text: 'Starting a watcher in the background.', toolCalls: [{ name: 'run_command', args: { command: 'for i in $(seq 1 300); do echo "tick $i"; sleep 0.3; done', background: true } }] },
    { text: 'The watcher runs in the background.' },
    { error: 'fetch failed: connect ECONNREFUSED 127.0.0.1:1234' },
  ];
}

async function waitForServer(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10 * 60_000; // a first start builds the page
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the launcher exited with ${child.exitCode}`);
    try {
      await fetch(`${BASE}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error('the server did not start');
}

let shot = 0;
async function snap(page: Page, name: string): Promise<void> {
  const file = path.join(OUT, `ui-${String(++shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  console.log('screenshot', file);
}

/** Answer every approval that appears, until the turn ends; screenshot each bar and each running command. */
async function driveTurn(page: Page, label: string, answer: (page: Page) => Promise<void>): Promise<void> {
  let n = 0;
  let idleSince = 0;
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const bar = await page.$('[data-approval-for]');
    const busy = await page.$('button:has-text("Stop")');
    if (bar) {
      idleSince = 0;
      n++;
      await snap(page, `${label}-approval-${n}`);
      await page.waitForTimeout(500); // the bar ignores keys for a moment after it takes focus
      await answer(page);
      const running = await page.waitForSelector('[data-running="true"]', { timeout: 3000 }).catch(() => null);
      if (running) {
        await page.waitForTimeout(1500);
        await snap(page, `${label}-running-${n}`);
      }
      continue;
    }
    if (busy) idleSince = 0;
    else if (!idleSince) idleSince = Date.now();
    else if (Date.now() - idleSince > 1500) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`${label}: the turn did not end`);
}

async function main(): Promise<void> {
  const ws = makeWorkspace();
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-ui-data-'));
  const scriptFile = path.join(data, 'script.json');
  fs.writeFileSync(scriptFile, JSON.stringify(script()));
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs')], {
    cwd: ROOT,
    env: { ...process.env, CLAMP_WORKSPACE: ws, CLAMP_DATA_DIR: data, CLAMP_PORT: String(PORT), CLAMP_TOKEN: TOKEN, CLAMP_MODEL: `scripted:${scriptFile}` },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    await waitForServer(child);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const offsite: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(BASE) && !r.url().startsWith('data:')) offsite.push(r.url());
    });
    page.on('pageerror', (e) => console.log('page error:', e.message));

    const noToken = await fetch(`${BASE}/api/sessions`);
    console.log('without the token /api/sessions answers', noToken.status);

    await page.goto(`${BASE}/?token=${TOKEN}`);
    await page.waitForSelector('#chat-input');
    await snap(page, 'empty');

    await page.fill('#chat-input', 'Fix the greeting in src/app.ts, then show me some output.');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-approval-for]', { timeout: 60_000 });
    await snap(page, 'edit-approval');
    const focused = await page.evaluate(() => !!document.activeElement?.closest('[data-approval-for]'));
    console.log('focus moved to the approval bar:', focused);

    await page.reload();
    await page.waitForSelector('[data-approval-for]', { timeout: 30_000 });
    await snap(page, 'edit-approval-after-reload');

    await driveTurn(page, 'turn1', async (p) => {
      await p.focus('[data-approval-for]');
      await p.keyboard.press('y');
    });
    await snap(page, 'turn1-done');

    // every card with a cut, then the viewer from its note
    const note = await page.$('[role="note"] button');
    if (note) {
      await note.scrollIntoViewIfNeeded();
      await snap(page, 'truncation-note');
      await note.click();
      await page.waitForTimeout(1500);
      await snap(page, 'viewer');
      await page.keyboard.press('Escape');
      const close = page.locator('[role="dialog"] button', { hasText: /close/i }).first();
      if (await close.isVisible().catch(() => false)) await close.click();
    } else console.log('no truncation note with an Open button found');

    // a 10,000-line diff on a card: scroll it and time a frame
    const big = await page.$('[aria-label^="Diff of write_file"]');
    if (big) {
      await big.scrollIntoViewIfNeeded();
      const t0 = Date.now();
      await big.evaluate((el) => el.scrollBy(0, 90_000));
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      console.log(`scrolled the 10,000-line diff in ${Date.now() - t0} ms; DOM nodes: ${await page.evaluate(() => document.getElementsByTagName('*').length)}`);
      await snap(page, 'big-diff');
    }

    await page.fill('#chat-input', 'Clean up the build folder.');
    await page.keyboard.press('Enter');
    await driveTurn(page, 'turn2', async (p) => {
      await p.fill('[aria-label^="Reason for denying"]', 'keep the build folder, I need it');
      await p.keyboard.press('Enter');
    });
    await snap(page, 'turn2-denied');

    // Edit & approve: the edited command is what runs; then a background task for the panel
    await page.fill('#chat-input', 'Make a file, then start a watcher.');
    await page.keyboard.press('Enter');
    let edits = 0;
    await driveTurn(page, 'turn3', async (p) => {
      if (edits++ === 0) {
        await p.focus('[data-approval-for]');
        await p.keyboard.press('e');
        await p.fill('[data-approval-for] textarea', 'touch edited.txt');
        await snap(p, 'turn3-editing');
        await p.keyboard.press('Enter');
      } else {
        // "This session" when the call can be saved as a rule, else approve once
        await p.focus('[data-approval-for]');
        const canSave = await p.locator('[data-approval-for] button', { hasText: 'This session' }).isEnabled();
        await p.keyboard.press(canSave ? 's' : 'y');
      }
    });
    console.log('the edited command ran:', fs.existsSync(path.join(ws, 'edited.txt')) && !fs.existsSync(path.join(ws, 'original.txt')));
    await page.waitForTimeout(2000);
    await snap(page, 'turn3-done-task-panel');

    await page.fill('#chat-input', 'One more thing.');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role="alert"]', { timeout: 60_000 }).catch(() => console.log('no error line appeared'));
    await page.waitForTimeout(1000);
    await snap(page, 'provider-error');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(300);
    await snap(page, 'dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.click('button[aria-label="Settings"]');
    await page.waitForTimeout(800);
    await snap(page, 'settings');
    console.log('requests that left the server:', offsite.length ? offsite : 'none');
  } finally {
    await browser.close();
    child.kill('SIGINT');
  }
}

/** The empty state: a server with no model configured shows how to configure one. */
async function noModel(): Promise<void> {
  const port = PORT + 1;
  const ws = makeWorkspace();
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-ui-data-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CLAMP_WORKSPACE: ws, CLAMP_DATA_DIR: data, CLAMP_PORT: String(port), CLAMP_TOKEN: TOKEN };
  for (const k of ['CLAMP_MODEL', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'CLAMP_API_KEY', 'CLAMP_BASE_URL', 'OPENAI_BASE_URL']) delete env[k];
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      if (child.exitCode !== null) throw new Error(`the launcher exited with ${child.exitCode}`);
      if (await fetch(`${base}/`).then(() => true, () => false)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${base}/?token=${TOKEN}`);
    await page.waitForSelector('text=No model is configured', { timeout: 30_000 });
    await snap(page, 'no-model');
  } finally {
    await browser.close();
    child.kill('SIGINT');
  }
}

main()
  .then(() => (process.exitCode ? undefined : noModel()))
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
