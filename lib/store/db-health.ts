import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { BUDGET } from '../contract/budget';
import { DiskFullError, isDiskFull } from '../contract/disk-full';

/**
 * The database's health: the check at open (PRAGMA quick_check) that refuses a damaged file with the way out, and
 * the backup made before a migration runs (VACUUM INTO the data dir's backups/, the newest DB_BACKUPS_MAX_FILES kept).
 */

type Db = Database.Database;

/** The folder of the backups, inside the data dir. */
export const BACKUPS_DIR_NAME = 'backups';
const BACKUP_NAME = /^clamp-\d+-[0-9TZ-]+\.db$/;

/** The database file is damaged: Clamp does not open it (writing on would make it worse). The message says how to restore. */
export class DamagedStoreError extends Error {
  constructor(
    public readonly file: string,
    problem: string,
  ) {
    super(damagedText(file, problem));
    this.name = 'DamagedStoreError';
  }
}

/** Whether SQLite's error says the file is not a sound database. */
export function isCorrupt(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB'));
}

/** The backups of a data dir, newest first (absolute paths). */
export function listBackups(dataDir: string): string[] {
  const dir = path.join(dataDir, BACKUPS_DIR_NAME);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => BACKUP_NAME.test(n));
  } catch {
    return [];
  }
  // by the time in the name (the version before it differs in width)
  const at = (n: string) => n.replace(/^clamp-\d+-/, '');
  return names.sort((a, b) => at(b).localeCompare(at(a))).map((n) => path.join(dir, n));
}

/** What to say about a damaged database: what the check found, the newest backup and the exact command, or a fresh data dir. */
function damagedText(file: string, problem: string): string {
  const dataDir = path.dirname(file);
  const base = path.basename(file);
  const newest = listBackups(dataDir)[0];
  const fresh = `start with a fresh data dir (CLAMP_DATA_DIR=<an empty folder>; the damaged one stays as it is).`;
  const restore = newest
    ? `Stop every Clamp using it, then restore the newest backup (${path.basename(newest)}, made ${new Date(fs.statSync(newest).mtimeMs).toISOString()} before a migration; what changed since is not in it) with:\n` +
      `  cd ${JSON.stringify(dataDir)} && mkdir -p damaged && mv ${base}* damaged/ && cp ${JSON.stringify(path.relative(dataDir, newest))} ${base}\n` +
      `or ${fresh}`
    : `There is no backup in ${path.join(dataDir, BACKUPS_DIR_NAME)} (one is made before each migration). Move the damaged file aside (mv ${JSON.stringify(file)} ${JSON.stringify(`${file}.damaged`)}) to start with an empty store, or ${fresh}`;
  return `The database ${file} is damaged (${problem}). Clamp does not start on it, so nothing more is written into it. ${restore}`;
}

/** PRAGMA quick_check (fast: no index cross-check). Throws DamagedStoreError when it finds a problem. */
export function checkIntegrity(db: Db): void {
  let rows: string[];
  try {
    rows = (db.pragma('quick_check(3)') as Record<string, unknown>[]).map((r) => String(Object.values(r)[0]));
  } catch (err) {
    if (isCorrupt(err)) throw new DamagedStoreError(db.name, (err as Error).message);
    throw err;
  }
  if (rows.length !== 1 || rows[0] !== 'ok') throw new DamagedStoreError(db.name, `quick_check: ${rows.join('; ')}`);
}

/**
 * Copy the database into backups/clamp-<version>-<time>.db before migrating it from `version` (VACUUM INTO: one
 * consistent copy while other connections go on), then remove all but the newest DB_BACKUPS_MAX_FILES. Returns the
 * backup's path. Throws DiskFullError (the partial copy removed) when the disk has no room: the migration must not run.
 */
export function backupBeforeMigrating(db: Db, version: number, toVersion: number): string {
  const dataDir = path.dirname(db.name);
  const dir = path.join(dataDir, BACKUPS_DIR_NAME);
  const file = path.join(dir, `clamp-${version}-${new Date().toISOString().replace(/[:.]/g, '-')}.db`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    db.prepare('VACUUM INTO ?').run(file);
    fs.chmodSync(file, 0o600);
  } catch (err) {
    fs.rmSync(file, { force: true });
    if (isDiskFull(err)) {
      throw new DiskFullError(`The backup of the database before its migration to schema version ${toVersion}`, dataDir, err, 'The migration did not run: Clamp starts once the backup can be made.');
    }
    throw err;
  }
  for (const old of listBackups(dataDir).slice(BUDGET.DB_BACKUPS_MAX_FILES)) fs.rmSync(old, { force: true });
  return file;
}
