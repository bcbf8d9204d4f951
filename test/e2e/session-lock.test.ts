/**
 * End-to-end: the page and `clamp run --session` on one session. While the run works on it, the page's message is
 * refused with the server's own words (which process holds the session, what to do); once the run has ended a
 * message goes through.
 */
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { startFakeOpenAI, turnPosition as position, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { createSession, launchBrowser, openClamp, screenshot, send, waitIdle, type E2EBrowser } from './browser';

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let browser: E2EBrowser;
let clamp: RunningClamp;
let env: Record<string, string>;


/** "run slowly": six reads of notes.txt, a second each; anything else: one word. */
function reply(req: FakeRequest, index: number): FakeReply {
  const { text, results } = position(req);
  if (!text.includes('run slowly')) return { text: 'Hello from the page.' };
  if (results < 6) return { delayMs: 1000, toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: `call_${index}` }] };
  return { text: 'The run is done.' };
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-e2e-lock-');
  ws.write('notes.txt', 'some notes\n');
  fake = await startFakeOpenAI(reply);
  env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_DIAGNOSTICS: '0' };
  clamp = await startClamp(env);
  browser = await launchBrowser();
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await clamp?.stop();
  await fake?.close();
  ws?.cleanup();
});

describe('one process at a time per session', () => {
  it("the page's message is refused while `clamp run` works on the session, saying which process holds it; after the run one goes through", { timeout: 120_000 }, async () => {
    const id = await createSession(clamp, 'held by a run');
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|INIT_CWD$)/.test(k))) as unknown as NodeJS.ProcessEnv;
    const run = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs'), 'run', '--session', id, 'run slowly'], { cwd: ws.workspace, env: { ...clean, ...env }, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => run.on('exit', (code) => r(code)));
    await expect.poll(() => fake.requests.some((r) => position(r).text === 'run slowly'), { timeout: 30_000 }).toBe(true);

    const ctx = await browser.newContext();
    const { page, errors } = await openClamp(ctx, clamp, id);
    await send(page, 'hello while the run works');
    const alert = page.getByRole('alert').filter({ hasText: 'The turn failed' });
    await alert.waitFor({ timeout: 15_000 });
    const said = await alert.innerText();
    expect(said).toContain(`Session ${id} is running a turn in another Clamp process: clamp run (pid ${run.pid})`);
    expect(said).toContain(`press Ctrl-C in its terminal (or kill ${run.pid})`);
    expect(said).not.toContain('{"error"');
    await screenshot(page, 'session-lock-refused');
    expect(fake.requests.some((r) => position(r).text === 'hello while the run works')).toBe(false);

    expect(await exited).toBe(0);
    await alert.getByRole('button', { name: 'Dismiss the error' }).click();
    await send(page, 'hello after the run');
    await expect.poll(() => page.getByText('Hello from the page.').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await waitIdle(page);
    expect(errors).toEqual([]);
  });
});
