import fs from 'node:fs';
import path from 'node:path';
import { BUDGET } from '../contract/budget';
import type { Db } from './db';
import { getSetting, setSetting } from './settings';
import { recordRemoved, type RemovedEntry } from './retention-journal';

/**
 * Retention of command logs (logs/, with logs/hooks and logs/mcp) and spilled outputs (spill/): files older than
 * the period are removed, then the oldest until both together fit the size budget. A file a run still writes
 * (isLive) is never removed, nor, by the budget, one written to within RETENTION_RECENT_MS. The clock is the
 * caller's (`now`), and a file's age is its modification time.
 */

export type OutputKind = 'logs' | 'spills';

/** The folders retention sweeps, under the data dir. */
export const OUTPUT_DIRS: Readonly<Record<OutputKind, string>> = { logs: 'logs', spills: 'spill' };

export interface OutputFile {
  path: string;
  kind: OutputKind;
  bytes: number;
  mtimeMs: number;
  /** device and inode: a hard link (a combined log while one stream prints) is counted once */
  inode: string;
}

/** The person's retention settings (stored as a setting; the budget table's defaults otherwise). */
export interface RetentionSettings {
  maxAgeMs: number;
  outputsMaxBytes: number;
}

export interface SweepOptions {
  settings: RetentionSettings;
  now: number;
  /** a file a running command or task still writes */
  isLive: (p: string) => boolean;
  recentMs?: number;
}

export interface SweepReport {
  removedFiles: number;
  freedBytes: number;
  /** files kept because a run still writes them */
  skippedLive: number;
  /** what logs and spills hold after the sweep */
  keptBytes: number;
}

const SETTINGS_KEY = 'retention';

/** The saved retention settings over the budget table's defaults. */
export function getRetentionSettings(db: Db): RetentionSettings {
  return { maxAgeMs: BUDGET.RETENTION_MAX_AGE_MS, outputsMaxBytes: BUDGET.RETENTION_OUTPUTS_MAX_BYTES, ...(getSetting<Partial<RetentionSettings>>(db, SETTINGS_KEY) ?? {}) };
}

/** Merge a change into the saved retention settings; returns the result. */
export function setRetentionSettings(db: Db, patch: Partial<RetentionSettings>): RetentionSettings {
  const next = { ...getRetentionSettings(db) };
  if (patch.maxAgeMs !== undefined) next.maxAgeMs = patch.maxAgeMs;
  if (patch.outputsMaxBytes !== undefined) next.outputsMaxBytes = patch.outputsMaxBytes;
  setSetting(db, SETTINGS_KEY, next);
  return next;
}

/** Every regular file under a folder (links not followed), depth first; a folder that cannot be read is skipped. */
export function walkFiles(dir: string, visit: (p: string, st: fs.Stats) => void): void {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of names) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) walkFiles(p, visit);
    else if (d.isFile()) {
      try {
        visit(p, fs.lstatSync(p));
      } catch {
        // gone since the listing
      }
    }
  }
}

/** The logs and spills in the data dir. */
export function listOutputs(dataDir: string): OutputFile[] {
  const out: OutputFile[] = [];
  for (const kind of Object.keys(OUTPUT_DIRS) as OutputKind[]) {
    walkFiles(path.join(dataDir, OUTPUT_DIRS[kind]), (p, st) => out.push({ path: p, kind, bytes: st.size, mtimeMs: st.mtimeMs, inode: `${st.dev}:${st.ino}` }));
  }
  return out;
}

/** Bytes the files hold, each inode once. */
function uniqueBytes(files: readonly OutputFile[]): number {
  const seen = new Map<string, number>();
  for (const f of files) seen.set(f.inode, f.bytes);
  let n = 0;
  for (const b of seen.values()) n += b;
  return n;
}

/** Remove one file; false when it could not be (it is then kept and counted). */
function unlink(p: string): boolean {
  try {
    fs.rmSync(p, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Remove logs and spills past the period, then the oldest past the size budget, skipping live files. Each removal
 * is recorded in the journal (retention-journal.ts) with its reason. Never throws.
 */
export function sweepOutputs(dataDir: string, o: SweepOptions): SweepReport {
  const files = listOutputs(dataDir).sort((a, b) => a.mtimeMs - b.mtimeMs);
  const before = uniqueBytes(files);
  const recentMs = o.recentMs ?? BUDGET.RETENTION_RECENT_MS;
  const removed: RemovedEntry[] = [];
  const kept: OutputFile[] = [];
  let skippedLive = 0;
  for (const f of files) {
    const live = o.isLive(f.path);
    if (live) skippedLive++;
    if (!live && f.mtimeMs < o.now - o.settings.maxAgeMs && unlink(f.path)) removed.push({ path: f.path, at: o.now, why: { reason: 'age', maxAgeMs: o.settings.maxAgeMs } });
    else kept.push(f);
  }
  // then the oldest first while over the budget; links of one file count once, so its bytes go with its last name
  const links = new Map<string, number>();
  for (const f of kept) links.set(f.inode, (links.get(f.inode) ?? 0) + 1);
  let total = uniqueBytes(kept);
  const survivors: OutputFile[] = [];
  for (const f of kept) {
    const mayGo = total > o.settings.outputsMaxBytes && !o.isLive(f.path) && f.mtimeMs < o.now - recentMs;
    if (mayGo && unlink(f.path)) {
      removed.push({ path: f.path, at: o.now, why: { reason: 'budget', maxBytes: o.settings.outputsMaxBytes } });
      const left = (links.get(f.inode) ?? 1) - 1;
      links.set(f.inode, left);
      if (left === 0) total -= f.bytes;
    } else survivors.push(f);
  }
  recordRemoved(dataDir, removed);
  const keptBytes = uniqueBytes(survivors);
  return { removedFiles: removed.length, freedBytes: before - keptBytes, skippedLive, keptBytes };
}

/** Remove the given logs and spills now (a deleted session's), skipping live ones; answers how many files and bytes went. */
export function removeOutputs(dataDir: string, paths: Iterable<string>, isLive: (p: string) => boolean): { removedFiles: number; freedBytes: number } {
  let removedFiles = 0;
  let freedBytes = 0;
  for (const p of paths) {
    if (isLive(p)) continue;
    let size: number;
    try {
      size = fs.lstatSync(p).size;
    } catch {
      continue;
    }
    if (unlink(p)) {
      removedFiles++;
      freedBytes += size;
    }
  }
  return { removedFiles, freedBytes };
}
