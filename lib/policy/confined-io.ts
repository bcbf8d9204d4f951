/**
 * Reading and writing the paths dispatch confined (a ResolvedPath: the path, and the root it was confined to),
 * through what is opened and checked now rather than the path checked before (confined-fs.ts says why). A write
 * makes a temporary file in the checked folder and renames it over the name there; missing folders are made one
 * at a time below a checked one; .git is refused on the real path, where the write would land.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ResolvedPath } from '../contract/paths';
import { isInside, PathPolicyError } from './workspace';
import { assertEntryName, CREATE_FLAGS, openPinned, pin, pinChild, type Pin } from './confined-fs';

/** The refusal for a path that leads outside its root now, though it did not when dispatch checked it. */
export function ledOutError(rel: string, real: string, root: string, what: 'read' | 'write' | 'list'): PathPolicyError {
  const verb = what === 'write' ? 'written' : what === 'list' ? 'listed' : 'read';
  return new PathPolicyError(
    `${rel} now leads outside ${root} (to ${real}): a link was put in its way after the path was checked, so nothing was ${verb}. ` +
      'Something, likely a command you ran, is changing this path; see what it is with list_dir, and use paths that stay inside the workspace.',
  );
}

/**
 * Open a path dispatch confined and check it is still inside its root: null when nothing is there; throws
 * PathPolicyError when it now leads out, or when its last name became a link (the checked path had none).
 */
export function pinConfined(p: ResolvedPath, what: 'read' | 'write' | 'list'): Pin | null {
  const held = pin(p.abs);
  if (!held) return null;
  if (!isInside(p.root, held.real)) {
    held.close();
    throw ledOutError(p.rel, held.real, p.root, what);
  }
  if (held.stat.isSymbolicLink()) {
    let target = '?';
    try {
      target = fs.readlinkSync(p.abs);
    } catch {
      // gone again
    }
    held.close();
    throw new PathPolicyError(
      `${p.rel} became a link (to ${target}) after the path was checked, so nothing was ${what === 'write' ? 'written' : 'read'}. ` +
        'Something, likely a command you ran, is changing this path; look at it with list_dir and try again.',
    );
  }
  return held;
}

/** A confined file's bytes, or its kind when it is not a regular file; null when nothing is there. */
export function readConfined(p: ResolvedPath, maxBytes = Infinity): { kind: 'file'; data: Buffer; stat: fs.Stats } | { kind: 'dir' | 'other' | 'oversize'; stat: fs.Stats } | null {
  const held = pinConfined(p, 'read');
  if (!held) return null;
  try {
    const st = held.stat;
    if (st.isDirectory()) return { kind: 'dir', stat: st };
    if (!st.isFile()) return { kind: 'other', stat: st };
    if (st.size > maxBytes) return { kind: 'oversize', stat: st };
    const fd = openPinned(held);
    try {
      return { kind: 'file', data: fs.readFileSync(fd), stat: st };
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    held.close();
  }
}

/** The refusal when a folder on the way of a write is a link or a file now. */
function notAFolderError(rel: string, folder: string): PathPolicyError {
  return new PathPolicyError(
    `${rel} was not written: ${folder} is not a folder any more (a link or a file took its place after the path was checked). ` +
      'Something, likely a command you ran, is changing this path; see what it is with list_dir, then try again.',
  );
}

/** The folder a write goes into, held open and checked, with the folders made on the way (outermost first). */
interface WriteDir {
  dir: Pin;
  made: string[];
}

/** The refusal of a write under .git (checked on the real path, where the write really lands). */
function refuseGit(p: ResolvedPath, realTarget: string): void {
  if (path.relative(p.root, realTarget).split(path.sep).includes('.git')) {
    throw new PathPolicyError(`Writes into .git/ are refused: ${p.rel}. Change the repository through git commands (run_command or git tools) instead.`);
  }
}

/** Hold the folder p goes into, making missing folders one at a time below the deepest one that exists. */
function writeDir(p: ResolvedPath, create: boolean): WriteDir {
  const parentAbs = path.dirname(p.abs);
  const below: string[] = [];
  let at = parentAbs;
  let held: Pin | null = null;
  for (;;) {
    held = pin(at, 'dir');
    if (held) break;
    const up = path.dirname(at);
    if (up === at || !isInside(p.root, up)) throw ledOutError(p.rel, at, p.root, 'write');
    below.unshift(path.basename(at));
    at = up;
  }
  if (!isInside(p.root, held.real)) {
    held.close();
    throw ledOutError(p.rel, held.real, p.root, 'write');
  }
  const made: string[] = [];
  try {
    for (const name of below) {
      if (!create) throw Object.assign(new Error(`ENOENT: no folder ${name}`), { code: 'ENOENT' });
      assertEntryName(name);
      try {
        fs.mkdirSync(`${held.via}/${name}`);
        made.push(path.join(held.real, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const next = pinChild(held, name, 'dir');
      if (!next) throw notAFolderError(p.rel, path.relative(p.root, path.join(held.real, name)));
      held.close();
      held = next;
    }
  } catch (err) {
    held.close();
    throw err;
  }
  return { dir: held, made };
}

/**
 * Write bytes to a confined path atomically: a temporary file in the checked folder, renamed over the name there,
 * so readers see the old file or the new one and nothing lands outside the root. `mode` is set on the new file (else
 * an existing file's mode is kept). Missing folders are made; returns them, outermost first (for rollback). Throws
 * PathPolicyError when the way now leads outside the root (or into .git), else the system error.
 */
export function writeConfined(p: ResolvedPath, data: Buffer | string, mode?: number): { madeDirs: string[] } {
  const name = path.basename(p.abs);
  assertEntryName(name);
  const { dir, made } = writeDir(p, true);
  try {
    refuseGit(p, path.join(dir.real, name));
    let keep = mode;
    if (keep === undefined) {
      try {
        const st = fs.lstatSync(`${dir.via}/${name}`);
        if (st.isFile()) keep = st.mode & 0o7777;
      } catch {
        // a new file: the default mode
      }
    }
    const tmp = `.${name.slice(0, 100)}.clamp-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    const tmpVia = `${dir.via}/${tmp}`;
    const fd = fs.openSync(tmpVia, CREATE_FLAGS, 0o666);
    try {
      try {
        fs.writeFileSync(fd, data);
        // the creation mode is filtered by the umask; fchmod sets exactly what the file had
        if (keep !== undefined) fs.fchmodSync(fd, keep);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmpVia, `${dir.via}/${name}`);
    } catch (err) {
      try {
        fs.unlinkSync(tmpVia);
      } catch {
        // the temp file is best-effort cleanup; the original error is what matters
      }
      throw err;
    }
    return { madeDirs: made };
  } finally {
    dir.close();
  }
}

/** Remove a confined file (the name itself: a link is removed, not what it points to). Throws like writeConfined. */
export function removeConfined(p: ResolvedPath): void {
  const name = path.basename(p.abs);
  assertEntryName(name);
  const { dir } = writeDir(p, false);
  try {
    refuseGit(p, path.join(dir.real, name));
    fs.unlinkSync(`${dir.via}/${name}`);
  } finally {
    dir.close();
  }
}

/** Remove an empty folder made by writeConfined (rollback); false when it is not empty, gone, or no longer inside. */
export function removeMadeDir(root: string, abs: string): boolean {
  const held = pin(path.dirname(abs), 'dir');
  if (!held) return false;
  try {
    if (!isInside(root, held.real)) return false;
    fs.rmdirSync(`${held.via}/${path.basename(abs)}`);
    return true;
  } catch {
    return false;
  } finally {
    held.close();
  }
}
