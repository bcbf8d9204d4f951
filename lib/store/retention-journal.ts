import fs from 'node:fs';
import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { formatBytes, formatDuration } from '../contract/text';

const DAY_MS = 24 * 60 * 60_000;

/** A retention period in words: "14 days", "1 day", else hours and minutes. */
export function periodText(ms: number): string {
  const days = ms / DAY_MS;
  if (Number.isInteger(days) && days > 0) return days === 1 ? '1 day' : `${days} days`;
  return formatDuration(ms, { wholeSeconds: true });
}

/**
 * The record of what retention removed (the data dir's retention/removed.jsonl, one JSON line a file), so a result
 * whose spill or log is gone says why when the model or the page asks for it. Trimmed to its newer half past
 * RETENTION_JOURNAL_MAX_BYTES: the oldest removals are forgotten first.
 */

/** Why retention removed a file: it was older than the period, or logs and spills were over their size budget. */
export type RemovedWhy = { reason: 'age'; maxAgeMs: number } | { reason: 'budget'; maxBytes: number };

export interface RemovedEntry {
  path: string;
  /** when it was removed (ms since the epoch, the retention's clock) */
  at: number;
  why: RemovedWhy;
}

/** The journal's file. */
export function journalPath(dataDir: string): string {
  return path.join(dataDir, 'retention', 'removed.jsonl');
}

/** Append removals; never throws (a journal that cannot be written only loses the explanation, never data). */
export function recordRemoved(dataDir: string, entries: readonly RemovedEntry[], maxBytes: number = BUDGET.RETENTION_JOURNAL_MAX_BYTES): void {
  if (entries.length === 0) return;
  const file = journalPath(dataDir);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.appendFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 });
    if (fs.statSync(file).size > maxBytes) trimJournal(file, maxBytes);
  } catch {
    // the explanation is a courtesy
  }
}

/** Keep the newer lines that fit in half of maxBytes (written to a new file, then renamed over the old). */
function trimJournal(file: string, maxBytes: number): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    bytes += Buffer.byteLength(lines[i]!) + 1;
    if (bytes > maxBytes / 2) break;
    kept.push(lines[i]!);
  }
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, kept.reverse().join('\n') + (kept.length ? '\n' : ''), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The journal's entry for an absolute path retention removed, or undefined (never removed, or forgotten). Never throws. */
export function removedEntry(dataDir: string, absPath: string): RemovedEntry | undefined {
  let text: string;
  try {
    text = fs.readFileSync(journalPath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  const needle = JSON.stringify(absPath);
  let found: RemovedEntry | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes(needle)) continue;
    try {
      const e = JSON.parse(line) as RemovedEntry;
      if (e.path === absPath) found = e;
    } catch {
      // a torn line
    }
  }
  return found;
}

/** "This output was removed by retention on 2026-12-02 (older than 14 days); rerun the command to see it again." */
export function removedText(e: RemovedEntry): string {
  const day = new Date(e.at).toISOString().slice(0, 10);
  const why = e.why.reason === 'age' ? `older than ${periodText(e.why.maxAgeMs)}` : `logs and spills were over their ${formatBytes(e.why.maxBytes)} budget`;
  return `This output was removed by retention on ${day} (${why}); rerun the command to see it again.`;
}

/** removedText for a path retention removed, else undefined. */
export function removedNote(dataDir: string, absPath: string): string | undefined {
  const e = removedEntry(dataDir, absPath);
  return e ? removedText(e) : undefined;
}
