import { BUDGET } from '../contract/budget';
import type { CleanupReport, RetentionBody, StorageAnswer } from '../contract/storage';
import { isLiveLog } from '../exec/live-logs';
import { collectShadows } from '../checkpoints/gc';
import { openDb } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { getRetentionSettings, setRetentionSettings, sweepOutputs } from '../store/retention';
import { storageSizes } from '../store/storage-size';
import type { ServerConfig } from './http';

/**
 * The data dir's retention: logs and spills past the period or the size budget removed (never a file a command or
 * task of this process still writes), checkpoint repositories collected (deleted sessions' refs dropped, what is
 * unreachable past the period pruned). Runs at the server's start, then every RETENTION_SWEEP_INTERVAL_MS, at the
 * end of a headless run when one is due, and when the settings page's "Clean up now" asks. The clock is injectable.
 */

const LAST_KEY = 'retention-last';
/** when a process that does not stay (a headless run) first found the data dir never cleaned up */
const FIRST_SEEN_KEY = 'retention-first-seen';
const DAY_MS = 24 * 60 * 60_000;
const MIB = 1024 * 1024;
const RUNNING = Symbol.for('clamp.retention.running');

export interface RetentionRunOptions {
  now?: number;
  /** collect every checkpoint repository now, not only those due */
  force?: boolean;
}

async function sweep(dataDir: string, o: RetentionRunOptions): Promise<CleanupReport> {
  const now = o.now ?? Date.now();
  const db = openDb(dataDir);
  const settings = getRetentionSettings(db);
  const outputs = sweepOutputs(dataDir, { settings, now, isLive: isLiveLog });
  const liveSessions = new Set((db.prepare('SELECT id FROM sessions').all() as { id: string }[]).map((r) => r.id));
  const checkpoints = await collectShadows(dataDir, { liveSessions, pruneBefore: now - settings.maxAgeMs, now, force: o.force });
  const report: CleanupReport = { at: now, removedFiles: outputs.removedFiles, freedBytes: outputs.freedBytes, skippedLive: outputs.skippedLive, checkpoints };
  setSetting(db, LAST_KEY, report);
  return report;
}

/** One clean-up of the data dir; a second call while one runs waits for it and answers its report. Never throws for a file or repository that fails. */
export function runRetention(dataDir: string, o: RetentionRunOptions = {}): Promise<CleanupReport> {
  const g = globalThis as unknown as Record<symbol, Map<string, Promise<CleanupReport>> | undefined>;
  const running = (g[RUNNING] ??= new Map());
  const current = running.get(dataDir);
  if (current) return current;
  const next = sweep(dataDir, o).finally(() => running.delete(dataDir));
  running.set(dataDir, next);
  return next;
}

/** Clean up now and then every RETENTION_SWEEP_INTERVAL_MS (the timer does not keep the process alive); returns the stop. */
export function startRetention(dataDir: string, clock: () => number = Date.now, intervalMs: number = BUDGET.RETENTION_SWEEP_INTERVAL_MS): () => void {
  const tick = () => void runRetention(dataDir, { now: clock() }).catch((err: unknown) => process.stderr.write(`clamp: clean-up of the data dir failed: ${err instanceof Error ? err.message : String(err)}\n`));
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The clean-up of a process that does not stay (`clamp run`, called in loops by scripts): it runs when the latest
 * one, by any process, is at least `intervalMs` old, so a loop of runs cleans up about as often as the server
 * does and a data dir only scripts use still stays bounded. A data dir never cleaned up is first cleaned one
 * interval after the first such run. Undefined when it was not due; never throws (a failure is said on stderr).
 */
export async function runRetentionIfDue(dataDir: string, now: number = Date.now(), intervalMs: number = BUDGET.RETENTION_SWEEP_INTERVAL_MS): Promise<CleanupReport | undefined> {
  try {
    const db = openDb(dataDir);
    const last = getSetting<CleanupReport>(db, LAST_KEY)?.at ?? getSetting<number>(db, FIRST_SEEN_KEY);
    if (last === undefined) {
      setSetting(db, FIRST_SEEN_KEY, now);
      return undefined;
    }
    if (now - last < intervalMs) return undefined;
    return await runRetention(dataDir, { now });
  } catch (err) {
    process.stderr.write(`clamp: clean-up of the data dir failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return undefined;
  }
}

/** GET /api/settings/storage: the data dir's size by kind, the retention settings and the latest clean-up. */
export async function storageView(cfg: Pick<ServerConfig, 'dataDir'>): Promise<StorageAnswer> {
  const db = openDb(cfg.dataDir);
  const s = getRetentionSettings(db);
  return {
    dataDir: cfg.dataDir,
    ...(await storageSizes(cfg.dataDir)),
    retention: { maxAgeDays: Math.max(1, Math.round(s.maxAgeMs / DAY_MS)), outputsMaxMegabytes: Math.max(1, Math.round(s.outputsMaxBytes / MIB)) },
    lastCleanup: getSetting<CleanupReport>(db, LAST_KEY) ?? null,
  };
}

/** PUT /api/settings/storage: the period in days and the size budget in MiB. */
export function saveRetention(cfg: Pick<ServerConfig, 'dataDir'>, body: RetentionBody): Promise<StorageAnswer> {
  setRetentionSettings(openDb(cfg.dataDir), {
    ...(body.maxAgeDays !== undefined ? { maxAgeMs: body.maxAgeDays * DAY_MS } : {}),
    ...(body.outputsMaxMegabytes !== undefined ? { outputsMaxBytes: body.outputsMaxMegabytes * MIB } : {}),
  });
  return storageView(cfg);
}

/** POST /api/settings/storage/cleanup: clean up now (every checkpoint repository too) and answer what it freed. */
export async function cleanUpNow(cfg: Pick<ServerConfig, 'dataDir'>): Promise<{ report: CleanupReport; storage: StorageAnswer }> {
  const report = await runRetention(cfg.dataDir, { force: true });
  return { report, storage: await storageView(cfg) };
}
