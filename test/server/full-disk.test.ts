import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, turnPosition, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { mountSmallDisk, type SmallDisk } from '../store/small-disk';
import { readChunks, startClamp, stopBed, type RunningClamp } from './harness';

/**
 * The data dir on a 5 MB tmpfs: a command printing 20 MB, a person's message with an attachment, a turn's save and a
 * change's checkpoint each meet the full disk with words that name it; the server keeps answering, the database stays
 * sound with everything stored before, and once the filler is removed the next turn saves normally.
 */

const disk = mountSmallDisk(5);
let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
let dataDir: string;
let sessionId: string;

const BIG_COMMAND = "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo printed";

/** "big": the 20 MB command, then a word; "write": a write_file (its checkpoint first); else a short answer naming the text. */
function reply(req: FakeRequest, index: number): FakeReply {
  const { text, results } = turnPosition(req);
  if (text.includes('run big') && results === 0) return { toolCalls: [{ name: 'run_command', args: { command: BIG_COMMAND }, id: `call_big_${index}` }] };
  if (text.includes('please write') && results === 0) return { toolCalls: [{ name: 'write_file', args: { path: 'made.txt', content: 'made\n' }, id: `call_write_${index}` }] };
  return { text: `Answer ${index} to ${text.slice(0, 20)}.` };
}

const small = () => disk as SmallDisk;
const toolText = (req: FakeRequest) => req.body.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

function chat(text: string, files?: unknown[]): Promise<Response> {
  return clamp.api('/api/chat', { json: { sessionId, message: { id: `m-${Math.random().toString(36).slice(2)}`, text, ...(files ? { files } : {}) } } });
}

/** The stored conversation and PRAGMA integrity_check, read by a connection of our own (as another process would). */
function stored(): { texts: string; ids: string[]; integrity: unknown } {
  const db = new Database(path.join(dataDir, 'clamp.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT id, json FROM messages WHERE session_id = ? ORDER BY position').all(sessionId) as { id: string; json: string }[];
    return { texts: rows.map((r) => r.json).join('\n'), ids: rows.map((r) => r.id), integrity: db.pragma('integrity_check', { simple: true }) };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  if (typeof disk === 'string') return;
  ws = tempWorkspace('clamp-full-disk-');
  fs.writeFileSync(path.join(ws.workspace, 'keep.txt'), 'kept\n');
  dataDir = path.join(small().dir, 'data');
  fake = await startFakeOpenAI(reply);
  clamp = await startClamp({
    CLAMP_WORKSPACE: ws.workspace,
    CLAMP_DATA_DIR: dataDir,
    CLAMP_MODEL: 'openai-compatible:fake-coder',
    CLAMP_BASE_URL: fake.url,
    CLAMP_MODE: 'auto',
    CLAMP_DIAGNOSTICS: '0',
  });
  const r = await clamp.api('/api/sessions', { json: {} });
  sessionId = ((await r.json()) as { session: { id: string } }).session.id;
}, 600_000);

afterAll(async () => {
  if (typeof disk === 'string') return;
  await stopBed(clamp, fake, ws);
  small().unmount();
});

describe.skipIf(typeof disk === 'string')(`the data dir on a 5 MB disk${typeof disk === 'string' ? ` (skipped: ${disk})` : ''}`, () => {
  it('a 20 MB command output, a turn save and a message with an attachment meet the full disk with clear words; space back, the next turn saves', async () => {
    // a turn stored before the disk fills
    expect((await readChunks(await chat('first hello'))).at(-1)).toMatchObject({ type: 'finish' });
    const before = stored();
    expect(before.ids).toHaveLength(2);

    // the command's logs take the last megabyte: its result says so, naming the disk
    small().fill(1024 * 1024);
    const big = await readChunks(await chat('run big'));
    const afterCommand = fake.requests.find((r) => turnPosition(r).text.includes('run big') && turnPosition(r).results === 1);
    expect(afterCommand).toBeDefined();
    const result = toolText(afterCommand!);
    expect(result).toMatch(/The log file could not be written \(ENOSPC[^)]*\): the disk holding \S+ is full — free space there; rerun with the output redirected/);
    expect(result).toContain('printed');
    // the step's save found no room either: the page was told so, naming the data dir (one notice, replaced in place)
    const notices = big.filter((c) => c.type === 'data-notice' && (c as { id?: string }).id === 'save-failed');
    expect(notices.length).toBeGreaterThan(0);
    for (const n of notices) {
      expect((n as { data: { message: string } }).data.message).toMatch(new RegExp(`^This turn's save could not be written: the disk holding Clamp's data dir \\(${dataDir}\\) is full \\(`));
    }
    expect(big.at(-1)).toMatchObject({ type: 'finish' });

    // the server keeps answering
    expect((await clamp.api('/api/sessions')).status).toBe(200);

    // the disk full to the last byte: a message with an attachment is refused whole, 507, naming the disk
    small().fill();
    const attachment = { name: 'notes.txt', mediaType: 'text/plain', url: `data:text/plain;base64,${Buffer.from('n'.repeat(300_000)).toString('base64')}` };
    const refused = await chat(`attached ${'w'.repeat(60_000)}`, [attachment]);
    expect(refused.status).toBe(507);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      new RegExp(`^Your message could not be written: the disk holding Clamp's data dir \\(${dataDir}\\) is full \\((SQLITE_FULL|ENOSPC|database or disk is full)\\)\\. Nothing already stored was changed\\. Free space on that disk`),
    );

    // a change whose checkpoint finds no room is not run and the model reads why (test/checkpoints/full-disk.test.ts);
    // here the message itself usually finds no room first
    const write = await chat('please write');
    if (write.status === 200) {
      await readChunks(write);
      const afterWrite = fake.requests.find((r) => turnPosition(r).text.includes('please write') && turnPosition(r).results === 1);
      expect(toolText(afterWrite!)).toMatch(/The checkpoint before write_file could not be written: the disk holding Clamp's data dir \(.*\) is full \(.*\)\. Nothing already stored was changed\. write_file was not run, so nothing in the workspace changed\./);
      expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(false);
    } else {
      // the person's message itself found no room
      expect(write.status).toBe(507);
    }

    // nothing stored before was lost or damaged
    const during = stored();
    expect(during.integrity).toBe('ok');
    expect(during.ids.slice(0, 2)).toEqual(before.ids);
    expect(during.texts).not.toContain('attached ');

    // space returns: the next turn saves normally
    small().free();
    const again = await readChunks(await chat('after space returned'));
    expect(again.at(-1)).toMatchObject({ type: 'finish' });
    expect(again.some((c) => c.type === 'data-notice')).toBe(false);
    const after = stored();
    expect(after.integrity).toBe('ok');
    expect(after.ids.slice(0, 2)).toEqual(before.ids);
    expect(after.texts).toContain('after space returned');
    expect(after.texts).toMatch(/Answer \d+ to after space returned\./);
  }, 180_000);
});
