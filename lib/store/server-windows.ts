import fs from 'node:fs';
import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { writePrivateFile } from './secrets';

/** What a server said of its context window (null: it said nothing), and when it was asked (ms since the epoch). */
export interface RememberedWindow {
  at: number;
  value: { tokens: number; detail: string } | null;
}

export const SERVER_WINDOWS_FILE_NAME = 'server-windows.json';

function valid(e: unknown): e is RememberedWindow {
  const r = e as RememberedWindow | null;
  if (!r || typeof r !== 'object' || typeof r.at !== 'number' || !Number.isFinite(r.at)) return false;
  if (r.value === null) return true;
  return typeof r.value === 'object' && Number.isInteger(r.value.tokens) && r.value.tokens > 0 && typeof r.value.detail === 'string';
}

/** The windows servers reported, by `provider baseUrl model`, as other Clamp processes remembered them. Never throws: a missing or broken file is empty. */
export function readServerWindows(dataDir: string): Record<string, RememberedWindow> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(dataDir, SERVER_WINDOWS_FILE_NAME), 'utf8'));
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter(([, e]) => valid(e))) as Record<string, RememberedWindow>;
}

/**
 * Remember what a server said, for the next process (atomically; entries older than
 * WINDOW_DISCOVERY_CACHE_MS are dropped). Never throws: a data dir that cannot be written only means
 * the next process asks again.
 */
export function rememberServerWindow(dataDir: string, key: string, entry: RememberedWindow): void {
  try {
    const kept = Object.entries(readServerWindows(dataDir)).filter(([k, e]) => k !== key && Math.abs(entry.at - e.at) < BUDGET.WINDOW_DISCOVERY_CACHE_MS);
    writePrivateFile(path.join(dataDir, SERVER_WINDOWS_FILE_NAME), `${JSON.stringify(Object.fromEntries([...kept, [key, entry]]), null, 2)}\n`);
  } catch {
    // the answer is still remembered in this process
  }
}
