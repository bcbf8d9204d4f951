import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { onShutdown } from '../contract/shutdown';
import { asDiskFull } from '../contract/disk-full';
import { MIGRATIONS, type Migration } from './migrations';
import { backupBeforeMigrating, checkIntegrity, DamagedStoreError, isCorrupt } from './db-health';

export { MIGRATIONS } from './migrations';
export { DamagedStoreError } from './db-health';

export type Db = Database.Database;

/** The database file inside the data dir. */
export const DB_FILE_NAME = 'clamp.db';
/** How long a connection waits for another one's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/** A store failure the route handlers map to a 4xx status (see lib/server/http.ts errorResponse). */
export class StoreError extends Error {
  constructor(
    message: string,
    public readonly code: 'not-found' | 'conflict' | 'invalid',
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** The schema version this code expects. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The versions recorded as applied (empty for a new file). */
function appliedVersions(db: Db): Set<number> {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (!table) return new Set();
  return new Set((db.prepare('SELECT version FROM schema_version').all() as { version: number }[]).map((r) => r.version));
}

/**
 * Bring a connection's schema up to the newest of `migrations` (SCHEMA_VERSION). Safe to run from several
 * connections or processes at once: the check and the migrations run under one write lock (BEGIN IMMEDIATE).
 * A database that holds a schema already is first copied to the data dir's backups/ (never when nothing is to
 * run; a new file has nothing to keep). Returns the versions it applied (empty when already current). Throws
 * DiskFullError when the disk has no room for the backup or the migration (the database is left as it was).
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const newest = Math.max(...migrations.map((m) => m.version));
  const before = appliedVersions(db);
  const pending = migrations.filter((m) => !before.has(m.version));
  if (pending.length > 0 && before.size > 0 && !db.memory && Math.max(...before) <= newest) backupBeforeMigrating(db, Math.max(...before), newest);
  const applied: number[] = [];
  const run = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const { v } = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_version').get() as { v: number };
    // numbers are assigned ahead of time, so one may land after a higher one: apply every one not recorded
    const done = new Set((db.prepare('SELECT version FROM schema_version').all() as { version: number }[]).map((r) => r.version));
    if (v > newest) {
      throw new Error(
        `The database ${db.name} has schema version ${v}, newer than this Clamp understands (${newest}). Upgrade Clamp, or set CLAMP_DATA_DIR to another folder.`,
      );
    }
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, Date.now());
      applied.push(m.version);
    }
  });
  try {
    run.immediate();
  } catch (err) {
    throw asDiskFull(err, `The migration of the database to schema version ${newest}`, path.dirname(db.name));
  }
  return applied;
}

interface Entry {
  db: Db;
  unregister: () => void;
}
const KEY = Symbol.for('clamp.db');

/** One connection per data dir per process, shared by the launcher and every route bundle. */
function registry(): Map<string, Entry> {
  const g = globalThis as unknown as Record<symbol, Map<string, Entry> | undefined>;
  return (g[KEY] ??= new Map<string, Entry>());
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Switch the file to WAL (persistent once set). Turning WAL on needs an exclusive lock, and SQLite
 * answers SQLITE_BUSY at once, without its busy handler, when another process is opening the same
 * fresh file; so retry for up to the busy timeout.
 */
function enableWal(db: Db): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      if (db.pragma('journal_mode = WAL', { simple: true }) === 'wal') return;
      throw new Error(`SQLite refused WAL mode for ${db.name}; put CLAMP_DATA_DIR on a local disk.`);
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    }
  }
}

/** The most statements a connection keeps prepared (the store's SQL is a fixed set; this bounds any that is not). */
const PREPARED_MAX_STATEMENTS = 256;

/**
 * Prepare each SQL text once per connection: every step of a turn runs the same few statements
 * (save the conversation, journal a call, read the mode and rules), and compiling one costs more than
 * running it. Safe because the store never switches a statement's mode (pluck, raw, expand) or keeps
 * one iterating.
 */
function preparedOnce(db: Db): void {
  const prepare = db.prepare.bind(db);
  const known = new Map<string, ReturnType<Db['prepare']>>();
  db.prepare = ((sql: string) => {
    let stmt = known.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      if (known.size >= PREPARED_MAX_STATEMENTS) known.delete(known.keys().next().value as string);
      known.set(sql, stmt);
    }
    return stmt;
  }) as Db['prepare'];
}

/**
 * Open a connection with Clamp's settings and schema (no sharing; openDb is the shared one). Throws
 * DamagedStoreError for a damaged file, DiskFullError when a needed backup or migration finds no room.
 */
export function openConnection(file: string): Db {
  // create the file ourselves so the conversation history is private (0600) from the start
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  preparedOnce(db);
  try {
    enableWal(db);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // a damaged file is refused before anything writes into it (the message names the backup to restore)
    checkIntegrity(db);
    migrate(db);
  } catch (err) {
    db.close();
    throw isCorrupt(err) ? new DamagedStoreError(file, (err as Error).message) : err;
  }
  return db;
}

/**
 * The process-wide database of a data dir: opened, in WAL mode and migrated on first use,
 * then the same instance every time (kept on globalThis under Symbol.for('clamp.db')); closed at shutdown.
 */
export function openDb(dataDir: string): Db {
  const dir = path.resolve(dataDir);
  const reg = registry();
  const found = reg.get(dir);
  if (found?.db.open) return found.db;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = openConnection(path.join(dir, DB_FILE_NAME));
  const unregister = onShutdown(() => closeDb(dir));
  reg.set(dir, { db, unregister });
  return db;
}

/** Close a data dir's shared database (the next openDb reopens it). Never throws. */
export function closeDb(dataDir: string): void {
  const dir = path.resolve(dataDir);
  const reg = registry();
  const entry = reg.get(dir);
  if (!entry) return;
  reg.delete(dir);
  entry.unregister();
  try {
    if (entry.db.open) entry.db.close();
  } catch {
    // closing twice or mid-transaction: nothing more to do at shutdown
  }
}

/** A random url-safe id (16 characters, 96 bits). */
export function newId(): string {
  return crypto.randomBytes(12).toString('base64url');
}

const CLOCK = Symbol.for('clamp.db.clock');

/**
 * Milliseconds since the epoch, strictly increasing within the process, so "most recently active"
 * has no ties when two changes land in the same millisecond.
 */
export function stamp(): number {
  const g = globalThis as unknown as Record<symbol, number | undefined>;
  const next = Math.max(Date.now(), (g[CLOCK] ?? 0) + 1);
  g[CLOCK] = next;
  return next;
}
