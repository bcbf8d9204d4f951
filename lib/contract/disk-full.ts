/**
 * A full disk under the data dir, said one way everywhere: a log, a spill, a checkpoint, the session's save, a
 * migration. The store's writes run in transactions and the files are written whole or not kept, so what was stored
 * before stays as it was; the words say so, name the disk's folder and what to do.
 */

import fs from 'node:fs';

/** The codes and words a full disk (or quota) shows as: Node's errno, SQLite's, and a program's stderr (git). */
const FULL = /\bENOSPC\b|\bEDQUOT\b|SQLITE_FULL|No space left on device|Disk quota exceeded|database or disk is full/i;

/** Whether an error (or a program's message) says the disk is full. */
export function isDiskFull(err: unknown): boolean {
  if (err instanceof DiskFullError) return true;
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && FULL.test(e.code)) return true;
  const text = typeof err === 'string' ? err : typeof e?.message === 'string' ? e.message : '';
  return FULL.test(text);
}

/** Below this many free bytes a failed write is taken for a full disk even when its words do not say so (git's "unable to write new index file"). */
const NEARLY_FULL_BYTES = 1024 * 1024;

/** Whether a write into `dir` that failed with `err` failed for want of room: the error says so, or the disk holding `dir` is (nearly) full. */
export function failedForRoom(err: unknown, dir: string): boolean {
  if (isDiskFull(err)) return true;
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}

/** The short code of a full-disk error, for the parenthesis: "ENOSPC", "SQLITE_FULL" … */
function codeOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && FULL.test(e.code)) return e.code;
  const text = typeof err === 'string' ? err : typeof e?.message === 'string' ? e.message : '';
  return FULL.exec(text)?.[0] ?? 'no space left';
}

/**
 * The sentence for `what` (starting with a capital: "The session's save") that could not be written because the
 * disk holding the data dir is full: names the folder, says nothing stored was changed (and `more`, what did not
 * happen because of it) and what to do next.
 */
export function diskFullText(what: string, dataDir: string, err: unknown, more = ''): string {
  return (
    `${what} could not be written: the disk holding Clamp's data dir (${dataDir}) is full (${codeOf(err)}). ` +
    `Nothing already stored was changed.${more ? ` ${more}` : ''} Free space on that disk (\`df -h ${dataDir}\` shows it), then try again.`
  );
}

/** A write refused by a full disk, its message from diskFullText; routes answer it as 507, `clamp run` exits with its store code. */
export class DiskFullError extends Error {
  constructor(
    what: string,
    public readonly dataDir: string,
    cause: unknown,
    more = '',
  ) {
    super(diskFullText(what, dataDir, cause, more), { cause });
    this.name = 'DiskFullError';
  }
}

/** `err` as a DiskFullError about `what` when the disk is full, else `err` itself (to be thrown on). */
export function asDiskFull(err: unknown, what: string, dataDir: string): unknown {
  return isDiskFull(err) && !(err instanceof DiskFullError) ? new DiskFullError(what, dataDir, err) : err;
}
