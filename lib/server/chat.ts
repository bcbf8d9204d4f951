import { createUIMessageStreamResponse } from 'ai';
import type { ChatBody } from '../contract/chat-body';
import { ChatRequestError, mergeIncoming } from '../agent/chat-request';
import type { ClampMessage } from '../contract/protocol';
import { runTurn } from '../agent/run-turn';
import { openDb } from '../store/db';
import { loadMessages, saveMessages } from '../store/messages';
import { nameFromMessages, requireSession, touchSession } from '../store/sessions';
import { getApprovalSecret } from '../store/secrets';
import { createToolRegistry } from '../dispatch/all-tools';
import { getTaskManager } from '../tasks/manager';
import { storeHost } from './agent-host';
import { HttpError, json } from './http';
import { sessionModel, sessionModelWithWindow, specOf } from './session-model';
import { attachmentParts } from './attach';
import type { ServerConfig } from './http';

const RUNNING = Symbol.for('clamp.runningTurns');

/** The step limit of one turn: CLAMP_MAX_STEPS, or the loop's default. */
function maxSteps(): number | undefined {
  const n = Number(process.env.CLAMP_MAX_STEPS);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The turns in flight, by session, so a stop request (or a second tab) can find them. */
function runningTurns(): Map<string, AbortController> {
  const g = globalThis as unknown as Record<symbol, Map<string, AbortController> | undefined>;
  return (g[RUNNING] ??= new Map());
}

/** Whether a turn is running in a session. */
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

/**
 * Run one chat turn for a session: merge the page's message (or continuation) into what is stored, run the loop,
 * stream the UI message stream back, and save after every step. Throws HttpError for bad requests.
 */
export async function handleChat(cfg: ServerConfig, body: ChatBody, requestSignal: AbortSignal): Promise<Response> {
  const db = openDb(cfg.dataDir);
  const session = requireSession(db, body.sessionId, cfg.workspace);
  const resolved = await sessionModelWithWindow(cfg, body.sessionId);
  if (!resolved.ok) {
    return json({ error: resolved.status.help ?? 'No model is configured.' }, 409);
  }
  if (runningTurns().has(body.sessionId)) {
    throw new HttpError(409, 'This session is already working on a turn. Wait for it, or press Stop.');
  }
  const host = storeHost(db, { sessionId: body.sessionId, workspace: cfg.workspace, dataDir: cfg.dataDir, services: { tasks: getTaskManager(cfg.dataDir) } });
  let messages: ClampMessage[];
  const extra = body.message
    ? await attachmentParts(body.message, { workspace: cfg.workspace, dataDir: cfg.dataDir, mode: session.mode, sessionId: body.sessionId, signal: requestSignal, imageInput: resolved.status.imageInput, modelLabel: resolved.status.label })
    : [];
  try {
    messages = mergeIncoming(loadMessages(db, body.sessionId), body, host.answerFor, extra);
  } catch (err) {
    if (err instanceof ChatRequestError) throw new HttpError(err.status, err.message);
    throw err;
  }
  // the user's message is stored before the model is asked anything: a crash loses no input
  saveMessages(db, body.sessionId, messages);
  nameFromMessages(db, body.sessionId, messages);
  touchSession(db, body.sessionId);

  const abort = new AbortController();
  runningTurns().set(body.sessionId, abort);
  const onClientGone = () => abort.abort(new Error('the page stopped the turn'));
  requestSignal.addEventListener('abort', onClientGone);
  const finish = () => {
    requestSignal.removeEventListener('abort', onClientGone);
    if (runningTurns().get(body.sessionId) === abort) runningTurns().delete(body.sessionId);
  };
  const stream = runTurn({
    host,
    reg: createToolRegistry(),
    model: resolved.model,
    status: resolved.status,
    messages,
    signal: abort.signal,
    approvalSecret: getApprovalSecret(cfg.dataDir),
    maxSteps: maxSteps(),
    // a model picked in the header mid-turn answers from the next step
    stepModel: () => {
      const r = sessionModel(cfg, body.sessionId);
      return r.ok && specOf(r) ? { id: r.status.model!, model: r.model } : null;
    },
    save: (all) => {
      try {
        saveMessages(db, body.sessionId, all);
        touchSession(db, body.sessionId);
      } catch (err) {
        console.error('clamp: could not save the session:', err);
      }
    },
  });
  const tracked = stream.pipeThrough(
    new TransformStream({
      flush: finish,
    }),
  );
  // a cancelled response (the page went away) must still release the session
  abort.signal.addEventListener('abort', () => setTimeout(finish, 5000).unref?.());
  return createUIMessageStreamResponse({ stream: tracked });
}
