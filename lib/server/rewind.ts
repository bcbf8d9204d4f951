import type { ClampMessage, RewindNote } from '../contract/protocol';
import type { BranchAnswer, BranchListAnswer, CheckpointListAnswer, RewindAnswer, RewindBody, RewindFile, RewindPreview, RunningTaskView } from '../contract/rest';
import { BUDGET } from '../contract/budget';
import { clipLine, formatBytes } from '../contract/text';
import { checkpointBefore, shadowOf, takeCheckpoint, viewOf } from '../checkpoints/session';
import { restoreTree, workspaceChanges } from '../checkpoints/snapshot';
import { diffChanges } from '../checkpoints/diff';
import { newId, stamp, openDb, type Db } from '../store/db';
import { addBranch, getBranch, getCheckpoint, listBranches, listCheckpoints, retirePendingApprovals } from '../store/checkpoints';
import { loadMessages, saveMessages } from '../store/messages';
import { requireSession } from '../store/sessions';
import { getTaskManager } from '../tasks/manager';
import { HttpError, type ServerConfig } from './http';
import { whileHeld } from './turn-hold';
import { sessionPlace } from './worktrees';

/** Rewind: the preview, restoring code and/or conversation to before a user message, and the branches it keeps. */

/** What no rewind can take back, in the page's words (the model is told the same). */
export function cannotUndo(): string[] {
  return [
    'Effects of commands outside the workspace (installed packages, files elsewhere, processes started).',
    'Network calls already made (deploys, API requests, messages sent).',
    'Changes to databases and other services.',
    'Git history: commits made and pushed stay (the repository’s own .git is never touched).',
    `Files checkpoints leave out: ignored ones (.gitignore, .clampignore) and those over ${formatBytes(BUDGET.CHECKPOINT_FILE_MAX_BYTES)}.`,
  ];
}

/** A rewind refused while background tasks run: the page offers to stop them. */
export class TasksRunningError extends HttpError {
  constructor(readonly runningTasks: RunningTaskView[]) {
    super(409, `${runningTasks.length} background task(s) of this session are running. Stop them first (send stopTasks: true), then rewind.`);
  }
}

function runningTasks(cfg: ServerConfig, sessionId: string): RunningTaskView[] {
  return getTaskManager(cfg.dataDir)
    .list(sessionId)
    .filter((t) => t.status === 'running')
    .map((t) => ({ id: t.id, command: t.command }));
}

function userMessageIndex(messages: readonly ClampMessage[], messageId: string): number {
  const i = messages.findIndex((m) => m.id === messageId);
  if (i < 0) throw new HttpError(404, `Message ${messageId} is not in this conversation. Reload the page to see the current one.`);
  if (messages[i]!.role !== 'user') throw new HttpError(400, `Message ${messageId} is not a user message: rewind goes back to before a message you sent.`);
  return i;
}

/** GET /api/sessions/[id]/checkpoints */
export function checkpointsOf(cfg: ServerConfig, sessionId: string): CheckpointListAnswer {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  return { checkpoints: listCheckpoints(db, sessionId).map(viewOf) };
}

/** GET /api/sessions/[id]/rewind?messageId=M: what restoring to before M would change. */
export async function rewindPreview(server: ServerConfig, sessionId: string, messageId: string): Promise<RewindPreview> {
  const db = openDb(server.dataDir);
  requireSession(db, sessionId, server.workspace);
  // a session on its own worktree: its checkpoints, files and git are the worktree's
  const cfg = sessionPlace(server, db, sessionId);
  const messages = loadMessages(db, sessionId);
  const i = userMessageIndex(messages, messageId);
  const cp = checkpointBefore(db, sessionId, messages, messageId);
  let files: RewindFile[] = [];
  let truncated = false;
  if (cp) {
    const s = shadowOf(cfg);
    const now = await workspaceChanges(s, { to: cp.commit, blobs: true });
    const d = await diffChanges(s, now.changes, now.blobs);
    files = d.files.map(({ path, change, binary, diff }) => ({ path, change, binary, diff }));
    truncated = d.truncated;
  }
  return { messageId, checkpointId: cp?.id ?? null, files, truncated, cannotUndo: cannotUndo(), runningTasks: runningTasks(cfg, sessionId), laterMessages: messages.length - i };
}

/** The first user text of a list of messages, for a branch's preview line. */
function previewOf(messages: readonly ClampMessage[]): string {
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('').trim();
    if (text) return clipLine(text.replace(/\s+/g, ' '), 200);
  }
  return '';
}

/**
 * POST /api/sessions/[id]/rewind. Code: a checkpoint of the workspace as it is comes first (so the
 * rewind can be undone), then the files of the checkpoint before M. Conversation: M and everything
 * after it move to a stored branch. Either way a data-rewind message is appended, which the model's
 * next request reads. 409 while a turn runs (here, or in another process: whileHeld), and while background tasks
 * run unless stopTasks.
 */
export async function rewind(server: ServerConfig, sessionId: string, b: RewindBody): Promise<RewindAnswer> {
  const db = openDb(server.dataDir);
  requireSession(db, sessionId, server.workspace);
  // a session on its own worktree: its checkpoints, files and git are the worktree's
  const cfg = sessionPlace(server, db, sessionId);
  return whileHeld(db, sessionId, 'rewind', () => rewindHeld(db, cfg, sessionId, b));
}

async function rewindHeld(db: Db, cfg: ServerConfig, sessionId: string, b: RewindBody): Promise<RewindAnswer> {
  let messages = loadMessages(db, sessionId);
  const i = b.messageId !== undefined ? userMessageIndex(messages, b.messageId) : -1;
  const target = b.checkpointId !== undefined ? getCheckpoint(db, sessionId, b.checkpointId) : b.code ? checkpointBefore(db, sessionId, messages, b.messageId!) : null;
  if (b.checkpointId !== undefined && !target) throw new HttpError(404, `Checkpoint ${b.checkpointId} not found in this session. List them with GET /api/sessions/${sessionId}/checkpoints.`);
  const tasks = runningTasks(cfg, sessionId);
  if (tasks.length && !b.stopTasks) throw new TasksRunningError(tasks);
  const manager = getTaskManager(cfg.dataDir);
  for (const t of tasks) await manager.kill(t.id, 'user');

  let restored: string[] = [];
  let undoCheckpointId: string | null = null;
  if (b.code && target) {
    const s = shadowOf(cfg);
    const lastUser = messages.findLast((m) => m.role === 'user')?.id ?? null;
    const undo = await takeCheckpoint(db, cfg, { sessionId, messageId: lastUser, kind: 'rewind' });
    undoCheckpointId = undo.id;
    // the files it changes, listed in the restore's own run
    restored = (await restoreTree(s, target.commit, undo.commit)).map((c) => c.path);
  }
  let branchId: string | null = null;
  if (b.conversation && i >= 0) {
    const later = messages.slice(i);
    branchId = addBranch(db, sessionId, b.messageId!, later, previewOf(later)).id;
    const calls = later.flatMap((m) => m.parts.flatMap((p) => ('toolCallId' in p && typeof p.toolCallId === 'string' ? [p.toolCallId] : [])));
    retirePendingApprovals(db, sessionId, calls);
    messages = messages.slice(0, i);
  }
  const note: RewindNote = { messageId: b.messageId ?? null, code: b.code, conversation: b.conversation, restored, branchId, undoCheckpointId, cannotUndo: cannotUndo(), createdAt: stamp() };
  messages = [...messages, { id: `rewind-${newId()}`, role: 'user', parts: [{ type: 'data-rewind', data: note }], metadata: { createdAt: note.createdAt } }];
  saveMessages(db, sessionId, messages);
  return { restored, branchId, messages, undoCheckpointId };
}

/** GET /api/sessions/[id]/branches */
export function branchesOf(cfg: ServerConfig, sessionId: string): BranchListAnswer {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  return { branches: listBranches(db, sessionId) };
}

/** GET /api/sessions/[id]/branches/[branchId] */
export function branchOf(cfg: ServerConfig, sessionId: string, branchId: string): BranchAnswer {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  const b = getBranch(db, sessionId, branchId);
  if (!b) throw new HttpError(404, `Branch ${branchId} not found in this session. List them with GET /api/sessions/${sessionId}/branches.`);
  return b;
}
