import path from 'node:path';
import { isLiveLog } from '../exec/live-logs';
import { dropSessionRefs } from '../checkpoints/gc';
import type { Db } from '../store/db';
import { removeOutputs } from '../store/retention';

/**
 * What deleting a session frees besides its rows (which the database drops with it: messages, their attachments,
 * checkpoints' records, approvals …): the logs and spills only its conversation and journal named, and its refs in
 * the checkpoint repositories (their objects go at the next collection past the period). A worktree is finished by
 * the worktree code, never here.
 */

/** Clamp's own file names under logs/ and spill/ (what the runner and the exit clamp write). */
const NAME = '[A-Za-z0-9._-]+';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The logs and spills of the data dir that a text names (absolute paths, as results carry them). */
export function outputPathsIn(dataDir: string, text: string): Set<string> {
  const re = new RegExp(`${escapeRe(dataDir)}/(?:logs/(?:${NAME}/)?|spill/)${NAME}`, 'g');
  // a path that ends a sentence leaves its full stop behind
  return new Set((text.match(re) ?? []).map((p) => p.replace(/\.+$/, '')));
}

/** What deleting a session leaves to clean: its id with its subagents' sessions' ids, and the logs and spills they name that no other session names. */
export interface SessionLeftovers {
  ids: string[];
  files: string[];
}

/** A session's leftovers, read before it is deleted. */
export function sessionLeftovers(db: Db, dataDir: string, sessionId: string): SessionLeftovers {
  const ids = [sessionId, ...(db.prepare('SELECT id FROM sessions WHERE parent_id = ?').all(sessionId) as { id: string }[]).map((r) => r.id)];
  const found = new Set<string>();
  for (const id of ids) {
    for (const r of db.prepare('SELECT json FROM messages WHERE session_id = ?').iterate(id) as Iterable<{ json: string }>) outputPathsIn(dataDir, r.json).forEach((p) => found.add(p));
    for (const r of db.prepare('SELECT COALESCE(result_json, \'\') || input_json AS t FROM tool_calls WHERE session_id = ?').iterate(id) as Iterable<{ t: string }>) {
      outputPathsIn(dataDir, r.t).forEach((p) => found.add(p));
    }
  }
  const placeholders = ids.map(() => '?').join(', ');
  const elsewhere = db.prepare(`SELECT 1 FROM messages WHERE session_id NOT IN (${placeholders}) AND instr(json, ?) > 0 LIMIT 1`);
  return { ids, files: [...found].filter((p) => path.resolve(p) === p && !elsewhere.get(...ids, p)) };
}

/** Remove what the deleted session alone named and drop its checkpoint refs; answers what went. Never throws. */
export async function cleanUpAfterSession(dataDir: string, left: SessionLeftovers): Promise<{ removedFiles: number; freedBytes: number; refsDropped: number }> {
  const removed = removeOutputs(dataDir, left.files, isLiveLog);
  let refsDropped = 0;
  for (const id of left.ids) refsDropped += await dropSessionRefs(dataDir, id);
  return { ...removed, refsDropped };
}
