import type { BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startFakeOpenAI, type FakeReply, type FakeRequest, type FakeWindow } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { createSession, launchBrowser, openClamp, type ClampPage, type E2EBrowser } from './browser';

export interface E2ESuite {
  ws: ReturnType<typeof tempWorkspace>;
  fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  clamp: RunningClamp;
  browser: E2EBrowser;
  ctx: BrowserContext;
  /** a new session, opened in a page whose uncaught errors fail the test */
  start: (title: string) => Promise<ClampPage>;
}

/**
 * One test file's world: a temp workspace with the given files, the fake model answering with
 * replies, the real launcher on it (default mode) and a browser. Torn down after the file; every
 * page a test opened with start() is closed after the test, and its uncaught errors fail it.
 * `o.window`: the fake server enforces that context window and reports it as vLLM does; `o.models`: what it lists.
 */
export function e2eSuite(prefix: string, files: Record<string, string>, replies: (req: FakeRequest, index: number) => FakeReply, o: { window?: FakeWindow; models?: string[] } = {}): E2ESuite {
  const s = {} as E2ESuite;
  let open: ClampPage | undefined;
  beforeAll(async () => {
    s.ws = tempWorkspace(prefix);
    for (const [rel, text] of Object.entries(files)) s.ws.write(rel, text);
    s.fake = await startFakeOpenAI(replies, { window: o.window, models: o.models });
    [s.clamp, s.browser] = await Promise.all([
      startClamp({ CLAMP_WORKSPACE: s.ws.workspace, CLAMP_DATA_DIR: s.ws.dataDir, CLAMP_MODEL: o.window ? 'openai-compatible:fake-coder' : 'openai-compatible:fake', CLAMP_BASE_URL: s.fake.url, CLAMP_MODE: 'default' }),
      launchBrowser(),
    ]);
    s.ctx = await s.browser.newContext();
  }, 300_000);
  afterEach(async () => {
    if (!open) return;
    const { page, errors } = open;
    open = undefined;
    await page.close();
    expect(errors, 'uncaught errors on the page').toEqual([]);
  });
  afterAll(async () => {
    await s.browser?.close();
    await s.clamp?.stop(); // stops every background task it started
    await s.fake?.close();
    s.ws?.cleanup();
  });
  s.start = async (title) => {
    const id = await createSession(s.clamp, title);
    open = await openClamp(s.ctx, s.clamp, id);
    return open;
  };
  return s;
}
