/**
 * Shared helpers of the end-to-end suite: headless Debian Chromium (playwright-core), a page opened
 * on a running Clamp with its token, screenshots in test/artifacts, and the approval bar's answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ROOT } from '../../lib/server/build';
import type { RunningClamp } from '../server/harness';

/** Debian's Chromium; .ci/run installs it. The suite fails (it never skips) when it is missing. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
/**
 * The required flags, and one more: headless Chromium builds its own window furniture too, and every new context
 * preloaded the omnibox popup's WebUI (about 400 chrome:// requests, 4 MB of script compiled in a renderer of its
 * own: about a second of CPU per context, half of a fresh page load's cost), and with that off it still loaded the
 * AI-mode popup's (chrome://omnibox-popup.top-chrome/omnibox_popup_aim.html: another renderer, about 0.5 s of CPU
 * per context). Nothing of the page under test runs in them, so they are turned off.
 */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-features=PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxAimPopup'];
export const ARTIFACTS_DIR = path.join(ROOT, 'test/artifacts');
const VIEWPORT = { width: 1440, height: 900 };

export interface E2EBrowser {
  browser: Browser;
  /** a fresh context (no cookies, no storage) */
  newContext: () => Promise<BrowserContext>;
  close: () => Promise<void>;
}

/**
 * One Chromium per test worker: the e2e files share their worker's modules (vitest.config.ts), so the browser a file
 * launched is still running for the next file, and launching one costs about a second of CPU. A file never shares a
 * context: each gets fresh ones, and closes them when it is done. A browser that died is launched again.
 */
let running: Promise<Browser> | undefined;

async function workerBrowser(): Promise<Browser> {
  const b = running ? await running.catch(() => undefined) : undefined;
  if (b?.isConnected()) return b;
  running = chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  return running;
}

/** Headless Chromium for one test file; each context it makes starts empty (its own cookies and storage). */
export async function launchBrowser(): Promise<E2EBrowser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does.`);
  const browser = await workerBrowser();
  const contexts: BrowserContext[] = [];
  return {
    browser,
    newContext: async () => {
      const ctx = await browser.newContext({ viewport: VIEWPORT });
      contexts.push(ctx);
      return ctx;
    },
    // the file's contexts (and their pages) close; the browser stays for the worker's next file and ends with it
    close: async () => {
      for (const c of contexts) await c.close().catch(() => undefined);
    },
  };
}

export interface ClampPage {
  page: Page;
  /** uncaught errors of the page (each test asserts there are none) */
  errors: string[];
}

/** Open Clamp in a new page of ctx: with the token once (it becomes a cookie), on the given session. */
export async function openClamp(ctx: BrowserContext, clamp: RunningClamp, sessionId?: string): Promise<ClampPage> {
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // callbacks given to page.evaluate may be compiled with a __name helper that the page lacks
  await page.addInitScript('window.__name = (f) => f');
  const q = new URLSearchParams({ token: clamp.token, ...(sessionId ? { s: sessionId } : {}) });
  await page.goto(`${clamp.base}/?${q}`);
  await page.waitForSelector('#chat-input', { timeout: 30_000 });
  return { page, errors };
}

/** Save a full-window screenshot as test/artifacts/<name>.png and return its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Create a session through the API (its own conversation per test). */
export async function createSession(clamp: RunningClamp, title: string, mode?: string): Promise<string> {
  const res = await clamp.api('/api/sessions', { json: { title, ...(mode ? { mode } : {}) } });
  if (res.status !== 201) throw new Error(`POST /api/sessions answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { session: { id: string } }).session.id;
}

/** Type a message in the chat box and send it with Enter. */
export async function send(page: Page, text: string): Promise<void> {
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

/** The approval bar's item for one tool call, once it is shown. */
export async function approvalFor(page: Page, toolCallId: string): Promise<Locator> {
  const bar = page.locator(`[data-approval-for="${toolCallId}"]`);
  await bar.waitFor({ timeout: 30_000 });
  return bar;
}

/** The tool card of one call. */
export function card(page: Page, toolCallId: string): Locator {
  return page.locator(`[data-tool-call-id="${toolCallId}"]`);
}

/** Wait until the turn has ended: no Stop button, the Send button back. */
export async function waitIdle(page: Page, timeout = 30_000): Promise<void> {
  await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout });
}

/** A unique word for markers (file names, process command lines). */
export function unique(prefix: string): string {
  return `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}
