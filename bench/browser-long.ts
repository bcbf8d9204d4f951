/**
 * Part of the browser benchmark: a stored session of 1,000 tool calls against one of 10, each opened
 * in Chromium from a fresh navigation and scrolled. The sessions are written straight into the store
 * (test/e2e/seed.ts), so no model runs; the page reads them from GET /api/sessions/[id] as it would
 * any session.
 */
import os from 'node:os';
import type { Page } from 'playwright-core';
import { CHAT_SCROLLER, inViewAt, seedCallId, seedSession } from '../test/e2e/seed';
import { type Table, type Target, fmtMs, fmtRatio, median } from './lib';

export const LONG_SESSION_CALLS = [10, 1000] as const;
const SCROLLER = CHAT_SCROLLER;
/** Open within this factor of the 10-card session and scroll jumps within this p95: "as smoothly as one of 10". */
const OPEN_RATIO_MAX = 2;
const SCROLL_P95_MAX_MS = 50;

export interface SeededSessions {
  ids: Record<number, string>;
}

/** Write the 10- and 1,000-call sessions into the data dir's store (before or while the server runs). */
export function seedLongSessions(dataDir: string, workspace: string): SeededSessions {
  const ids: Record<number, string> = {};
  for (const n of LONG_SESSION_CALLS) ids[n] = seedSession(dataDir, workspace, n, `bench ${n} calls`);
  return { ids };
}

/** Navigate to a session and return ms from navigation start to the frame in which its last card is on screen. */
async function openMs(page: Page, base: string, id: string, calls: number): Promise<number> {
  await page.goto(`${base}/?s=${id}`, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    inViewAt,
    [`[data-tool-call-id="${seedCallId(calls - 1)}"]`, SCROLLER] as const,
    { polling: 'raf', timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

/**
 * Where the untimed jumps go, as fortieths of the list's height (between the timed positions): the
 * first jumps on a freshly opened page pay one-time costs (the compositor's first tiles of the
 * list, code run for the first time) that later jumps do not. The first is timed on its own and
 * reported as such ("first jump after opening"), not mixed into the p50/p95 of scrolling.
 */
const WARM_JUMPS_AT = [0.5, 20.5, 10.5];

/** After WARM_JUMPS_AT, 40 jumps across the chat's scroll box, each timed to the second frame after; p50/p95 ms, the first jump's ms, and the cards in the DOM. */
async function scrollJumps(page: Page): Promise<{ p50: number; p95: number; firstMs: number; mountedCards: number }> {
  return page.evaluate(async ([sel, warm]) => {
    const el = document.querySelector<HTMLElement>(sel);
    if (!el) throw new Error(`no ${sel}`);
    const frames = () => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    const jump = async (at: number) => {
      const t0 = performance.now();
      el.scrollTop = (el.scrollHeight * at) / 40;
      await frames();
      return performance.now() - t0;
    };
    const warmMs = [];
    for (const at of warm) warmMs.push(await jump(at));
    const times: number[] = [];
    let mounted = 0;
    for (let i = 0; i < 40; i++) {
      times.push(await jump((i * 37) % 40));
      mounted = Math.max(mounted, document.querySelectorAll('[data-tool-call-id]').length);
    }
    times.sort((a, b) => a - b);
    return { p50: times[20], p95: times[38], firstMs: warmMs[0], mountedCards: mounted };
  }, [SCROLLER, WARM_JUMPS_AT] as const);
}

/** Open and scroll both sessions, alternating which goes first, `repeats` rounds after a warm-up. */
export async function longSessionTable(page: Page, base: string, seeded: SeededSessions, repeats: number, log: (l: string) => void): Promise<{ table: Table; targets: Target[]; notes: string[]; data: unknown }> {
  log(`  sessions of ${LONG_SESSION_CALLS.join(' and ')} tool calls: open and scroll, ${repeats} rounds …`);
  const open: Record<number, number[]> = {};
  const scroll: Record<number, { p50: number[]; p95: number[]; first: number[]; mounted: number }> = {};
  for (const n of LONG_SESSION_CALLS) {
    open[n] = [];
    scroll[n] = { p50: [], p95: [], first: [], mounted: 0 };
  }
  for (let r = 0; r < repeats + 1; r++) {
    const order = r % 2 ? [...LONG_SESSION_CALLS].reverse() : [...LONG_SESSION_CALLS];
    for (const n of order) {
      const ms = await openMs(page, base, seeded.ids[n], n);
      const j = await scrollJumps(page);
      if (r === 0) continue; // warm-up: the first load compiles the page's code
      open[n].push(ms);
      scroll[n].p50.push(j.p50);
      scroll[n].p95.push(j.p95);
      scroll[n].first.push(j.firstMs);
      scroll[n].mounted = Math.max(scroll[n].mounted, j.mountedCards);
    }
  }
  const [few, many] = LONG_SESSION_CALLS;
  const openRatio = median(open[many]) / median(open[few]);
  const p95Many = median(scroll[many].p95);
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const row = (n: number) => [
    `${n.toLocaleString('en-US')} tool calls`,
    fmtMs(median(open[n])),
    fmtMs(median(scroll[n].p50)),
    fmtMs(median(scroll[n].p95)),
    fmtMs(median(scroll[n].first)),
    String(scroll[n].mounted),
    fmtRatio(median(open[n]) / median(open[few])),
  ];
  return {
    table: {
      title: `A stored session of ${few} vs ${many.toLocaleString('en-US')} tool calls: median of ${repeats} alternating rounds after a warm-up (load average ${load})`,
      head: ['session', 'open → last card on screen', 'scroll jump p50', 'scroll jump p95', 'first jump after opening', 'most cards in the DOM', `open ÷ ${few} calls`],
      rows: LONG_SESSION_CALLS.map(row),
    },
    targets: [
      { what: `a ${many.toLocaleString('en-US')}-call session opens`, target: `≤ ${OPEN_RATIO_MAX}× the ${few}-call one`, measured: fmtRatio(openRatio), met: openRatio <= OPEN_RATIO_MAX },
      { what: `a ${many.toLocaleString('en-US')}-call session scrolls`, target: `jump p95 ≤ ${SCROLL_P95_MAX_MS} ms`, measured: fmtMs(p95Many), met: p95Many <= SCROLL_P95_MAX_MS },
    ],
    notes: [
      `Long sessions: each written into the store (${LONG_SESSION_CALLS.join(' and ')} finished read_file, grep and run_command calls, 10 to an assistant message), opened by a fresh navigation to /?s=<id>; "open" runs from navigation start to the animation frame in which the last card is inside the chat's scroll box. Scroll: 40 jumps across the chat list, each timed to the second frame after, after ${WARM_JUMPS_AT.length} untimed ones; the first of those, from the bottom to the top, is the "first jump after opening" column. On a freshly opened page the first jumps cost more (the compositor rasterises its first tiles away from the bottom and the page runs its scroll code for the first time; later jumps do not pay this), so they are reported on their own rather than mixed into the p95 of scrolling. Load average ${load} when the table was taken.`,
    ],
    data: { open, scroll },
  };
}
