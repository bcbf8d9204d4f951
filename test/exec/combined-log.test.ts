import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runRoot } from './run-root';
import { batchedWrite, flushBatch, PipeGate } from '../../lib/exec/log-gate';
import { runCommand, type RunResult } from '../../lib/exec/runner';

const run = runRoot('clamp-combined-');
const opts = run.opts;

/** The files this process still has open (Linux: /proc/self/fd). */
function openFiles(): string[] {
  return fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [fs.readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

function expectLogsClosed(r: RunResult) {
  const open = openFiles();
  for (const file of [r.logPaths.stdout, r.logPaths.stderr, r.combinedLogPath]) expect(open).not.toContain(file);
}

describe('the combined log', () => {
  it('holds both streams in the order they arrived, next to the per-stream logs, all closed at the end', async () => {
    // the pauses make the order of arrival known (two pipes read in the same tick could come in either order)
    const r = await runCommand(opts('for i in $(seq 1 10); do echo "out $i"; sleep 0.05; echo "err $i" >&2; sleep 0.05; done'));
    expect(r.exitCode).toBe(0);
    expect(r.combinedLogPath).toBe(r.logPaths.stdout.replace(/\.stdout\.log$/, '.log'));
    const want = Array.from({ length: 10 }, (_, i) => `out ${i + 1}\nerr ${i + 1}\n`).join('');
    expect(fs.readFileSync(r.combinedLogPath, 'utf8')).toBe(want);
    expect(fs.readFileSync(r.logPaths.stdout, 'utf8')).toBe(Array.from({ length: 10 }, (_, i) => `out ${i + 1}\n`).join(''));
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe(Array.from({ length: 10 }, (_, i) => `err ${i + 1}\n`).join(''));
    expectLogsClosed(r);
  });

  it('keeps every byte of big alternating writes, in order, with no prefixes', async () => {
    // 300 KB per burst (more than a pipe holds), a pause between bursts so their order is known
    const burst = (ch: string, to: string) => `head -c 300000 /dev/zero | tr "\\0" ${ch} ${to}; sleep 0.2`;
    const r = await runCommand(opts([burst('o', ''), burst('e', '>&2'), burst('p', ''), burst('f', '>&2')].join('; ')));
    expect(r.exitCode).toBe(0);
    const log = fs.readFileSync(r.combinedLogPath, 'latin1');
    expect(log.length).toBe(1_200_000);
    expect(log).toBe('o'.repeat(300_000) + 'e'.repeat(300_000) + 'p'.repeat(300_000) + 'f'.repeat(300_000));
    expectLogsClosed(r);
  });

  it('200 MB on both streams at once leaves memory flat and all three logs complete', async () => {
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const r = await runCommand(opts('yes o | head -c 100000000 & yes e | head -c 100000000 >&2; wait', { captureMaxBytes: 256 * 1024 }));
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.totalBytes).toBe(100_000_000);
    expect(r.stderr.totalBytes).toBe(100_000_000);
    expect(fs.statSync(r.logPaths.stdout).size).toBe(100_000_000);
    expect(fs.statSync(r.logPaths.stderr).size).toBe(100_000_000);
    expect(fs.statSync(r.combinedLogPath).size).toBe(200_000_000);
    expect(peak - rss0).toBeLessThan(64 * 1024 * 1024);
    expectLogsClosed(r);
    for (const f of [r.logPaths.stdout, r.logPaths.stderr, r.combinedLogPath]) fs.rmSync(f);
  }, 60_000);

  it('both streams at once, many megabytes each: every log holds exactly the bytes printed, the capture their ends', async () => {
    const n = 600_000;
    const expectOut = Buffer.from(Array.from({ length: n }, (_, i) => `${i + 1}\n`).join(''));
    // stderr in another alphabet (digits as letters, ";" for the newline), so the combined log can be split back by byte
    const expectErr = Buffer.from(expectOut.map((c) => (c === 0x0a ? 0x3b : c + 0x31)));
    // printed at the same time, so the pipes' chunks interleave in the combined log
    const r = await runCommand(opts(`seq 1 ${n} & seq 1 ${n} | tr '0-9\\n' 'a-j;' >&2; wait`, { captureMaxBytes: 256 * 1024 }));
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(r.logPaths.stdout).equals(expectOut)).toBe(true);
    expect(fs.readFileSync(r.logPaths.stderr).equals(expectErr)).toBe(true);
    const combined = fs.readFileSync(r.combinedLogPath);
    expect(combined.length).toBe(expectOut.length + expectErr.length);
    const [out, err] = [Buffer.alloc(combined.length), Buffer.alloc(combined.length)];
    let [o, e] = [0, 0];
    for (const b of combined) {
      if (b === 0x0a || b < 0x3a) out[o++] = b;
      else err[e++] = b;
    }
    expect(out.subarray(0, o).equals(expectOut)).toBe(true);
    expect(err.subarray(0, e).equals(expectErr)).toBe(true);
    for (const [snap, want] of [[r.stdout, expectOut], [r.stderr, expectErr]] as const) {
      expect(snap.totalBytes).toBe(want.length);
      expect(snap.head.equals(want.subarray(0, snap.head.length))).toBe(true);
      expect(snap.tail.equals(want.subarray(want.length - snap.tail.length))).toBe(true);
      expect(snap.head.length + snap.tail.length).toBe(256 * 1024);
    }
    expect(r.stdout.totalLines).toBe(n);
    expect(r.stderr.totalLines).toBe(1);
    expectLogsClosed(r);
  }, 60_000);

  it('one stream only: the combined log is that stream\'s log itself (a hard link), so no byte is written twice', async () => {
    const r = await runCommand(opts('head -c 3000000 /dev/zero | tr "\\0" x'));
    expect(r.exitCode).toBe(0);
    expect(fs.statSync(r.combinedLogPath).ino).toBe(fs.statSync(r.logPaths.stdout).ino);
    expect(fs.readFileSync(r.combinedLogPath, 'latin1')).toBe('x'.repeat(3_000_000));
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('');
    const e = await runCommand(opts('echo only-err >&2'));
    expect(fs.statSync(e.combinedLogPath).ino).toBe(fs.statSync(e.logPaths.stderr).ino);
    expect(fs.readFileSync(e.combinedLogPath, 'utf8')).toBe('only-err\n');
    expect(fs.readFileSync(e.logPaths.stdout, 'utf8')).toBe('');
    expect(fs.readdirSync(path.dirname(r.combinedLogPath)).filter((f) => /\.(part|link)$/.test(f))).toEqual([]);
    expectLogsClosed(r);
    expectLogsClosed(e);
  });

  it('the second stream speaking after megabytes of the first: the combined log becomes its own file holding both in order', async () => {
    const r = await runCommand(opts('head -c 5000000 /dev/zero | tr "\\0" o; sleep 0.1; echo late-err >&2; sleep 0.1; echo tail-out'));
    expect(r.exitCode).toBe(0);
    expect(fs.statSync(r.combinedLogPath).ino).not.toBe(fs.statSync(r.logPaths.stdout).ino);
    expect(fs.readFileSync(r.combinedLogPath, 'latin1')).toBe(`${'o'.repeat(5_000_000)}late-err\ntail-out\n`);
    expect(fs.readFileSync(r.logPaths.stdout, 'latin1')).toBe(`${'o'.repeat(5_000_000)}tail-out\n`);
    expect(fs.readFileSync(r.logPaths.stderr, 'utf8')).toBe('late-err\n');
    expect(fs.readdirSync(path.dirname(r.combinedLogPath)).filter((f) => /\.(part|link)$/.test(f))).toEqual([]);
    expectLogsClosed(r);
  });

  it('a command that cannot start leaves no log open', async () => {
    const r = await runCommand(opts('echo hi', { cwd: path.join(run.dir, 'missing') }));
    expect(r.spawnError).toMatch(/ENOENT/);
    expect(r.combinedLogPath.endsWith('.log')).toBe(true);
    expectLogsClosed(r);
  });
});

/** A log whose write() answers "full" until drained by hand. */
class FakeLog extends EventEmitter {
  full = false;
  corked = 0;
  chunks: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return !this.full;
  }
  cork() {
    this.corked++;
  }
  uncork() {
    this.corked--;
  }
}

class FakePipe {
  paused = false;
  pause() {
    this.paused = true;
    return this;
  }
  resume() {
    this.paused = false;
    return this;
  }
}

describe('PipeGate', () => {
  const setup = () => {
    const pipe = new FakePipe();
    const gate = new PipeGate(pipe as unknown as Readable);
    const own = new FakeLog();
    const both = new FakeLog();
    const w = (log: FakeLog, s: string) => gate.write(log as unknown as fs.WriteStream, Buffer.from(s));
    return { pipe, gate, own, both, w };
  };

  it('pauses while any log is full and resumes only when all have drained', () => {
    const { pipe, own, both, w } = setup();
    w(own, 'a');
    w(both, 'a');
    expect(pipe.paused).toBe(false);
    own.full = both.full = true;
    w(own, 'b');
    w(both, 'b');
    expect(pipe.paused).toBe(true);
    // a full log gets what its batch held at once
    expect([own.corked, both.corked]).toEqual([0, 0]);
    own.full = false;
    own.emit('drain');
    expect(pipe.paused).toBe(true); // the combined log is still full
    both.full = false;
    both.emit('drain');
    expect(pipe.paused).toBe(false);
    expect(both.listenerCount('drain')).toBe(0);
  });

  it('waits once per full log, and a log that dies releases the pipe', () => {
    const { pipe, gate, both, w } = setup();
    both.full = true;
    w(both, 'a');
    w(both, 'b'); // a chunk already in flight when the pipe paused
    expect(both.listenerCount('drain')).toBe(1);
    gate.release(both as unknown as fs.WriteStream);
    expect(pipe.paused).toBe(false);
    gate.write(null, Buffer.from('c'));
    expect(pipe.paused).toBe(false);
  });
});

describe('log batches', () => {
  it('a burst of writes reaches the file in one write, after the batch time or on flush, byte for byte', async () => {
    const file = path.join(run.dir, 'batch.log');
    const log = fs.createWriteStream(file, { fd: fs.openSync(file, 'w') });
    let calls = 0;
    // each write's completion: the file is read once the write it counted has landed (it runs on libuv's pool)
    let landed: Promise<void> = Promise.resolve();
    const counted = (cb: (e?: Error | null) => void) => {
      calls++;
      let done!: () => void;
      landed = new Promise<void>((r) => (done = r));
      return (e?: Error | null) => (done(), cb(e));
    };
    const writev = log._writev!.bind(log);
    const write = log._write.bind(log);
    log._writev = (chunks, cb) => writev(chunks, counted(cb));
    log._write = (chunk, enc, cb) => write(chunk, enc, counted(cb));
    const pieces = Array.from({ length: 200 }, (_, i) => Buffer.from(`piece ${i}\n`));
    for (const p of pieces) expect(batchedWrite(log, p)).toBe(true);
    expect(calls).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(1);
    await landed;
    expect(fs.readFileSync(file).equals(Buffer.concat(pieces))).toBe(true);
    batchedWrite(log, Buffer.from('last\n'));
    flushBatch(log);
    await new Promise<void>((r) => log.end(() => r()));
    expect(calls).toBe(2);
    expect(fs.readFileSync(file, 'utf8').endsWith('piece 199\nlast\n')).toBe(true);
  });

  it('a batch goes out once it holds half a megabyte, without waiting for its time', () => {
    const log = new FakeLog();
    const w = (n: number) => batchedWrite(log as unknown as fs.WriteStream, Buffer.alloc(n));
    w(300_000);
    expect(log.corked).toBe(1);
    w(300_000);
    expect(log.corked).toBe(0);
    w(10);
    expect(log.corked).toBe(1);
    flushBatch(log as unknown as fs.WriteStream);
    expect(log.corked).toBe(0);
  });
});
