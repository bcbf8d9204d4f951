import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { onShutdown } from '../contract/shutdown';

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

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Numbered migrations, applied in order, each once (recorded in schema_version).
 * Never edit a released migration: add the next number.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, messages, approvals, rules, settings, memories (FTS5)',
    sql: `
      CREATE TABLE sessions (
        id          TEXT PRIMARY KEY,
        workspace   TEXT NOT NULL,
        title       TEXT NOT NULL,
        -- 0 while the title is the placeholder; the first user message then names the session
        title_set   INTEGER NOT NULL DEFAULT 0,
        mode        TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE INDEX sessions_workspace_updated ON sessions(workspace, updated_at DESC);

      -- the chat as AI SDK UIMessage objects, one row each, in order
      CREATE TABLE messages (
        session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position    INTEGER NOT NULL,
        id          TEXT NOT NULL,
        role        TEXT NOT NULL,
        json        TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      );
      CREATE INDEX messages_session_message ON messages(session_id, id);

      CREATE TABLE approvals (
        approval_id     TEXT PRIMARY KEY,
        session_id      TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tool_call_id    TEXT NOT NULL,
        tool_name       TEXT NOT NULL,
        input_json      TEXT NOT NULL,
        info_json       TEXT,
        status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'consumed')),
        answer          TEXT CHECK (answer IN ('once', 'session', 'always', 'edit', 'deny')),
        edited_command  TEXT,
        reason          TEXT,
        created_at      INTEGER NOT NULL,
        answered_at     INTEGER
      );
      CREATE UNIQUE INDEX approvals_session_tool_call ON approvals(session_id, tool_call_id);
      CREATE INDEX approvals_session_status ON approvals(session_id, status);

      -- saved ("always") rules have no session; session rules die with their session
      CREATE TABLE rules (
        id          TEXT PRIMARY KEY,
        workspace   TEXT NOT NULL,
        session_id  TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        tool        TEXT NOT NULL,
        pattern     TEXT NOT NULL,
        action      TEXT NOT NULL CHECK (action IN ('allow', 'deny', 'ask')),
        created_at  INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX rules_unique ON rules(workspace, ifnull(session_id, ''), tool, pattern, action);
      CREATE INDEX rules_lookup ON rules(workspace, tool);

      CREATE TABLE settings (
        key         TEXT PRIMARY KEY,
        json        TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );

      -- memory_save / memory_search: kept per workspace across sessions, full-text searchable
      CREATE TABLE memories (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        workspace   TEXT NOT NULL,
        content     TEXT NOT NULL,
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX memories_workspace_created ON memories(workspace, created_at DESC);
      CREATE VIRTUAL TABLE memories_fts USING fts5(
        content, workspace UNINDEXED,
        content = 'memories', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER memories_after_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, content, workspace) VALUES (new.id, new.content, new.workspace);
      END;
      CREATE TRIGGER memories_after_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content, workspace) VALUES ('delete', old.id, old.content, old.workspace);
      END;
      CREATE TRIGGER memories_after_update AFTER UPDATE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content, workspace) VALUES ('delete', old.id, old.content, old.workspace);
        INSERT INTO memories_fts(rowid, content, workspace) VALUES (new.id, new.content, new.workspace);
      END;
    `,
  },
  {
    version: 2,
    name: 'todos (the plan of each session)',
    sql: `
      -- todo_write replaces the whole list at once, so one row per session holds it as JSON.
      -- No foreign key: the tool CLI keeps its list under a fixed key that names no session.
      CREATE TABLE todos (
        session_id  TEXT PRIMARY KEY,
        json        TEXT NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      CREATE TRIGGER sessions_after_delete_todos AFTER DELETE ON sessions BEGIN
        DELETE FROM todos WHERE session_id = old.id;
      END;
    `,
  },
  {
    version: 3,
    name: 'approvals: "allow network" for the one approved call',
    sql: `
      ALTER TABLE approvals ADD COLUMN network INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 4,
    name: 'checkpoints, branches (rewound messages) and the tool-call journal',
    sql: `
      -- a snapshot of the workspace in the shadow repository (lib/checkpoints): commit is its commit there
      CREATE TABLE checkpoints (
        id            TEXT PRIMARY KEY,
        session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        message_id    TEXT,
        tool_call_id  TEXT,
        kind          TEXT NOT NULL CHECK (kind IN ('turn', 'rewind', 'revert')),
        commit_sha    TEXT NOT NULL,
        file_count    INTEGER NOT NULL,
        skipped_json  TEXT NOT NULL,
        created_at    INTEGER NOT NULL
      );
      CREATE INDEX checkpoints_session_created ON checkpoints(session_id, created_at);

      -- the messages a conversation rewind took out, kept readable
      CREATE TABLE branches (
        id               TEXT PRIMARY KEY,
        session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        from_message_id  TEXT NOT NULL,
        messages_json    TEXT NOT NULL,
        message_count    INTEGER NOT NULL,
        preview          TEXT NOT NULL,
        created_at       INTEGER NOT NULL
      );
      CREATE INDEX branches_session_created ON branches(session_id, created_at);

      -- write-ahead: each tool call is stored before it runs; one still 'running' from another boot was cut short by a restart
      CREATE TABLE tool_calls (
        session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tool_call_id       TEXT NOT NULL,
        message_id         TEXT NOT NULL,
        user_message_id    TEXT,
        tool_name          TEXT NOT NULL,
        input_json         TEXT NOT NULL,
        step_parts_json    TEXT NOT NULL,
        status             TEXT NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
        boot_id            TEXT NOT NULL,
        checkpoint_id      TEXT,
        -- the ToolResult once it ended (so a step the crash cut short keeps its finished calls)
        result_json        TEXT,
        started_at         INTEGER NOT NULL,
        finished_at        INTEGER,
        PRIMARY KEY (session_id, tool_call_id)
      );
      CREATE INDEX tool_calls_running ON tool_calls(status, session_id);
    `,
  },
  {
    version: 6,
    name: 'subagents: sessions with a parent; ask_user answers',
    sql: `
      -- a subagent's conversation is a session of its own, started by its parent's agent call;
      -- it goes with its parent
      ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
      ALTER TABLE sessions ADD COLUMN parent_call_id TEXT;
      ALTER TABLE sessions ADD COLUMN agent_type TEXT;
      CREATE INDEX sessions_parent ON sessions(parent_id);
      -- ask_user's question waits as an approval; the person's answer is kept here
      ALTER TABLE approvals ADD COLUMN reply TEXT;
    `,
  },
  {
    version: 7,
    name: "sessions: the session's own model (the header's picker)",
    sql: `
      -- provider:model, or NULL for the default model (the settings page, else the environment)
      ALTER TABLE sessions ADD COLUMN model TEXT;
    `,
  },
];

/** The schema version this code expects. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Bring a connection's schema up to SCHEMA_VERSION. Safe to run from several connections or
 * processes at once: the check and the migrations run under one write lock (BEGIN IMMEDIATE).
 * Returns the versions it applied (empty when already current).
 */
export function migrate(db: Db): number[] {
  const applied: number[] = [];
  const run = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const { v } = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_version').get() as { v: number };
    // numbers are assigned ahead of time, so one may land after a higher one: apply every one not recorded
    const done = new Set((db.prepare('SELECT version FROM schema_version').all() as { version: number }[]).map((r) => r.version));
    if (v > SCHEMA_VERSION) {
      throw new Error(
        `The database ${db.name} has schema version ${v}, newer than this Clamp understands (${SCHEMA_VERSION}). Upgrade Clamp, or set CLAMP_DATA_DIR to another folder.`,
      );
    }
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, Date.now());
      applied.push(m.version);
    }
  });
  run.immediate();
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

/** Open a connection with Clamp's settings and schema (no sharing; openDb is the shared one). */
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

export function openConnection(file: string): Db {
  // create the file ourselves so the conversation history is private (0600) from the start
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  preparedOnce(db);
  try {
    enableWal(db);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
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
