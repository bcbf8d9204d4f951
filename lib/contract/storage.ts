import { z } from 'zod';

/** The data dir's size by kind and its retention: GET/PUT /api/settings/storage, POST /api/settings/storage/cleanup. */

export const STORAGE_KINDS = ['logs', 'spills', 'checkpoints', 'database', 'worktrees', 'other'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

export interface StorageKindSize {
  kind: StorageKind;
  /** apparent bytes of its files (a hard-linked file once) */
  bytes: number;
  files: number;
}

/** The retention settings in the page's units. */
export interface RetentionView {
  /** logs and spills older than this many days are removed */
  maxAgeDays: number;
  /** logs and spills together at most this many MiB (the oldest go first) */
  outputsMaxMegabytes: number;
}

/** What one clean-up removed. */
export interface CleanupReport {
  /** when it ran (ms since the epoch) */
  at: number;
  /** logs and spills removed, and the bytes that freed */
  removedFiles: number;
  freedBytes: number;
  /** logs kept because a command or task still writes them */
  skippedLive: number;
  /** checkpoint repositories garbage-collected, deleted sessions' refs dropped, and the bytes that freed */
  checkpoints: { repositories: number; refsDropped: number; freedBytes: number; errors: string[] };
}

export interface StorageAnswer {
  dataDir: string;
  totalBytes: number;
  kinds: StorageKindSize[];
  retention: RetentionView;
  /** the latest clean-up of this server (at start, hourly or by hand), if one ran */
  lastCleanup: CleanupReport | null;
}

export interface CleanupAnswer {
  report: CleanupReport;
  storage: StorageAnswer;
}

/** PUT /api/settings/storage: change the period and the size budget. */
export const retentionBody = z.strictObject({
  maxAgeDays: z.number().int().min(1).max(3650).optional(),
  outputsMaxMegabytes: z.number().int().min(1).max(16 * 1024 * 1024).optional(),
});
export type RetentionBody = z.infer<typeof retentionBody>;
