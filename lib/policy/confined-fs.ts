/**
 * File access that stays confined while the workspace changes under it. A path checked a moment ago (dispatch
 * resolves and confines every path argument) may lead elsewhere by the time a tool opens it: a command can swap a
 * folder for a link to outside between the check and the open. So a tool never trusts a path twice. It opens the
 * thing itself, without following a link in the last name and without reading or writing anything yet (an O_PATH
 * descriptor: opening it runs no device's open and needs no permission on the file), asks the kernel where what it
 * opened really is (`/proc/self/fd/<fd>`), and only then reads, lists or writes through that descriptor
 * (`/proc/self/fd/<fd>` reopens the very file; `/proc/self/fd/<fd>/<name>` reaches one entry of the very folder).
 * Names appended to such a path are single entries, never '..'. This file holds those primitives and the walks'
 * use of them; confined-io.ts reads and writes the paths dispatch confined.
 *
 * Linux only (the sandbox is too): elsewhere the real path is read back with realpath after opening, which narrows
 * the window but does not close it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from './workspace';

const LINUX = process.platform === 'linux';
/** O_PATH (Linux): a descriptor that only names a file. Node does not export the constant. */
const O_PATH = LINUX ? 0o10000000 : 0;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;
const O_NOCTTY = fs.constants.O_NOCTTY ?? 0;
/** Reopening a pinned file (through its /proc/self/fd path) to read it: a pipe does not block, a terminal does not become ours. */
export const REOPEN_FLAGS = O_RDONLY | O_NONBLOCK | O_NOCTTY;
/** Reading one entry of a pinned folder by name: a link there is not followed. */
export const READ_FLAGS = REOPEN_FLAGS | O_NOFOLLOW;
/** Making a new file by name in a pinned folder: never through a link, never over an existing file. */
export const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** A file or folder held open without reading it: what it is, where it really is, and a path that reaches it. */
export interface Pin {
  fd: number;
  /** where the opened file really is, as the kernel names it */
  real: string;
  stat: fs.Stats;
  /** reaches this very file (or, with `/<name>` appended, one entry of this very folder) without resolving a name again */
  via: string;
  close(): void;
}

let fdDir: string | undefined;
/**
 * The folder of this process's descriptors: `/proc/<pid>/fd/` when /proc/self is this process (a path walk
 * that skips the /proc/self link: grep opens every file through it), else `/proc/self/fd/`.
 */
export function procFdDir(): string {
  if (fdDir === undefined) {
    let self = '';
    try {
      self = fs.readlinkSync('/proc/self');
    } catch {
      // no /proc/self link to read: use it as it is
    }
    fdDir = self === String(process.pid) ? `/proc/${process.pid}/fd/` : '/proc/self/fd/';
  }
  return fdDir;
}

/** The real path of an open descriptor. */
export function fdRealPath(fd: number): string {
  return LINUX ? fs.readlinkSync(`${procFdDir()}${fd}`) : '';
}

/** Throws unless name is one entry of a folder (not empty, '.', '..', and without '/'). */
export function assertEntryName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new Error(`not a single entry name: ${JSON.stringify(name)}`);
  }
}

const missing = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

function pinFd(fd: number, fallbackReal: string): Pin {
  let closed = false;
  try {
    const stat = fs.fstatSync(fd);
    const real = LINUX ? fdRealPath(fd) : fs.realpathSync.native(fallbackReal);
    return {
      fd,
      real,
      stat,
      via: LINUX ? `${procFdDir()}${fd}` : real,
      close() {
        if (closed) return;
        closed = true;
        fs.closeSync(fd);
      },
    };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/**
 * Open what `p` names without following a link in its last name (a link comes back as the link itself); links
 * in the folders above it are followed, so the caller checks `real`. null when nothing is there.
 */
export function pin(p: string, kind?: 'dir'): Pin | null {
  let fd: number;
  try {
    fd = fs.openSync(p, (LINUX ? O_PATH : O_RDONLY | O_NONBLOCK | O_NOCTTY) | O_NOFOLLOW | (kind === 'dir' ? O_DIRECTORY : 0));
  } catch (err) {
    if (missing(err)) return null;
    // a link where a folder was asked for
    if (kind === 'dir' && (err as NodeJS.ErrnoException).code === 'ELOOP') return null;
    throw err;
  }
  return pinFd(fd, p);
}

/** Open one entry of a pinned folder, following no link at all; null when nothing is there. */
export function pinChild(dir: Pin, name: string, kind?: 'dir'): Pin | null {
  assertEntryName(name);
  return pin(`${dir.via}/${name}`, kind);
}

/** Open a pinned regular file for reading (the pin says it is one); the caller closes the descriptor. */
export function openPinned(p: Pin): number {
  // `via` is /proc/self/fd/<fd>, itself a link: following it is the point (O_NOFOLLOW would refuse it)
  return fs.openSync(p.via, REOPEN_FLAGS);
}

/** True when a pinned path's real path is `expected` exactly (a walk that follows no link expects that). */
export function pinnedAt(p: Pin, expected: string): boolean {
  return p.real === expected;
}

/**
 * The entries of the folder at `abs`, which a walk reached without following links, so its real path is `abs`
 * itself; null when it cannot be listed or is no longer there (a link or another folder in its place).
 */
export function listExact(abs: string): fs.Dirent[] | null {
  if (!LINUX) {
    const held = pin(abs, 'dir');
    if (!held) return null;
    held.close();
    return held.real === abs ? fs.readdirSync(abs, { withFileTypes: true }) : null;
  }
  let fd: number;
  try {
    fd = fs.openSync(abs, O_PATH | O_NOFOLLOW | O_DIRECTORY);
  } catch {
    return null;
  }
  try {
    return fdRealPath(fd) === abs ? fs.readdirSync(`${procFdDir()}${fd}`, { withFileTypes: true }) : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** A folder held open for reading its entries by name (see holdFolder). */
export interface HeldFolder {
  abs: string;
  /** -1 when the folder could not be held (missing, or not where its path says) */
  fd: number;
  /** `/proc/self/fd/<fd>/` (procFdDir): an entry's name appended reaches that entry of this very folder */
  prefix: string;
}

/**
 * Hold the folder at `abs`, reached by a walk that follows no link, so that its files can be opened by name
 * without resolving its path again (grep reads a folder's files through one hold: one check per folder, not
 * per file). fd -1 when it is not there or its real path is not `abs` (a link put in its place).
 */
export function holdFolder(abs: string): HeldFolder {
  if (!LINUX) return { abs, fd: -1, prefix: '' };
  let fd: number;
  try {
    fd = fs.openSync(abs, O_PATH | O_NOFOLLOW | O_DIRECTORY);
  } catch {
    return { abs, fd: -1, prefix: '' };
  }
  try {
    if (fdRealPath(fd) === abs) return { abs, fd, prefix: `${procFdDir()}${fd}/` };
  } catch {
    // fall through: not held
  }
  fs.closeSync(fd);
  return { abs, fd: -1, prefix: '' };
}

/** Let go of a held folder. */
export function releaseFolder(h: HeldFolder | null | undefined): void {
  if (h && h.fd >= 0) fs.closeSync(h.fd);
}

/**
 * Open the file `abs` (a walk's file: `<folder>/<name>`) for reading through its held folder, following no
 * link; `hold` is the caller's cache of the last folder, replaced when abs lies in another. -1 when it fails.
 */
export function openInHeldFolder(abs: string, hold: { dir: HeldFolder | null }): number {
  if (!LINUX) {
    try {
      return fs.openSync(abs, READ_FLAGS);
    } catch {
      return -1;
    }
  }
  const slash = abs.lastIndexOf('/');
  const dirAbs = slash <= 0 ? '/' : abs.slice(0, slash);
  if (hold.dir?.abs !== dirAbs) {
    releaseFolder(hold.dir);
    hold.dir = holdFolder(dirAbs);
  }
  if (hold.dir.fd < 0) return -1;
  try {
    return fs.openSync(hold.dir.prefix + abs.slice(slash + 1), READ_FLAGS);
  } catch {
    return -1;
  }
}

/**
 * The text of the regular file at `abs` when what it opens (links followed) lies inside `root`; undefined
 * otherwise (missing, not a file, or leading out). For files read on the side, such as ignore files.
 */
export function readTextInside(root: string, abs: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, LINUX ? O_PATH : O_RDONLY);
  } catch {
    return undefined;
  }
  let held: Pin;
  try {
    held = pinFd(fd, abs);
  } catch {
    return undefined;
  }
  try {
    if (!isInside(root, held.real) || !held.stat.isFile()) return undefined;
    const rd = openPinned(held);
    try {
      return fs.readFileSync(rd, 'utf8');
    } finally {
      fs.closeSync(rd);
    }
  } catch {
    return undefined;
  } finally {
    held.close();
  }
}

/** lstat of `abs` (no link followed anywhere below root); null when it is missing or the way to it holds a link. */
export function lstatBeneath(root: string, abs: string): fs.Stats | null {
  if (!isInside(root, abs) || abs === root) return null;
  let held: Pin | null;
  try {
    held = pin(path.dirname(abs), 'dir');
  } catch {
    return null;
  }
  if (!held) return null;
  try {
    if (!pinnedAt(held, path.dirname(abs))) return null;
    return fs.lstatSync(`${held.via}/${path.basename(abs)}`);
  } catch {
    return null;
  } finally {
    held.close();
  }
}

