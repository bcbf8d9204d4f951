import fs from 'node:fs';
import path from 'node:path';
import { execSync, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DamagedStoreError, DB_FILE_NAME, migrate, MIGRATIONS, openConnection, SCHEMA_VERSION } from '../../lib/store/db';
import { listBackups } from '../../lib/store/db-health';
import { DiskFullError, isDiskFull } from '../../lib/contract/disk-full';
import { BUDGET } from '../../lib/contract/budget';
import { clampResult } from '../../lib/contract/clamp';
import { createSession } from '../../lib/store/sessions';
import { loadMessages, saveMessages } from '../../lib/store/messages';
import type { ClampMessage } from '../../lib/contract/protocol';
import { tempWorkspace } from '../helpers';
import { mountSmallDisk, type SmallDisk } from './small-disk';

const OLD = 3;
const user = (id: string, text: string): ClampMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** A database of schema version OLD (an older Clamp's) holding one row, closed. */
function oldDatabase(file: string, rows = 1, rowBytes = 100): void {
  const db = new Database(file);
  migrate(db, MIGRATIONS.filter((m) => m.version <= OLD));
  const put = db.prepare('INSERT INTO settings (key, json, updated_at) VALUES (?, ?, 0)');
  for (let i = 0; i < rows; i++) put.run(`k${i}`, JSON.stringify('x'.repeat(rowBytes)));
  db.close();
}

const versionOf = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v;
  } finally {
    db.close();
  }
};
const integrity = (db: Database.Database) => db.pragma('integrity_check', { simple: true });

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-dbhealth-');
});
afterEach(() => ws.cleanup());

describe('a backup before each migration', () => {
  it('copies an older database to backups/clamp-<version>-<date>.db before migrating it, and never when nothing runs', () => {
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    // a new file has nothing to keep
    openConnection(file).close();
    expect(listBackups(ws.dataDir)).toEqual([]);
    fs.rmSync(file);
    oldDatabase(file);
    const db = openConnection(file);
    expect(versionOf(file)).toBe(SCHEMA_VERSION);
    db.close();
    const backups = listBackups(ws.dataDir);
    expect(backups).toHaveLength(1);
    expect(path.basename(backups[0])).toMatch(new RegExp(`^clamp-${OLD}-\\d{4}-\\d\\d-\\d\\dT[0-9-]+Z\\.db$`));
    expect(fs.statSync(backups[0]).mode & 0o777).toBe(0o600);
    // the backup is the database as it was: the old version, its row
    const b = new Database(backups[0], { readonly: true });
    expect((b.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v).toBe(OLD);
    expect(b.prepare('SELECT key FROM settings').all()).toEqual([{ key: 'k0' }]);
    b.close();
    // current: opening again makes none
    openConnection(file).close();
    expect(listBackups(ws.dataDir)).toHaveLength(1);
  });

  it(`keeps the newest ${BUDGET.DB_BACKUPS_MAX_FILES} backups`, () => {
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    const made: string[] = [];
    for (let i = 0; i < BUDGET.DB_BACKUPS_MAX_FILES + 2; i++) {
      for (const f of fs.readdirSync(ws.dataDir)) if (f.startsWith(DB_FILE_NAME)) fs.rmSync(path.join(ws.dataDir, f));
      oldDatabase(file);
      openConnection(file).close();
      made.push(listBackups(ws.dataDir)[0]);
    }
    expect(listBackups(ws.dataDir)).toEqual(made.slice(-BUDGET.DB_BACKUPS_MAX_FILES).reverse());
  });
});

describe('the check at start', () => {
  it('refuses a damaged database naming the newest backup and the exact command; after it Clamp opens the backup', () => {
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    oldDatabase(file, 200, 2000);
    openConnection(file).close();
    const backup = listBackups(ws.dataDir)[0];
    // damage a page in the middle of the table's b-tree
    const fd = fs.openSync(file, 'r+');
    const size = fs.fstatSync(fd).size;
    fs.writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, Math.floor(size / 4096 / 2) * 4096);
    fs.closeSync(fd);
    let err: unknown;
    try {
      openConnection(file).close();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DamagedStoreError);
    const msg = (err as Error).message;
    expect(msg).toContain(`The database ${file} is damaged (`);
    expect(msg).toContain('Clamp does not start on it, so nothing more is written into it.');
    expect(msg).toContain(path.basename(backup));
    const command = /\n {2}(cd .*)\n/.exec(msg)?.[1];
    expect(command).toBe(`cd ${JSON.stringify(ws.dataDir)} && mkdir -p damaged && mv ${DB_FILE_NAME}* damaged/ && cp ${JSON.stringify(`backups/${path.basename(backup)}`)} ${DB_FILE_NAME}`);
    expect(msg).toContain('CLAMP_DATA_DIR=<an empty folder>');
    // the way out works as written
    execSync(command!, { shell: '/bin/bash' });
    const db = openConnection(file);
    expect(integrity(db)).toBe('ok');
    expect((db.prepare('SELECT COUNT(*) AS n FROM settings').get() as { n: number }).n).toBe(200);
    db.close();
    expect(fs.existsSync(path.join(ws.dataDir, 'damaged', DB_FILE_NAME))).toBe(true);
  });

  it('refuses a file that is not a database at all, and says there is no backup', () => {
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    fs.writeFileSync(file, Buffer.alloc(8192, 0x41), { mode: 0o600 });
    expect(() => openConnection(file)).toThrow(DamagedStoreError);
    expect(() => openConnection(file)).toThrow(/is damaged \(.*not a database.*\)[\s\S]*There is no backup in .*backups/);
    // nothing was written into it
    expect(fs.readFileSync(file).equals(Buffer.alloc(8192, 0x41))).toBe(true);
  });
});

describe('the server and clamp run on a damaged database', () => {
  const BIN = path.resolve(import.meta.dirname, '../../bin/clamp.mjs');
  const run = (args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], {
      cwd: ws.workspace,
      env: { ...process.env, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_PORT: '0', NEXT_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
  it('both refuse to start, exit 7 and print the way out, writing nothing into the file', () => {
    const file = path.join(ws.dataDir, DB_FILE_NAME);
    fs.writeFileSync(file, Buffer.alloc(8192, 0x41), { mode: 0o600 });
    const headless = run(['run', 'hello']);
    expect(headless.status).toBe(7);
    expect(headless.stderr).toMatch(new RegExp(`^clamp run: The database ${file} is damaged \\(`));
    expect(headless.stderr).toContain('CLAMP_DATA_DIR=<an empty folder>');
    const server = run([]);
    expect(server.status).toBe(7);
    expect(server.stderr).toMatch(new RegExp(`^clamp: The database ${file} is damaged \\(`));
    expect(server.stdout).not.toMatch(/Open http/);
    expect(fs.readFileSync(file).equals(Buffer.alloc(8192, 0x41))).toBe(true);
  }, 120_000);
});

describe('a full disk under the data dir', () => {
  let disk: SmallDisk | string;
  let data: string;
  beforeAll(() => {
    disk = mountSmallDisk(5);
  });
  afterAll(() => {
    if (typeof disk !== 'string') disk.unmount();
  });
  beforeEach((c) => {
    if (typeof disk === 'string') c.skip(disk);
    else {
      data = fs.mkdtempSync(path.join(disk.dir, 'data-'));
    }
  });
  afterEach(() => {
    if (typeof disk === 'string') return;
    disk.free();
    fs.rmSync(data, { recursive: true, force: true });
  });
  const small = () => disk as SmallDisk;

  it('a migration whose backup finds no room does not run, says so, and runs once space returns', () => {
    const file = path.join(data, DB_FILE_NAME);
    oldDatabase(file, 300, 2000);
    small().fill(64 * 1024);
    let err: unknown;
    try {
      openConnection(file).close();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DiskFullError);
    expect((err as Error).message).toMatch(
      new RegExp(`^The backup of the database before its migration to schema version ${SCHEMA_VERSION} could not be written: the disk holding Clamp's data dir \\(${data}\\) is full \\((SQLITE_FULL|ENOSPC|database or disk is full)\\)\\. Nothing already stored was changed\\. The migration did not run`),
    );
    expect(versionOf(file)).toBe(OLD);
    expect(fs.readdirSync(path.join(data, 'backups'))).toEqual([]);
    small().free();
    const db = openConnection(file);
    expect(integrity(db)).toBe('ok');
    expect((db.prepare('SELECT COUNT(*) AS n FROM settings').get() as { n: number }).n).toBe(300);
    db.close();
    expect(versionOf(file)).toBe(SCHEMA_VERSION);
    expect(listBackups(data)).toHaveLength(1);
  });

  it("a session's save fails as a whole; what was stored stays readable and the next save after space returns goes through", () => {
    const db = openConnection(path.join(data, DB_FILE_NAME));
    const s = createSession(db, { workspace: '/w' });
    const first = [user('m1', 'hello'), user('m2', 'earlier answer')];
    saveMessages(db, s.id, first);
    small().fill();
    const big = [...first, user('m3', 'y'.repeat(2 * 1024 * 1024))];
    let err: unknown;
    try {
      saveMessages(db, s.id, big);
    } catch (e) {
      err = e;
    }
    expect(isDiskFull(err)).toBe(true);
    expect(loadMessages(db, s.id)).toEqual(first);
    expect(integrity(db)).toBe('ok');
    small().free();
    saveMessages(db, s.id, big);
    expect(loadMessages(db, s.id).map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
    expect(integrity(db)).toBe('ok');
    db.close();
  });

  it("the exit clamp's spill says the disk is full and leaves no partial file; with room again it spills", () => {
    small().fill();
    const r = clampResult({ status: 'ok', output: 'z'.repeat(200_000), truncation: null }, 2000, data, 'big');
    expect(r.truncation?.spillPath).toBeUndefined();
    expect(r.output).toContain(`The full text could not be written: the disk holding Clamp's data dir (${data}) is full (ENOSPC). Nothing already stored was changed.`);
    expect(r.output).toContain('Narrow the request to see the rest.]');
    expect(fs.readdirSync(path.join(data, 'spill'))).toEqual([]);
    small().free();
    const again = clampResult({ status: 'ok', output: 'z'.repeat(200_000), truncation: null }, 2000, data, 'big');
    expect(fs.statSync(again.truncation!.spillPath!).size).toBe(200_000);
  });
});
