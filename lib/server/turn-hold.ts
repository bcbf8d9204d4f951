import type { UIMessageChunk } from 'ai';
import { BUDGET } from '../contract/budget';
import { tapStream } from '../contract/stream-tap';
import type { Db } from '../store/db';
import { lockHeldText, otherHolder, releaseSessionLock, renewSessionLock, takeSessionLock, type LockHolder } from '../store/session-lock';
import { HttpError } from './http';

const RUNNING = Symbol.for('clamp.runningTurns');
/** A cancelled response (the page went away) never flushes its stream: the session is let go this long after the abort. */
const RELEASE_AFTER_ABORT_MS = 5000;

/** The session runs a turn already, in this process or another one (the page answers it as a 409; `clamp run` exits with EXIT.busy). */
export class SessionBusyError extends HttpError {
  constructor(
    message: string,
    /** the other process holding the session's lock; absent when this process runs the turn */
    public readonly holder?: LockHolder,
  ) {
    super(409, message);
    this.name = 'SessionBusyError';
  }
}

/** The turns in flight in this process, by session, so a stop request (or a second tab) can find them. */
function runningTurns(): Map<string, AbortController> {
  const g = globalThis as unknown as Record<symbol, Map<string, AbortController> | undefined>;
  return (g[RUNNING] ??= new Map());
}

/** Whether a turn is running in a session in this process. */
export function isTurnRunning(sessionId: string): boolean {
  return runningTurns().has(sessionId);
}

/** Stop the turn running in a session, if any: aborts the model and every running tool. */
export function stopTurn(sessionId: string): boolean {
  const c = runningTurns().get(sessionId);
  if (!c) return false;
  c.abort(new Error('stopped by the user'));
  return true;
}

export interface HoldOptions {
  /** aborting it stops the turn */
  signal: AbortSignal;
  /** the reason the turn's abort carries when `signal` aborts */
  abortReason?: string;
  /** what this process is, as a refused second one reads it ("the Clamp server", "clamp run") */
  holder: string;
  /** what a refusal says was not done (default "Nothing was run.") */
  outcome?: string;
}

/** A session held for one turn: the turn's signal, and its release. */
export interface SessionHold {
  signal: AbortSignal;
  /** the turn's stream, releasing the session when it ends (or a while after the abort) */
  release: (stream: ReadableStream<UIMessageChunk>) => ReadableStream<UIMessageChunk>;
  /** let the session go now (the turn never started); idempotent */
  end: () => void;
}

/**
 * Hold a session for one turn, synchronously (so two requests of this process cannot both pass): refused with
 * SessionBusyError while a turn of it runs here, or while another live process holds its lock in the store.
 * The lock is renewed every SESSION_LOCK_HEARTBEAT_MS; should another process take it over (this one hung past
 * SESSION_LOCK_STALE_MS), the turn is stopped, so two processes never run the session at once.
 */
export function holdSession(db: Db, sessionId: string, o: HoldOptions): SessionHold {
  if (runningTurns().has(sessionId)) throw new SessionBusyError('This session is already working on a turn. Wait for it, or press Stop.');
  const taken = takeSessionLock(db, sessionId, o.holder);
  if (!taken.ok) throw new SessionBusyError(lockHeldText(taken.holder, Date.now(), o.outcome), taken.holder);
  const abort = new AbortController();
  runningTurns().set(sessionId, abort);
  const onGone = () => abort.abort(new Error(o.abortReason ?? 'the page stopped the turn'));
  o.signal.addEventListener('abort', onGone);
  const beat = setInterval(() => {
    try {
      if (!renewSessionLock(db, sessionId)) abort.abort(new Error('another Clamp process took this session over'));
    } catch {
      // the store is closing (shutdown): the turn is being stopped anyway
    }
  }, BUDGET.SESSION_LOCK_HEARTBEAT_MS);
  beat.unref?.();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(beat);
    o.signal.removeEventListener('abort', onGone);
    if (runningTurns().get(sessionId) === abort) runningTurns().delete(sessionId);
    try {
      releaseSessionLock(db, sessionId);
    } catch {
      // the store closed first (shutdown): the lock names a dead process, and the next turn takes it over
    }
  };
  return {
    signal: abort.signal,
    end,
    release: (stream) => {
      abort.signal.addEventListener('abort', () => setTimeout(end, RELEASE_AFTER_ABORT_MS).unref?.());
      return tapStream(stream, (chunk: UIMessageChunk) => chunk, end);
    },
  };
}

/**
 * Change a session outside a turn (rewind, revert or commit its changes, compact it, finish its worktree, delete
 * it) while holding it as a turn does, so no turn of this or another process starts meanwhile. Refused with
 * SessionBusyError (409), nothing changed, while a turn of it runs here ("… then <action>") or another live
 * process holds its lock (naming that process).
 */
export async function whileHeld<T>(db: Db, sessionId: string, action: string, change: () => Promise<T> | T): Promise<T> {
  if (runningTurns().has(sessionId)) throw new SessionBusyError(`This session is working on a turn. Wait for it or press Stop, then ${action}.`);
  const held = holdSession(db, sessionId, { signal: new AbortController().signal, holder: 'the Clamp server', outcome: 'Nothing was changed.' });
  try {
    return await change();
  } finally {
    held.end();
  }
}

/** Refuse (SessionBusyError, 409) while another live process holds the session's lock: nothing is done then. */
export function refuseIfHeldElsewhere(db: Db, sessionId: string, outcome: string): void {
  const other = otherHolder(db, sessionId);
  if (other) throw new SessionBusyError(lockHeldText(other, Date.now(), outcome), other);
}
