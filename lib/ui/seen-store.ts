import type { TaskSummary } from '@/lib/contract/protocol';

/**
 * How much of each task's output the person has looked at, kept in localStorage so the
 * new-output marker survives a reload. A tiny external store for useSyncExternalStore.
 */

type Seen = Readonly<Record<string, number>>;

const STORAGE_KEY = 'clamp.tasks.seen.v1';
/** entries kept: old tasks' marks are dropped first */
const MAX_ENTRIES = 200;
const EMPTY: Seen = Object.freeze({});

let snapshot: Seen | null = null;
const listeners = new Set<() => void>();

/** The key of a task in the store: task ids restart with the server, so the start time is part of it. */
export function seenKey(t: Pick<TaskSummary, 'id' | 'startedAt'>): string {
  return `${t.id}@${t.startedAt}`;
}

/** The marks as they are now (the same object until one changes). */
export function seenSnapshot(): Seen {
  if (snapshot === null) snapshot = typeof window === 'undefined' ? EMPTY : load();
  return snapshot;
}

/** The marks on the server render: none. */
export function seenServerSnapshot(): Seen {
  return EMPTY;
}

/** Record that the person has seen a task's output up to bytes. */
export function markSeen(key: string, bytes: number): void {
  const cur = seenSnapshot();
  if ((cur[key] ?? -1) >= bytes) return;
  const next: Record<string, number> = { ...cur, [key]: bytes };
  const keys = Object.keys(next);
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete next[k];
  snapshot = next;
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // storage full or blocked: the marks still work until the page reloads
  }
  for (const l of [...listeners]) l();
}

/** Subscribe to changes (also from other tabs); returns the unsubscribe function. */
export function subscribeSeen(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key !== STORAGE_KEY) return;
    snapshot = load();
    listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

function load(): Seen {
  try {
    const v: unknown = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return EMPTY;
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, number] => typeof e[1] === 'number'));
  } catch {
    return EMPTY;
  }
}
