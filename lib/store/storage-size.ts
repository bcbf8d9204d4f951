import fs from 'node:fs';
import path from 'node:path';
import { STORAGE_KINDS, type StorageKind, type StorageKindSize } from '../contract/storage';
import { walkFiles } from './retention';

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

/** The data dir's size by kind: apparent bytes of its regular files (links not followed, a hard-linked file once). Never throws. */
export function storageSizes(dataDir: string): { totalBytes: number; kinds: StorageKindSize[] } {
  const sizes = new Map<StorageKind, StorageKindSize>(STORAGE_KINDS.map((kind) => [kind, { kind, bytes: 0, files: 0 }]));
  const seen = new Set<string>();
  const count = (kind: StorageKind, st: fs.Stats) => {
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    const s = sizes.get(kind)!;
    s.bytes += st.size;
    s.files++;
  };
  let names: fs.Dirent[] = [];
  try {
    names = fs.readdirSync(dataDir, { withFileTypes: true });
  } catch {
    // no data dir yet: all zero
  }
  for (const d of names) {
    const kind = KIND_OF[d.name] ?? 'other';
    const p = path.join(dataDir, d.name);
    if (d.isDirectory()) walkFiles(p, (_f, st) => count(kind, st));
    else if (d.isFile()) {
      try {
        count(kind, fs.lstatSync(p));
      } catch {
        // gone since the listing
      }
    }
  }
  const kinds = [...sizes.values()];
  return { totalBytes: kinds.reduce((n, k) => n + k.bytes, 0), kinds };
}
