import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { byteLength } from '../../contract/text';
import type { TextCount } from './estimate';

/**
 * Exact token counts of the long texts every request holds (the system prompt, the project docs, each
 * tool's definition), remembered in the data dir: a new process bounds its first request with them
 * (the rest by bytes) and need not load the tokenizer before that request is sent.
 */
const FILE = 'token-counts.json';
/** Texts shorter than this are bounded by their bytes, not remembered */
const REMEMBER_MIN_CHARS = 1000;
const REMEMBER_MAX_ENTRIES = 400;

const caches = new Map<string, Map<string, number>>();

function keyOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function cacheOf(dataDir: string): Map<string, number> {
  let c = caches.get(dataDir);
  if (c) return c;
  c = new Map();
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8')) as Record<string, unknown>;
    for (const [k, v] of Object.entries(raw)) if (typeof v === 'number' && Number.isFinite(v) && v >= 0) c.set(k, v);
  } catch {
    // none yet, or unreadable: everything is bounded by its bytes
  }
  caches.set(dataDir, c);
  return c;
}

/** An upper bound of a text's tokens: its remembered exact count, else its UTF-8 bytes (an o200k_base token holds at least one byte). */
export function boundCount(dataDir: string): TextCount {
  const c = cacheOf(dataDir);
  return (text) => (text.length >= REMEMBER_MIN_CHARS ? (c.get(keyOf(text)) ?? byteLength(text)) : byteLength(text));
}

/** Remember the exact counts of the long texts among these (counted with `exact`); the file is written only when one is new. Never throws. */
export function rememberCounts(dataDir: string, texts: readonly string[], exact: TextCount): void {
  const c = cacheOf(dataDir);
  let added = false;
  for (const t of texts) {
    if (t.length < REMEMBER_MIN_CHARS) continue;
    const k = keyOf(t);
    if (c.has(k)) continue;
    c.set(k, exact(t));
    added = true;
  }
  if (!added) return;
  while (c.size > REMEMBER_MAX_ENTRIES) c.delete(c.keys().next().value as string);
  try {
    const file = path.join(dataDir, FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(c)), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // not remembered: the next process bounds by bytes, as without the file
  }
}
