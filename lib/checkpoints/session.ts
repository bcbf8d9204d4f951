import type { Budget } from '../contract/budget';
import type { ClampMessage } from '../contract/protocol';
import type { CheckpointView, SkippedFile } from '../contract/rest';
import type { SideEffect } from '../contract/types';
import type { Db } from '../store/db';
import { addCheckpoint, hasTurnCheckpoint, listCheckpoints, type StoredCheckpoint } from '../store/checkpoints';
import { assessCommand } from '../policy/command-safety';
import { shadowFor, type Shadow } from './shadow';
import { takeSnapshot } from './snapshot';

/** A session's checkpoints: taking one, the one before a message, the trigger before a turn's first change. */

export interface CheckpointPlace {
  dataDir: string;
  workspace: string;
  budget?: Budget;
}

/** The shadow repository of a place. */
export function shadowOf(p: CheckpointPlace): Shadow {
  return shadowFor(p.dataDir, p.workspace, p.budget);
}

/** Snapshot the workspace now and record it for the session. Throws CheckpointError when git fails. */
export async function takeCheckpoint(
  db: Db,
  p: CheckpointPlace,
  c: { sessionId: string; messageId: string | null; toolCallId?: string; kind: CheckpointView['kind'] },
): Promise<StoredCheckpoint> {
  const what = c.kind === 'turn' ? `before ${c.toolCallId ?? 'a change'} (message ${c.messageId ?? '-'})` : `before a ${c.kind}`;
  const snap = await takeSnapshot(shadowOf(p), c.sessionId, `clamp checkpoint ${what}`);
  return addCheckpoint(db, { ...c, commit: snap.commit, fileCount: snap.fileCount, skipped: snap.skipped });
}

/** The checkpoint as the routes show it (without its commit). */
export function viewOf(c: StoredCheckpoint): CheckpointView {
  const { sessionId: _s, commit: _c, ...view } = c;
  return view;
}

/** When a message was sent (user messages carry metadata.createdAt). */
function sentAt(m: ClampMessage | undefined): number | undefined {
  const t = m?.metadata?.createdAt;
  return typeof t === 'number' ? t : undefined;
}

/**
 * The checkpoint holding the files as they were when user message M was sent: the first one taken
 * after it (every change Clamp makes, a rewind's own included, comes after a checkpoint). null when
 * none was taken since: Clamp changed nothing, so there is nothing to restore.
 */
export function checkpointBefore(db: Db, sessionId: string, messages: readonly ClampMessage[], messageId: string): StoredCheckpoint | null {
  const all = listCheckpoints(db, sessionId);
  const m = messages.find((x) => x.id === messageId);
  const t = sentAt(m);
  if (t !== undefined) return all.find((c) => c.createdAt >= t) ?? null;
  // no time on the message: the first checkpoint of its turn or of any later message in the conversation
  const later = new Set(messages.slice(Math.max(0, messages.findIndex((x) => x.id === messageId))).map((x) => x.id));
  return all.find((c) => c.messageId !== null && later.has(c.messageId)) ?? null;
}

/** The session's first checkpoint: the files as they were at its start (before its first change). */
export function baselineOf(db: Db, sessionId: string): StoredCheckpoint | null {
  return listCheckpoints(db, sessionId)[0] ?? null;
}

/**
 * Whether a call may change files, so a checkpoint must come before it: a write tool, or a system
 * call unless it is a command the command judge reads as read-only (ls, git status …).
 */
export async function mayChangeFiles(effect: SideEffect | undefined, input: unknown, workspace: string): Promise<boolean> {
  if (effect === 'write') return true;
  if (effect !== 'system') return false;
  const i = (input ?? {}) as { command?: unknown; cwd?: unknown };
  if (typeof i.command !== 'string') return true;
  try {
    const a = await assessCommand(i.command, { workspace, cwd: typeof i.cwd === 'string' ? i.cwd : undefined });
    return a.action !== 'allow';
  } catch {
    return true;
  }
}

/**
 * The trigger: before a turn's first change (one checkpoint per user message), snapshot the workspace.
 * Returns the checkpoint taken, or null when none was needed. Throws CheckpointError.
 */
export async function checkpointBeforeChange(
  db: Db,
  p: CheckpointPlace,
  call: { sessionId: string; userMessageId: string | null; toolCallId: string; effect: SideEffect | undefined; input: unknown },
): Promise<StoredCheckpoint | null> {
  if (!(await mayChangeFiles(call.effect, call.input, p.workspace))) return null;
  if (call.userMessageId && hasTurnCheckpoint(db, call.sessionId, call.userMessageId)) return null;
  return takeCheckpoint(db, p, { sessionId: call.sessionId, messageId: call.userMessageId, toolCallId: call.toolCallId, kind: 'turn' });
}

export type { StoredCheckpoint, SkippedFile };
