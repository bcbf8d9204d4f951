import type { ContinueAnswer } from '../contract/board';
import { getByToolCallId } from '../store/approvals';
import { openDb } from '../store/db';
import { loadMessages } from '../store/messages';
import { requireSession } from '../store/sessions';
import { HttpError, type ServerConfig } from './http';
import { isTurnRunning, startSessionTurn } from './turn';
import { trackTurn } from './turn-progress';

type LoosePart = { type: string; state?: string; toolCallId?: string };

/** The calls of the message still waiting for the person (no answer recorded in the store). */
function unanswered(db: ReturnType<typeof openDb>, sessionId: string, parts: readonly LoosePart[]): number {
  let n = 0;
  for (const p of parts) {
    if (p.state !== 'approval-requested' || !p.toolCallId) continue;
    const a = getByToolCallId(db, sessionId, p.toolCallId);
    if (!a || a.status === 'pending') n++;
  }
  return n;
}

/**
 * Resume a session whose turn stopped for approvals, once every one of them is answered, with no page attached:
 * the inbox answers calls of sessions not on screen, and their turn then runs on the server (saved after each
 * step, shown on the board; Stop ends it). Answers { started: false, waiting } while calls of the message still
 * wait. Throws HttpError 409 while a turn runs, or when the session's last message is not waiting for approvals.
 */
export async function continueSession(cfg: ServerConfig, sessionId: string): Promise<ContinueAnswer> {
  const db = openDb(cfg.dataDir);
  requireSession(db, sessionId, cfg.workspace);
  if (isTurnRunning(sessionId)) throw new HttpError(409, 'This session is already working on a turn. Wait for it, or press Stop.');
  const last = loadMessages(db, sessionId).at(-1);
  const parts = (last?.parts ?? []) as LoosePart[];
  if (last?.role !== 'assistant' || !parts.some((p) => p.state === 'approval-requested')) {
    throw new HttpError(409, 'This session has no turn waiting for approvals: there is nothing to continue. Open it and send a message.');
  }
  const waiting = unanswered(db, sessionId, parts);
  if (waiting > 0) return { started: false, waiting };
  // no page follows this turn: its signal aborts only through Stop (the stop route aborts the held turn)
  const stream = trackTurn(sessionId, await startSessionTurn(cfg, { sessionId, continue: { messageId: last.id } }, { signal: new AbortController().signal }));
  void drain(stream);
  return { started: true, waiting: 0 };
}

/** Read a turn's stream to its end, so the turn runs with nobody reading it. */
async function drain(stream: ReadableStream<unknown>): Promise<void> {
  const reader = stream.getReader();
  try {
    while (!(await reader.read()).done) {
      // the turn saves itself after every step; its chunks have no reader
    }
  } catch (err) {
    console.error('clamp: a turn resumed from the inbox failed:', err);
  }
}
