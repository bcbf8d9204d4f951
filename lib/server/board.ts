import type { BoardAnswer, BoardSession, InboxItem } from '../contract/board';
import type { SessionSummary } from '../contract/protocol';
import { openDb, type Db } from '../store/db';
import { workspacePending, type WorkspacePending } from '../store/inbox';
import { loadMessages } from '../store/messages';
import { otherHolder } from '../store/session-lock';
import { listSessions } from '../store/sessions';
import { getWorktree } from '../store/worktrees';
import type { ServerConfig } from './http';
import { sessionStats, type SessionStats } from './session-stats';
import { isTurnRunning } from './chat';
import { endTurnProgress, turnProgress } from './turn-progress';

const STATS = Symbol.for('clamp.boardStats');

/** Each session's stats, read again only when its row changed (a turn saves after every step). */
function statsCache(): Map<string, { key: string; stats: SessionStats }> {
  const g = globalThis as unknown as Record<symbol, Map<string, { key: string; stats: SessionStats }> | undefined>;
  return (g[STATS] ??= new Map());
}

function statsOf(db: Db, s: SessionSummary): SessionStats {
  const key = `${s.updatedAt}/${s.messageCount}`;
  const hit = statsCache().get(s.id);
  if (hit?.key === key) return hit.stats;
  const stats = sessionStats(loadMessages(db, s.id));
  statsCache().set(s.id, { key, stats });
  return stats;
}

/** The session's worktree as the store has it (its branch, how it stands, its folder), or null. */
function worktreeOf(db: Db, id: string): BoardSession['worktree'] {
  const w = getWorktree(db, id);
  return w ? { state: w.state, branch: w.branch, path: w.path } : null;
}

/** How a session stands: a turn running here, calls waiting, how its last turn ended, or nothing sent yet. */
function stateOf(db: Db, s: SessionSummary, waiting: number, stats: SessionStats): Pick<BoardSession, 'state' | 'step' | 'tools' | 'elsewhere' | 'note'> {
  const p = turnProgress(s.id);
  const running = isTurnRunning(s.id);
  // the stream stopped without ending (the page went away, Stop): the turn is no longer running
  if (p?.running && !running) endTurnProgress(s.id);
  const base = { step: null, tools: [], elsewhere: null, note: null };
  if (running) return { ...base, state: 'working', step: p?.running ? Math.max(1, p.step) : null, tools: p?.running ? [...p.tools.values()] : [] };
  // another Clamp process (a `clamp run`) holds the session's lock: it works, and this server cannot see its steps
  const other = otherHolder(db, s.id);
  if (other) return { ...base, state: 'working', elsewhere: `${other.holder} (pid ${other.pid})` };
  if (waiting > 0) return { ...base, state: 'waiting' };
  // what this process saw of the latest turn, unless the session changed since
  if (p?.endedAt !== undefined && p.endedAt >= s.updatedAt) {
    if (p.outcome === 'failed') return { ...base, state: 'failed', note: p.error ?? stats.failed };
    if (p.outcome === 'stopped') return { ...base, state: 'done', note: 'stopped' };
  }
  if (stats.failed) return { ...base, state: 'failed', note: stats.failed };
  return { ...base, state: s.messageCount === 0 ? 'new' : 'done' };
}

function inboxItem(a: WorkspacePending): InboxItem {
  // a subagent's call, or a question, waits while its turn runs; the session's own approval stopped its turn
  const live = !!a.info?.question || a.sessionId !== a.topId;
  return { sessionId: a.sessionId, topId: a.topId, topTitle: a.topTitle, toolCallId: a.toolCallId, approvalId: a.approvalId, toolName: a.toolName, input: a.input, info: a.info, live, createdAt: a.createdAt };
}

/** Every listed session of the workspace as it stands, and every call waiting for the person in any of them. */
export function boardOf(cfg: ServerConfig): BoardAnswer {
  const db = openDb(cfg.dataDir);
  const inbox = workspacePending(db, cfg.workspace).map(inboxItem);
  const waitingIn = new Map<string, number>();
  for (const i of inbox) waitingIn.set(i.topId, (waitingIn.get(i.topId) ?? 0) + 1);
  const sessions = listSessions(db, cfg.workspace).map((s): BoardSession => {
    const stats = statsOf(db, s);
    const waiting = waitingIn.get(s.id) ?? 0;
    return {
      id: s.id,
      title: s.title,
      mode: s.mode,
      updatedAt: s.updatedAt,
      ...stateOf(db, s, waiting, stats),
      waiting,
      model: s.model ?? stats.lastModel,
      tokens: stats.tokens,
      costUsd: stats.costUsd,
      filesChanged: stats.filesChanged,
      worktree: worktreeOf(db, s.id),
    };
  });
  return { sessions, inbox };
}
