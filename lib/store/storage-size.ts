import fs from 'node:fs';
import path from 'node:path';
import { STORAGE_KINDS, type StorageKind, type StorageKindSize } from '../contract/storage';

/** What each top-level name of the data dir is; anything else is `other` (scratch, the sandbox's files, settings …). */
const KIND_OF: Readonly<Record<string, StorageKind>> = {
  logs: 'logs',
  spill: 'spills',
  checkpoints: 'checkpoints',
  worktrees: 'worktrees',
  'clamp.db': 'database',
  'clamp.db-wal': 'database',
  'clamp.db-shm': 'database',
  backups: 'database',
};

/** Every regular file under a folder (links not followed), a folder's entries stat'ed at once; what cannot be read is skipped. */
async function walkAsync(dir: string, visit: (st: fs.Stats) => void): Promise<void> {
  let names: fs.Dirent[];
  try {
    names = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const files: string[] = [];
  for (const d of names) {
    if (d.isDirectory()) await walkAsync(path.join(dir, d.name), visit);
    else if (d.isFile()) files.push(path.join(dir, d.name));
  }
  await Promise.all(files.map((p) => fs.promises.lstat(p).then(visit, () => undefined)));
}

/**
 * The data dir's size by kind: apparent bytes of its regular files (links not followed, a hard-linked file once).
 * Asynchronous, so a large worktree's walk never holds up the server's other requests. Never throws.
 */
export async function storageSizes(dataDir: string): Promise<{ totalBytes: number; kinds: StorageKindSize[] }> {
  const sizes = new Map<StorageKind, StorageKindSize>(STORAGE_KINDS.map((kind) => [kind, { kind, bytes: 0, files: 0 }]));
  const seen = new Set<string>();
  const count = (kind: StorageKind) => (st: fs.Stats) => {
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    const s = sizes.get(kind)!;
    s.bytes += st.size;
    s.files++;
  };
  let names: fs.Dirent[] = [];
  try {
    names = await fs.promises.readdir(dataDir, { withFileTypes: true });
  } catch {
    // no data dir yet: all zero
  }
  for (const d of names) {
    const kind = KIND_OF[d.name] ?? 'other';
    const p = path.join(dataDir, d.name);
    if (d.isDirectory()) await walkAsync(p, count(kind));
    else if (d.isFile()) await fs.promises.lstat(p).then(count(kind), () => undefined);
  }
  const kinds = [...sizes.values()];
  return { totalBytes: kinds.reduce((n, k) => n + k.bytes, 0), kinds };
}
