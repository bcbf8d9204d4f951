import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIRECT_AFTER_BYTES, DIRECT_BLOCK_BYTES, DIRECT_IDLE_FLUSH_MS, DIRECT_SLOW_WINDOW_BYTES, LogFile, logWriteTotals } from '../../lib/exec/log-file';
import { closeLog } from '../../lib/exec/run-logs';

let dir = '';
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-log-file-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Spy on fs.write: calls on any descriptor but the log's own (its O_DIRECT one) go to `direct`. */
function onDirectWrites(fd: number, direct: (cb: (err: NodeJS.ErrnoException | null, n?: number) => void, forward: () => void) => void) {
  const real = fs.write as (...a: unknown[]) => void;
  let calls = 0;
  vi.spyOn(fs, 'write').mockImplementation(((f: number, ...rest: unknown[]) => {
    if (f === fd) return real(f, ...rest);
    calls++;
    direct(rest[rest.length - 1] as (err: NodeJS.ErrnoException | null, n?: number) => void, () => real(f, ...rest));
  }) as typeof fs.write);
  return () => calls;
}

/** Whether this folder's file system takes O_DIRECT (tmpfs before Linux 6.6 does not): what the log should find too. */
function directWorks(): boolean {
  if (process.platform !== 'linux' || fs.constants.O_DIRECT === undefined) return false;
  const probe = path.join(dir, 'probe');
  try {
    fs.closeSync(fs.openSync(probe, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_DIRECT));
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

let n = 0;
function open(direct?: boolean) {
  const file = path.join(dir, `log-${n++}.log`);
  const fd = fs.openSync(file, 'w');
  return { file, fd, log: new LogFile(fd, { highWaterMark: 4 * 1024 * 1024, ...(direct === undefined ? {} : { direct }) }) };
}

/** Bytes no two offsets share a pattern of, so a block written at the wrong place or twice shows. */
function data(bytes: number): Buffer {
  const words = new Uint32Array(Math.ceil(bytes / 4));
  for (let i = 0; i < words.length; i++) words[i] = Math.imul(i + seed, 2654435761) >>> 0;
  seed += words.length;
  return Buffer.from(words.buffer, 0, bytes);
}
let seed = 1;

/** Write `all` in chunks of uneven sizes (as pipe reads come), honouring backpressure. */
async function feed(log: LogFile, all: Buffer): Promise<void> {
  const sizes = [65536, 1, 4095, 262144, 17, 100_000, 4096];
  for (let i = 0, k = 0; i < all.length; k++) {
    const len = Math.min(sizes[k % sizes.length]!, all.length - i);
    const ok = log.write(all.subarray(i, i + len));
    i += len;
    if (!ok) await new Promise((r) => log.once('drain', r));
  }
}

/** Feed `all` to the log and close it; the bytes it wrote direct meanwhile. */
async function writeAll(log: LogFile, all: Buffer): Promise<number> {
  const before = logWriteTotals().directBytes;
  await feed(log, all);
  await closeLog(log);
  return logWriteTotals().directBytes - before;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LogFile', () => {
  it('a small log is written through the cache, byte for byte', async () => {
    const { file, log } = open();
    const all = data(300_000);
    const direct = await writeAll(log, all);
    expect(direct).toBe(0);
    expect(fs.readFileSync(file).equals(all)).toBe(true);
  });

  it('past its first megabytes a big log goes past the page cache where the file system allows, and every byte lands in order', async () => {
    const { file, log } = open();
    // an odd length: the last block is partial and the switch falls inside a page
    const all = data(DIRECT_AFTER_BYTES + 5 * DIRECT_BLOCK_BYTES + 12_345);
    const direct = await writeAll(log, all);
    // whole blocks from the page the switch fell in to the last full block
    if (directWorks()) expect(direct).toBeGreaterThanOrEqual(4 * DIRECT_BLOCK_BYTES);
    else expect(direct).toBe(0);
    expect(fs.statSync(file).size).toBe(all.length);
    expect(fs.readFileSync(file).equals(all)).toBe(true);
  });

  it('what waits in a partial block reaches the file when the output pauses, and at a zero-length write', async () => {
    const { file, log } = open();
    const all = data(DIRECT_AFTER_BYTES + DIRECT_BLOCK_BYTES + 1000);
    await feed(log, all);
    // the output pauses: the tail of the last, partial block becomes readable
    await sleep(DIRECT_IDLE_FLUSH_MS * 5);
    expect(fs.statSync(file).size).toBe(all.length);
    const more = data(777);
    log.write(more);
    await new Promise<void>((r) => log.write(Buffer.alloc(0), () => r()));
    expect(fs.readFileSync(file).equals(Buffer.concat([all, more]))).toBe(true);
    await closeLog(log);
    expect(fs.readFileSync(file).equals(Buffer.concat([all, more]))).toBe(true);
  });

  it('direct: false keeps the whole log in the cache path', async () => {
    const { file, log } = open(false);
    const all = data(DIRECT_AFTER_BYTES + 2 * DIRECT_BLOCK_BYTES);
    const direct = await writeAll(log, all);
    expect(direct).toBe(0);
    expect(fs.readFileSync(file).equals(all)).toBe(true);
  });

  it('a direct write the file system refuses is written again through the cache, and the log stays there', async () => {
    if (!directWorks()) return; // nothing direct to refuse here: the test above already saw the cache path
    const { file, fd, log } = open();
    const refused = onDirectWrites(fd, (cb) => process.nextTick(() => cb(Object.assign(new Error('EINVAL: invalid argument, write'), { code: 'EINVAL' }))));
    const all = data(DIRECT_AFTER_BYTES + 6 * DIRECT_BLOCK_BYTES + 99);
    const direct = await writeAll(log, all);
    expect(refused()).toBe(1);
    expect(direct).toBe(0);
    expect(fs.readFileSync(file).equals(all)).toBe(true);
  });
});

describe('LogFile on a slow disk', () => {
  it('a disk far slower than a local one, that keeps the output waiting, sends the log back through the cache, every byte kept', async () => {
    if (!directWorks()) return;
    const { file, fd, log } = open();
    // 10 MiB/s: far below what a local disk takes
    const perBlockMs = (DIRECT_BLOCK_BYTES / (10 * 1024 * 1024)) * 1000;
    const sent = onDirectWrites(fd, (_cb, forward) => setTimeout(forward, perBlockMs));
    const window = DIRECT_SLOW_WINDOW_BYTES / DIRECT_BLOCK_BYTES;
    const all = data(DIRECT_AFTER_BYTES + 2.5 * DIRECT_SLOW_WINDOW_BYTES + 5);
    await feed(log, all);
    await closeLog(log);
    // it went direct, and left after one window of blocks (the ones still queued then went through the cache): far fewer than the output filled
    expect(sent()).toBeGreaterThanOrEqual(window - 6);
    expect(sent()).toBeLessThanOrEqual(window + 4);
    expect(fs.readFileSync(file).equals(all)).toBe(true);
  }, 20_000);
});
