import type { Db } from './db';
import { stamp } from './db';
import type { MemoryView } from '../contract/rest';

/** One remembered fact of a workspace. */
/** A saved memory (the shape GET /api/memories answers with). */
export type Memory = MemoryView;

interface MemoryRow {
  id: number;
  content: string;
  created_at: number;
}

const toMemory = (r: MemoryRow): Memory => ({ id: r.id, content: r.content, createdAt: r.created_at });

/** Save a memory for a workspace; the same text saved twice returns the first (created: false). */
export function addMemory(db: Db, workspace: string, content: string): { memory: Memory; created: boolean } {
  return db.transaction(() => {
    const found = db.prepare('SELECT id, content, created_at FROM memories WHERE workspace = ? AND content = ?').get(workspace, content) as MemoryRow | undefined;
    if (found) return { memory: toMemory(found), created: false };
    const createdAt = stamp();
    const id = Number(db.prepare('INSERT INTO memories (workspace, content, created_at) VALUES (?, ?, ?)').run(workspace, content, createdAt).lastInsertRowid);
    return { memory: { id, content, createdAt }, created: true };
  })();
}

/** A workspace's memories, newest first, at most limit of them, with how many there are in all. */
export function listMemories(db: Db, workspace: string, limit: number): { memories: Memory[]; total: number } {
  const rows = db.prepare('SELECT id, content, created_at FROM memories WHERE workspace = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(workspace, limit) as MemoryRow[];
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM memories WHERE workspace = ?').get(workspace) as { n: number };
  return { memories: rows.map(toMemory), total: n };
}

/** Delete a memory of a workspace; false when the workspace has no memory with that id. */
export function deleteMemory(db: Db, workspace: string, id: number): boolean {
  return db.prepare('DELETE FROM memories WHERE id = ? AND workspace = ?').run(id, workspace).changes > 0;
}

/** The words of a query (split on white space), without duplicates. */
function terms(query: string): string[] {
  return [...new Set(query.split(/\s+/).filter((t) => t !== ''))];
}

/**
 * A query as an FTS5 MATCH expression that cannot be a syntax error: every word becomes a quoted
 * string ("" inside doubled), joined with OR so any word matches and bm25 ranks the best first.
 * Undefined when the query has no words.
 */
export function ftsMatchQuery(query: string): string | undefined {
  const t = terms(query);
  return t.length ? t.map((w) => `"${w.split('"').join('""')}"`).join(' OR ') : undefined;
}

/** A word as a LIKE pattern matching it anywhere (%, _ and the escape itself escaped). */
function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface MemorySearch {
  memories: Memory[];
  /** matches in all (memories holds at most limit of them) */
  total: number;
  /** full-text search, or the substring fallback when it found nothing or could not run */
  method: 'fts' | 'like';
}

function searchFts(db: Db, workspace: string, match: string, limit: number): MemorySearch {
  const from = 'FROM memories_fts f JOIN memories m ON m.id = f.rowid WHERE memories_fts MATCH ? AND m.workspace = ?';
  const rows = db.prepare(`SELECT m.id, m.content, m.created_at ${from} ORDER BY bm25(memories_fts), m.id DESC LIMIT ?`).all(match, workspace, limit) as MemoryRow[];
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(match, workspace) as { n: number };
  return { memories: rows.map(toMemory), total: n, method: 'fts' };
}

function searchLike(db: Db, workspace: string, words: string[], limit: number): MemorySearch {
  const patterns = words.map(likePattern);
  const any = patterns.map(() => "content LIKE ? ESCAPE '\\'").join(' OR ');
  // more matching words rank higher; then the newest
  const score = patterns.map(() => "(content LIKE ? ESCAPE '\\')").join(' + ');
  const rows = db
    .prepare(`SELECT id, content, created_at FROM memories WHERE workspace = ? AND (${any}) ORDER BY (${score}) DESC, created_at DESC, id DESC LIMIT ?`)
    .all(workspace, ...patterns, ...patterns, limit) as MemoryRow[];
  const { n } = db.prepare(`SELECT COUNT(*) AS n FROM memories WHERE workspace = ? AND (${any})`).get(workspace, ...patterns) as { n: number };
  return { memories: rows.map(toMemory), total: n, method: 'like' };
}

/**
 * Search a workspace's memories: full-text (FTS5, stemmed, best first), falling back to
 * substring matching when that finds nothing or its query cannot run. Never throws on query text.
 */
export function searchMemories(db: Db, workspace: string, query: string, limit: number): MemorySearch {
  const words = terms(query);
  if (words.length === 0) return { memories: [], total: 0, method: 'fts' };
  const match = ftsMatchQuery(query)!;
  try {
    const found = searchFts(db, workspace, match, limit);
    if (found.total > 0) return found;
  } catch {
    // FTS5 refused the expression (or is unavailable): substring matching still answers
  }
  return searchLike(db, workspace, words, limit);
}
