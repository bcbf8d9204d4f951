import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A command's stdout and stderr as OS pipes (FIFOs) instead of the socket pair Node gives a child
 * for stdio 'pipe'. A command then sees what a shell pipeline gives it (a pipe: `/dev/stdout` can be
 * opened, as in a terminal), and writing into a pipe costs the command less than writing into a
 * socket: on 2 cores, a gigabyte of output moved about 12% faster. Node has no pipe(2), so the pipes
 * are named ones made by mkfifo, several at a time (one spawn serves FIFO_BATCH / 2 commands, and the
 * next batch is made in the background); each is opened at both ends and unlinked at once, so
 * nothing else can open it.
 */

/** FIFOs made per mkfifo call (two per command). */
export const FIFO_BATCH = 32;

export interface PipeEnds {
  /** our end: read it with readerOf() */
  read: number;
  /** the command's end, given as its stdout or stderr; close it in this process once the command is spawned */
  write: number;
}

let dir: string | null | undefined;
const made: string[] = [];

/** The private folder the FIFOs are made in; null when none can be made (then Clamp uses socket pairs). */
function fifoDir(): string | null {
  if (dir !== undefined) return dir;
  if (process.platform === 'win32') return (dir = null);
  sweepDead();
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `clamp-pipes-${process.pid}-`));
    fs.chmodSync(dir, 0o700);
    const made = dir;
    process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
  } catch {
    dir = null;
  }
  return dir;
}

/** The pipe folders of processes that are gone (killed before their exit hook ran) are removed. */
function sweepDead(): void {
  let names: string[] = [];
  try {
    names = fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('clamp-pipes-'));
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(n.split('-')[2]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue; // still running (or not ours to signal): its folder stays
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') continue;
    }
    try {
      fs.rmSync(path.join(os.tmpdir(), n), { recursive: true, force: true });
    } catch {
      // another user's (a root server's, seen by an unprivileged one): not ours to remove
    }
  }
}

function batchNames(d: string): string[] {
  return Array.from({ length: FIFO_BATCH }, () => path.join(d, crypto.randomBytes(6).toString('hex')));
}

let refilling = false;

/** Make the next batch in the background, so a command seldom waits for mkfifo (a synchronous spawn on the event loop). */
function refill(d: string): void {
  if (refilling) return;
  refilling = true;
  const names = batchNames(d);
  const child = spawn('mkfifo', ['-m', '600', ...names], { stdio: 'ignore' });
  child.on('error', () => (refilling = false));
  child.on('exit', (code) => {
    refilling = false;
    if (code === 0 && dir === d) made.push(...names);
    else for (const n of names) fs.rmSync(n, { force: true });
  });
}

function nextFifo(): string | null {
  const d = fifoDir();
  if (!d) return null;
  if (made.length === 0) {
    const names = batchNames(d);
    const r = spawnSync('mkfifo', ['-m', '600', ...names], { stdio: 'ignore' });
    if (r.status !== 0) {
      // no mkfifo on this machine: socket pairs from now on
      dir = null;
      return null;
    }
    made.push(...names);
  }
  const next = made.pop()!;
  if (made.length < FIFO_BATCH / 2) refill(d);
  return next;
}

/** One pipe, both ends open and its name already gone; null when pipes cannot be made here. */
export function openPipe(): PipeEnds | null {
  const file = nextFifo();
  if (!file) return null;
  let read: number | undefined;
  try {
    // the read end first, without blocking; then the write end opens at once (it has a reader)
    read = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const write = fs.openSync(file, fs.constants.O_WRONLY);
    return { read, write };
  } catch {
    if (read !== undefined) fs.closeSync(read);
    return null;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * One pipe whose read end blocks (for a child that must wait on it: bubblewrap's --block-fd), or null. The read
 * end is opened again through /proc/self/fd, without O_NONBLOCK (a writer is open, so that open does not wait).
 */
export function openBlockingPipe(): PipeEnds | null {
  const p = openPipe();
  if (!p) return null;
  try {
    const read = fs.openSync(`/proc/self/fd/${p.read}`, fs.constants.O_RDONLY);
    closeFd(p.read);
    return { read, write: p.write };
  } catch {
    [p.read, p.write].forEach(closeFd);
    return null;
  }
}

/** A command's two pipes, or null (both or neither: the caller then uses socket pairs for both). */
export function openPipes(): { stdout: PipeEnds; stderr: PipeEnds } | null {
  const stdout = openPipe();
  const stderr = stdout && openPipe();
  if (stdout && stderr) return { stdout, stderr };
  if (stdout) [stdout.read, stdout.write].forEach(closeFd);
  return null;
}

/** What one read of a quiet pipe can bring (its default capacity), and of a widened one (CHATTY_PIPE_BYTES). */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * A readable stream of a pipe's read end (libuv's pipe handle: no thread pool, ends when every writer
 * closed). Every read lands in the same buffer, and 'data' hands out a view of it that is valid only
 * during the call: a listener copies what it keeps. A buffer per read (Node's default) made a
 * gigabyte of output a gigabyte of garbage, which grew the process by ~40 MiB until collected and
 * cost the collector time; one buffer makes it none. Once the pipe has carried CHATTY_AFTER_BYTES
 * it gets a larger capacity (widenPipe) and the buffer grows to match.
 */
export function readerOf(fd: number): net.Socket {
  let buf = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  let seen = 0;
  const reader: net.Socket = new net.Socket({
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer: () => buf,
      callback: (n: number) => {
        const chunk = buf.subarray(0, n);
        if (seen < CHATTY_AFTER_BYTES && (seen += n) >= CHATTY_AFTER_BYTES) {
          widenPipe(fd);
          // the next read may bring the widened capacity; this chunk still lives in the old buffer
          buf = Buffer.allocUnsafeSlow(CHATTY_PIPE_BYTES);
        }
        reader.emit('data', chunk);
      },
    },
  } as net.SocketConstructorOpts & { onread: unknown });
  return reader;
}

/** Close a file descriptor, ignoring one that is already closed. */
export function closeFd(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/** Linux's fcntl command for a pipe's capacity. */
const F_SETPIPE_SZ = 1031;
/** The capacity a chatty command's pipe gets (the default is 64 KiB). */
const CHATTY_PIPE_BYTES = 256 * 1024;
/** Bytes a stream prints before its pipe is widened. */
const CHATTY_AFTER_BYTES = 1024 * 1024;
let noPerl = false;

/**
 * Give a pipe a larger buffer, so a command printing fast writes ahead while Clamp is busy instead of
 * waiting for each 64 KiB to be read (a gigabyte moved 10–15% faster). Linux only, best effort and in
 * the background: Node has no fcntl, so perl (in every Debian) sets it on its copy of the pipe's end.
 * Only for commands that have printed CHATTY_AFTER_BYTES: the capacity counts toward a per-user limit.
 */
function widenPipe(fd: number, bytes = CHATTY_PIPE_BYTES): void {
  if (process.platform !== 'linux' || noPerl) return;
  try {
    // the pipe goes to perl as fd 3, not as a stdio fd: a child's stdio is made blocking, and the
    // flag belongs to the open file Clamp reads too (its reads would then block the event loop)
    const script = `open(my $p, '<&=', 3) or exit 1; fcntl($p, ${F_SETPIPE_SZ}, ${bytes})`;
    const child = spawn('perl', ['-e', script], { stdio: ['ignore', 'ignore', 'ignore', fd] });
    child.on('error', () => (noPerl = true));
    child.unref();
  } catch {
    noPerl = true;
  }
}
