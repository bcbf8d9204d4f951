import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, DB_FILE_NAME, migrate, MIGRATIONS, openConnection, openDb, SCHEMA_VERSION } from '../../lib/store/db';
import { runShutdownHooks } from '../../lib/contract/shutdown';
import { tempWorkspace } from '../helpers';

const ROOT = path.resolve(import.meta.dirname, '../..');
let ws: ReturnType<typeof tempWorkspace>;

beforeEach(() => {
  ws = tempWorkspace('clamp-db-');
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

function versions(db: Database.Database): number[] {
  return (db.prepare('SELECT version FROM schema_version ORDER BY version').all() as { version: number }[]).map((r) => r.version);
}

describe('openDb', () => {
  it('creates a private WAL database in the data dir with every migration recorded once', () => {
    const db = openDb(ws.dataDir);
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(versions(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(SCHEMA_VERSION).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));
    expect(MIGRATIONS.map((m) => m.version)).toEqual([...MIGRATIONS.map((m) => m.version)].sort((a, b) => a - b));
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['sessions', 'messages', 'approvals', 'rules', 'settings', 'memories', 'memories_fts', 'schema_version']));
  });

  it('returns one shared instance per data dir, kept on globalThis under Symbol.for("clamp.db")', () => {
    const a = openDb(ws.dataDir);
    const b = openDb(path.join(ws.dataDir, '.'));
    expect(b).toBe(a);
    const reg = (globalThis as unknown as Record<symbol, Map<string, { db: unknown }>>)[Symbol.for('clamp.db')];
    expect(reg.get(path.resolve(ws.dataDir))?.db).toBe(a);
    const other = tempWorkspace('clamp-db-other-');
    try {
      expect(openDb(other.dataDir)).not.toBe(a);
    } finally {
      closeDb(other.dataDir);
      other.cleanup();
    }
  });

  it('reopens after close and keeps the data (a restart)', () => {
    openDb(ws.dataDir).prepare("INSERT INTO settings (key, json, updated_at) VALUES ('k', '1', 0)").run();
    const first = openDb(ws.dataDir);
    closeDb(ws.dataDir);
    expect(first.open).toBe(false);
    const again = openDb(ws.dataDir);
    expect(again).not.toBe(first);
    expect(again.prepare("SELECT json FROM settings WHERE key = 'k'").get()).toEqual({ json: '1' });
    expect(versions(again)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('is closed by the shutdown hooks', async () => {
    const db = openDb(ws.dataDir);
    await runShutdownHooks();
    expect(db.open).toBe(false);
    expect(openDb(ws.dataDir).open).toBe(true);
  });

  it('migrating an up-to-date database again does nothing', () => {
    const db = openDb(ws.dataDir);
    const second = openConnection(path.join(ws.dataDir, DB_FILE_NAME));
    try {
      expect(migrate(second)).toEqual([]);
      expect(migrate(db)).toEqual([]);
      expect(versions(second)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      second.close();
    }
  });

  it('refuses a database from a newer Clamp, naming the fix', () => {
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    openConnection(file).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 0)").run();
    raw.close();
    expect(() => openConnection(file)).toThrow(`has schema version 99, newer than this Clamp understands (${SCHEMA_VERSION}). Upgrade Clamp, or set CLAMP_DATA_DIR to another folder.`);
  });

  it('survives several processes migrating fresh databases at the same moment', async () => {
    // each process opens the same series of fresh files, so some openings overlap with another process's migration
    const files = Array.from({ length: 30 }, (_, i) => path.join(ws.dataDir, `race-${i}.db`));
    const startAt = Date.now() + 1500;
    const code = `
      import { openConnection } from ${JSON.stringify(path.join(ROOT, 'lib/store/db.ts'))};
      while (Date.now() < ${startAt}) {}
      for (const file of ${JSON.stringify(files)}) {
        const db = openConnection(file);
        db.prepare("INSERT INTO settings (key, json, updated_at) VALUES (?, '1', 0)").run('p' + process.pid);
        db.close();
      }
    `;
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (c) => resolve({ code: c, stderr }));
      });
    const results = await Promise.all([run(), run(), run(), run()]);
    expect(results).toEqual(Array(4).fill({ code: 0, stderr: '' }));
    for (const file of files) {
      const db = new Database(file, { readonly: true });
      try {
        expect(versions(db)).toEqual(MIGRATIONS.map((m) => m.version));
        expect(db.prepare("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'p%'").get()).toEqual({ n: 4 });
      } finally {
        db.close();
      }
    }
  });
});

describe('prepared statements', () => {
  it('are compiled once per connection and stay correct across writes, transactions and a reopen', () => {
    const db = openDb(ws.dataDir);
    const count = 'SELECT COUNT(*) AS n FROM sessions';
    expect(db.prepare(count)).toBe(db.prepare(count));
    const insert = (id: string) => db.prepare("INSERT INTO sessions (id, workspace, title, title_set, mode, created_at, updated_at) VALUES (?, '/ws', 't', 0, 'default', 1, 1)").run(id);
    insert('a');
    db.transaction(() => {
      insert('b');
      expect(db.prepare(count).get()).toEqual({ n: 2 });
    })();
    expect(() => db.transaction(() => {
      insert('c');
      throw new Error('rolled back');
    })()).toThrow('rolled back');
    expect(db.prepare(count).get()).toEqual({ n: 2 });
    // more distinct texts than the connection keeps: each still runs
    for (let i = 0; i < 300; i++) expect(db.prepare(`SELECT ${i} AS v`).get()).toEqual({ v: i });
    expect(db.prepare(count).get()).toEqual({ n: 2 });
    closeDb(ws.dataDir);
    const again = openDb(ws.dataDir);
    expect(again.prepare(count).get()).toEqual({ n: 2 });
  });
});

describe('memories (full-text search for memory_save / memory_search)', () => {
  it('the bundled SQLite has FTS5', () => {
    const db = openDb(ws.dataDir);
    expect(db.prepare("SELECT sqlite_compileoption_used('ENABLE_FTS5') AS on_").get()).toEqual({ on_: 1 });
  });

  it('indexes memories per workspace through the triggers, stems words, and forgets deleted ones', () => {
    const db = openDb(ws.dataDir);
    const add = db.prepare('INSERT INTO memories (workspace, content, created_at) VALUES (?, ?, ?)');
    add.run('/ws/a', 'The tests run with npm test and need Docker running.', 1);
    add.run('/ws/a', 'Use pnpm, never yarn, in this repository.', 2);
    add.run('/ws/b', 'Tests in workspace b use pytest.', 3);
    const search = (workspace: string, q: string) =>
      (
        db
          .prepare(
            `SELECT m.content FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
             WHERE memories_fts MATCH ? AND m.workspace = ? ORDER BY bm25(memories_fts)`,
          )
          .all(q, workspace) as { content: string }[]
      ).map((r) => r.content);
    expect(search('/ws/a', 'test')).toEqual(['The tests run with npm test and need Docker running.']);
    expect(search('/ws/b', 'tests')).toEqual(['Tests in workspace b use pytest.']);
    expect(search('/ws/a', 'yarn')).toEqual(['Use pnpm, never yarn, in this repository.']);
    db.prepare("UPDATE memories SET content = 'Use npm, never yarn.' WHERE content LIKE 'Use pnpm%'").run();
    expect(search('/ws/a', 'pnpm')).toEqual([]);
    expect(search('/ws/a', 'yarn')).toEqual(['Use npm, never yarn.']);
    db.prepare("DELETE FROM memories WHERE workspace = '/ws/a'").run();
    expect(search('/ws/a', 'yarn OR test')).toEqual([]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE memories_fts MATCH 'yarn'").get()).toEqual({ n: 0 });
  });
});
