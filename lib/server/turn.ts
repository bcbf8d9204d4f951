import type { UIMessageChunk } from 'ai';
import type { ChatBody } from '../contract/chat-body';
import type { ClampMessage } from '../contract/protocol';
import type { AgentHost } from '../agent/host';
import { ChatRequestError, mergeIncoming } from '../agent/chat-request';
import type { ResolvedModel, UnresolvedModel } from '../agent/providers';
import { runTurn } from '../agent/run-turn';
import { openDb } from '../store/db';
import { loadMessages, saveMessages } from '../store/messages';
import { getSessionMode, nameFromMessages, requireSession, touchSession } from '../store/sessions';
import { getApprovalSecret } from '../store/secrets';
import { turnTools } from './mcp';
import { getTaskManager } from '../tasks/manager';
import { storeHost } from './agent-host';
import { HttpError, type ServerConfig } from './http';
import { sessionModelForSteps, sessionModelWithWindow, specOf } from './session-model';
import { attachmentParts } from './attach';
import { withLateNote } from './diagnostics';

const RUNNING = Symbol.for('clamp.runningTurns');

/** No model can be used: the help text says how to configure one (the route answers it as a 409). */
export class NoModelError extends HttpError {
  constructor(message: string) {
    super(409, message);
    this.name = 'NoModelError';
  }
}

/** How many leading messages of `a` are the very objects of `b` (nothing rebuilt them since). */
function samePrefix(a: readonly ClampMessage[], b: readonly ClampMessage[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** The step limit of one turn: CLAMP_MAX_STEPS, or the loop's default. */
export function maxStepsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const n = Number(env.CLAMP_MAX_STEPS);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The turns in flight in this process, by session, so a stop request (or a second tab) can find them. */
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

export interface SessionTurnOptions {
  /** aborting it stops the turn (the page went away; Ctrl-C in a headless run) */
  signal: AbortSignal;
  /** the reason the turn's abort carries when `signal` aborts */
  abortReason?: string;
  /**
   * Who answers a call that needs approval. Absent: the person, on the page (the call waits as a pending
   * approval). A function: the host as the turn uses it, derived from the store's (a headless run decides
   * such calls itself, and has no person to ask anything).
   */
  host?: (stored: AgentHost) => AgentHost;
  /** the model to use instead of the one configured (settings, then environment) */
  model?: ResolvedModel | UnresolvedModel;
  /** the step limit; absent: CLAMP_MAX_STEPS, else the loop's default */
  maxSteps?: number;
}

/**
 * Start one turn of a session: check the session, the model and that no turn runs in it, merge the
 * body (a user message or a continuation) into what is stored, save it, and run the loop, saving after
 * every step. Returns the UI message stream; the session is released when the stream ends or the turn
 * is aborted. Throws HttpError (NoModelError when no model can be used; StoreError for an unknown session).
 */
export async function startSessionTurn(cfg: ServerConfig, body: ChatBody, o: SessionTurnOptions): Promise<ReadableStream<UIMessageChunk>> {
  const db = openDb(cfg.dataDir);
  const session = requireSession(db, body.sessionId, cfg.workspace);
  // the steps ask for the session's model again (a pick in the header counts from the next step); the first finds this one
  const stepModels = sessionModelForSteps(cfg, body.sessionId);
  const inputs = o.model ? '' : stepModels.inputs();
  const resolved = o.model ?? (await sessionModelWithWindow(cfg, body.sessionId));
  if (!o.model) stepModels.seed(inputs, resolved);
  if (!resolved.ok) throw new NoModelError(resolved.status.help ?? 'No model is configured.');
  if (runningTurns().has(body.sessionId)) {
    throw new HttpError(409, 'This session is already working on a turn. Wait for it, or press Stop.');
  }
  // built-ins and MCP tools (with deferral for the window), read afresh for every turn
  const tools = await turnTools(cfg, { sessionId: body.sessionId, status: resolved.status, mode: () => getSessionMode(db, body.sessionId) ?? 'default' });
  if (session.parentId) throw new HttpError(409, "This is a subagent's transcript: it is read-only. Continue in its parent session.");
  // without a host of its own (a headless run brings one) the person follows the turn in the page: ask_user waits for them
  const stored = storeHost(db, { sessionId: body.sessionId, workspace: cfg.workspace, dataDir: cfg.dataDir, services: { tasks: getTaskManager(cfg.dataDir), ...tools.services }, person: !o.host });
  const host = o.host ? o.host(stored) : stored;
  let messages: ClampMessage[];
  let loaded: ClampMessage[];
  const extra = body.message
    ? await attachmentParts(body.message, { workspace: cfg.workspace, dataDir: cfg.dataDir, mode: session.mode, sessionId: body.sessionId, signal: o.signal, imageInput: resolved.status.imageInput, modelLabel: resolved.status.label })
    : [];
  try {
    loaded = loadMessages(db, body.sessionId);
    // a new message carries the late diagnostics the model has not read yet
    messages = withLateNote(mergeIncoming(loaded, body, host.answerFor, extra), body.sessionId);
  } catch (err) {
    if (err instanceof ChatRequestError) throw new HttpError(err.status, err.message);
    throw err;
  }
  // the user's message is stored before the model is asked anything: a crash loses no input
  saveMessages(db, body.sessionId, messages, { storedBefore: samePrefix(messages, loaded) });
  nameFromMessages(db, body.sessionId, messages);
  touchSession(db, body.sessionId);

  const abort = new AbortController();
  runningTurns().set(body.sessionId, abort);
  const onGone = () => abort.abort(new Error(o.abortReason ?? 'the page stopped the turn'));
  o.signal.addEventListener('abort', onGone);
  const finish = () => {
    o.signal.removeEventListener('abort', onGone);
    if (runningTurns().get(body.sessionId) === abort) runningTurns().delete(body.sessionId);
  };
  const stream = runTurn({
    host,
    reg: tools.reg,
    systemExtra: tools.systemExtra,
    model: resolved.model,
    status: resolved.status,
    messages,
    signal: abort.signal,
    approvalSecret: getApprovalSecret(cfg.dataDir),
    maxSteps: o.maxSteps ?? maxStepsFromEnv(),
    // a model picked in the header mid-turn answers from the next step (a model given by the caller stays)
    stepModel: o.model
      ? undefined
      : () => {
          const r = stepModels.resolve();
          return r.ok && specOf(r) ? { id: r.status.model!, model: r.model } : null;
        },
    save: (all) => {
      try {
        // the messages before the turn's own are the objects saved above: only the turn's message is written
        saveMessages(db, body.sessionId, all, { storedBefore: samePrefix(all, messages) });
        touchSession(db, body.sessionId);
      } catch (err) {
        console.error('clamp: could not save the session:', err);
      }
    },
  });
  // a cancelled response (the page went away) must still release the session
  abort.signal.addEventListener('abort', () => setTimeout(finish, 5000).unref?.());
  return stream.pipeThrough(new TransformStream<UIMessageChunk, UIMessageChunk>({ flush: finish }));
}
