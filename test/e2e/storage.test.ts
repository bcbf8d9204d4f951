/**
 * End-to-end: the settings page's data dir section against the real launcher. Its sizes by kind are the bytes the
 * test wrote; Clean up now removes the aged logs and spills (20 days old by their times) and says what it freed,
 * while today's files and the database stay.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { launchBrowser, screenshot, type E2EBrowser } from './browser';
import type { StorageAnswer } from '../../lib/contract/storage';
import type { ClampMessage } from '../../lib/contract/protocol';
import { openDb } from '../../lib/store/db';
import { saveMessages } from '../../lib/store/messages';

const DAY = 24 * 60 * 60_000;

let ws: ReturnType<typeof tempWorkspace>;
let clamp: RunningClamp;
let browser: E2EBrowser;

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-storage-');
  ws.write('README.md', '# Demo\n');
  const env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', CLAMP_API_KEY: '', CLAMP_BASE_URL: '', OPENAI_BASE_URL: '' };
  [clamp, browser] = await Promise.all([startClamp(env), launchBrowser()]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await clamp?.stop();
  ws?.cleanup();
});

/** Write a file of `bytes` bytes under the data dir, `ageMs` old. */
function put(rel: string, bytes: number, ageMs = 0): string {
  const p = path.join(ws.dataDir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, Buffer.alloc(bytes, 0x62));
  if (ageMs > 0) {
    const t = new Date(Date.now() - ageMs);
    fs.utimesSync(p, t, t);
  }
  return p;
}

/** Bytes of every regular file under a folder of the data dir. */
function bytesUnder(rel: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) n += fs.statSync(p).size;
    }
  };
  walk(path.join(ws.dataDir, rel));
  return n;
}

const storage = async () => (await (await clamp.api('/api/settings/storage')).json()) as StorageAnswer;

describe('the data dir in the settings', () => {
  it('shows the sizes by kind the test wrote, and Clean up now removes the aged logs and spills only', { timeout: 120_000 }, async () => {
    // the clean-up at start has run (it records itself) before the aged files are written
    await expect.poll(async () => (await storage()).lastCleanup !== null, { timeout: 30_000 }).toBe(true);
    const oldLog = put('logs/2026-01-01T00-00-00-000Z-cmd-old.log', 30_000, 20 * DAY);
    const oldSpill = put('spill/2026-01-01T00-00-00-000Z-grep-old.txt', 50_000, 20 * DAY);
    const oldHook = put('logs/hooks/old-hook.stdout.log', 4_000, 15 * DAY);
    const today = [put('logs/cmd-today.log', 11_111), put('spill/read_file-today.txt', 22_222), put('spill/13-days.txt', 1_000, 13 * DAY)];
    put('checkpoints/demo-0123456789abcdef/objects/ab/cdef0123', 7_777);
    put('worktrees/demo-1/src/main.ts', 5_555);
    const logsBefore = bytesUnder('logs');
    const spillsBefore = bytesUnder('spill');
    expect(spillsBefore).toBe(50_000 + 22_222 + 1_000);

    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${clamp.base}/?token=${clamp.token}`);
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const section = page.locator('[data-settings-storage]');
    await section.locator('[data-storage-table]').waitFor({ timeout: 30_000 });
    const shown = async (kind: string) => Number(await section.locator(`[data-storage-kind="${kind}"]`).getAttribute('data-bytes'));
    expect(await shown('logs')).toBe(logsBefore);
    expect(await shown('spills')).toBe(spillsBefore);
    expect(await shown('checkpoints')).toBe(bytesUnder('checkpoints'));
    expect(await shown('worktrees')).toBe(5_555);
    expect(await shown('database')).toBeGreaterThan(0);
    const kinds = await Promise.all(['logs', 'spills', 'checkpoints', 'database', 'worktrees', 'other'].map(shown));
    expect(await shown('total')).toBe(kinds.reduce((a, b) => a + b, 0));
    await expect(section.locator('[data-storage-kind="spills"]').innerText()).resolves.toMatch(/Spilled outputs\s+3 files\s+71\.5 KB/);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'storage-1-before');

    await section.getByRole('button', { name: 'Clean up now' }).click();
    const result = section.locator('[data-cleanup-result]');
    await result.waitFor({ timeout: 60_000 });
    await expect(result.innerText()).resolves.toContain('3 log and spill file(s) removed (82.0 KB)');
    for (const p of [oldLog, oldSpill, oldHook]) expect(fs.existsSync(p), p).toBe(false);
    for (const p of today) expect(fs.existsSync(p), p).toBe(true);
    expect(fs.existsSync(path.join(ws.dataDir, 'clamp.db'))).toBe(true);
    // the table shows what is left, and the database still answers
    await expect.poll(() => shown('spills')).toBe(22_222 + 1_000);
    expect(await shown('logs')).toBe(logsBefore - 34_000);
    expect((await storage()).kinds.find((k) => k.kind === 'spills')?.bytes).toBe(23_222);
    const sessions = await clamp.api('/api/sessions');
    expect(sessions.status).toBe(200);
    // a removed spill, asked for by the page's viewer, says what happened to it
    const viewer = await clamp.api(`/api/files?path=${encodeURIComponent(oldSpill)}`);
    expect(viewer.status).toBe(404);
    expect(await viewer.text()).toMatch(/This output was removed by retention on \d{4}-\d\d-\d\d \(older than 14 days\); rerun the command to see it again\./);
    await screenshot(page, 'storage-2-cleaned');
    await ctx.close();
  });

  it('deleting a session removes the logs and spills only it named', { timeout: 60_000 }, async () => {
    const make = async (title: string) => ((await (await clamp.api('/api/sessions', { method: 'POST', json: { title } })).json()) as { session: { id: string } }).session.id;
    const [gone, kept] = [await make('to delete'), await make('kept')];
    const own = put('spill/2026-12-01-grep-own.txt', 3_000);
    const log = put('logs/2026-12-01-cmd-own.stdout.log', 2_000);
    const shared = put('spill/2026-12-01-read_file-shared.txt', 1_000);
    const say = (id: string, text: string) => ({ id, role: 'assistant', parts: [{ type: 'text', text }] }) as unknown as ClampMessage;
    // the conversations as results leave them: paths in the exit clamp's notes (written beside the running server)
    const db = openDb(ws.dataDir);
    saveMessages(db, gone, [say('a1', `[Output cut. Full text: ${own} — read it with read_file.] Full stdout: ${log} — read it.`), say('a2', `Full text: ${shared}.`)]);
    saveMessages(db, kept, [say('b1', `Full text: ${shared}.`)]);
    const del = await clamp.api(`/api/sessions/${gone}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect([fs.existsSync(own), fs.existsSync(log), fs.existsSync(shared)]).toEqual([false, false, true]);
    const left = (await (await clamp.api('/api/sessions')).json()) as { sessions: { id: string }[] };
    expect(left.sessions.map((x) => x.id)).toContain(kept);
  });
});
