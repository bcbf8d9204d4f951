import type { UIMessageChunk } from 'ai';
import type { ChatBody } from '../contract/chat-body';
import type { ClampMessage, ModelStatus } from '../contract/protocol';
import type { ToolServices } from '../contract/types';
import type { AgentHost } from '../agent/host';
import { ChatRequestError, mergeIncoming } from '../agent/chat-request';
import type { ResolvedModel, UnresolvedModel } from '../agent/providers';
import type { StepModel } from '../agent/model-switch';
import { runTurn } from '../agent/run-turn';
import { asDiskFull, diskFullText, isDiskFull } from '../contract/disk-full';
import { openDb, type Db } from '../store/db';
import { loadMessages, saveMessages } from '../store/messages';
import { getSessionMode, nameFromMessages, requireSession, touchSession, type SessionRecord } from '../store/sessions';
import { getApprovalSecret } from '../store/secrets';
import { turnTools } from './mcp';
import { getTaskManager } from '../tasks/manager';
import { storeHost } from './agent-host';
import { HttpError, type ServerConfig } from './http';
import { sessionTurnModel, specOf } from './session-model';
import { attachmentParts } from './attach';
import { withLateNote } from './diagnostics';
import { holdSession } from './turn-hold';
import { turnPlace } from './worktrees';
import { SPEND_SERVICE, type SpendGuard } from '../contract/limits';
import { spendGuard } from './limits';
import { commandRegistry, namedModel, turnCommand } from './turn-command';
import { withWindow } from './model';
import type { FileCommandUse } from '../contract/command-text';

export { isTurnRunning, SessionBusyError, stopTurn } from './turn-hold';

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
  /** what this process is, as another one refused the session reads it (default "the Clamp server") */
  holder?: string;
  /** the turn's spending (a headless run brings its own, with its --max-tokens/--max-cost); absent: the store's, with the settings' limits */
  spend?: SpendGuard;
}

/**
 * Start one turn of a session: check the session, hold it (no turn of it runs in this process or, by its lock in
 * the store, in another one), check the model, merge the body (a user message or a continuation) into what is
 * stored, save it, and run the loop, saving after every step. Returns the UI message stream; the session is
 * released when the stream ends or the turn is aborted, or at once when the turn cannot start. Throws HttpError
 * (SessionBusyError when the session is held, before anything is written; NoModelError when no model can be used;
 * StoreError for an unknown session).
 */
export async function startSessionTurn(cfg: ServerConfig, body: ChatBody, o: SessionTurnOptions): Promise<ReadableStream<UIMessageChunk>> {
  const db = openDb(cfg.dataDir);
  // the session is read once: its model pick, its mode for the attachments, whether it is a subagent's
  const session = requireSession(db, body.sessionId, cfg.workspace);
  if (session.parentId) throw new HttpError(409, "This is a subagent's transcript: it is read-only. Continue in its parent session.");
  const held = holdSession(db, body.sessionId, { signal: o.signal, abortReason: o.abortReason, holder: o.holder ?? 'the Clamp server' });
  try {
    return held.release(await setUpTurn(cfg, db, session, body, o, held.signal));
  } catch (err) {
    held.end();
    throw err;
  }
}

/** The held session's turn: its model, tools and host, the body stored, and the loop's stream. */
async function setUpTurn(cfg: ServerConfig, db: Db, session: SessionRecord, body: ChatBody, o: SessionTurnOptions, signal: AbortSignal): Promise<ReadableStream<UIMessageChunk>> {
  // a command from a file: its allowed-tools and model hold for the turn (and its continuations)
  const command = turnCommand(cfg, db, body);
  const model = await turnModel(cfg, session, o, command);
  // a session on its own worktree works there (a pending one is made now, its branch named from this message)
  const here = await turnPlace(cfg, db, body);
  // built-ins and MCP tools (with deferral for the window), read afresh for every turn
  const tools = await turnTools(here, { sessionId: body.sessionId, status: model.resolved.status, mode: () => getSessionMode(db, body.sessionId) ?? 'default', home: cfg.workspace });
  const host = turnHost(here, db, body.sessionId, tools.services, o);
  const messages = await storeIncoming(here, db, session, body, host, model.resolved.status, signal, command);
  return runTurn({
    host,
    reg: commandRegistry(tools.reg, command),
    // an agent file's model, for its children
    modelFor: (named) => {
      const r = namedModel(cfg, named, model.resolved);
      return r.ok ? { model: r.model, status: r.status } : { error: r.status.help ?? `the model ${named} is not configured` };
    },
    systemExtra: tools.systemExtra,
    model: model.resolved.model,
    status: model.resolved.status,
    messages,
    signal,
    approvalSecret: getApprovalSecret(cfg.dataDir),
    maxSteps: o.maxSteps ?? maxStepsFromEnv(),
    stepModel: model.stepModel,
    save: saveTurn(db, cfg.dataDir, body.sessionId, messages),
  });
}

/**
 * The model of a turn: the caller's, else the one the session (as read) picked, or the configured one,
 * with the window a local server reports; then the steps ask for the session's model again, so a model
 * picked in the header mid-turn answers from the next step (a model given by the caller stays). Throws
 * NoModelError.
 */
async function turnModel(cfg: ServerConfig, session: SessionRecord, o: SessionTurnOptions, command?: FileCommandUse): Promise<{ resolved: ResolvedModel; stepModel?: () => StepModel | null }> {
  if (o.model) {
    if (!o.model.ok) throw new NoModelError(o.model.status.help ?? 'No model is configured.');
    return { resolved: o.model };
  }
  const { resolved, steps } = await sessionTurnModel(cfg, session);
  if (!resolved.ok) throw new NoModelError(resolved.status.help ?? 'No model is configured.');
  if (command?.model) {
    // the command's model answers the whole turn (the picker's choice holds again from the next message)
    const named = await withWindow(cfg, namedModel(cfg, command.model, resolved));
    if (!named.ok) throw new HttpError(400, `The command /${command.name} names the model ${command.model}, which cannot be used: ${named.status.help ?? 'it is not configured'}. Change the model line of its file, or remove it to use the session's model.`);
    return { resolved: named };
  }
  const stepModel = () => {
    const r = steps.resolve();
    return r.ok && specOf(r) ? { id: r.status.model!, model: r.model } : null;
  };
  return { resolved, stepModel };
}

/** The store's host of the session with the turn's tool services, or the caller's host derived from it. */
function turnHost(cfg: ServerConfig, db: Db, sessionId: string, services: ToolServices, o: SessionTurnOptions): AgentHost {
  // without a host of its own (a headless run brings one) the person follows the turn in the page: ask_user waits for them
  const stored = storeHost(db, { sessionId, workspace: cfg.workspace, dataDir: cfg.dataDir, services: { tasks: getTaskManager(cfg.dataDir), ...services, [SPEND_SERVICE]: o.spend ?? spendGuard(db, { sessionId }) }, person: !o.host });
  return o.host ? o.host(stored) : stored;
}

/**
 * The body merged into the stored conversation (its attachments read, the late diagnostics the model has
 * not read yet noted) and saved before the model is asked anything: a crash loses no input. Throws
 * HttpError for a body that does not fit the conversation.
 */
async function storeIncoming(cfg: ServerConfig, db: Db, session: SessionRecord, body: ChatBody, host: AgentHost, status: ModelStatus, signal: AbortSignal, command?: FileCommandUse): Promise<ClampMessage[]> {
  const extra: ClampMessage['parts'] = body.message
    ? await attachmentParts(body.message, { workspace: cfg.workspace, dataDir: cfg.dataDir, mode: session.mode, sessionId: body.sessionId, signal, imageInput: status.imageInput, modelLabel: status.label })
    : [];
  if (body.message?.command && command) extra.push({ type: 'data-file-command', id: 'file-command', data: command });
  let messages: ClampMessage[];
  let loaded: ClampMessage[];
  try {
    loaded = loadMessages(db, body.sessionId);
    messages = withLateNote(mergeIncoming(loaded, body, host.answerFor, extra), body.sessionId);
  } catch (err) {
    if (err instanceof ChatRequestError) throw new HttpError(err.status, err.message);
    throw err;
  }
  try {
    saveMessages(db, body.sessionId, messages, { storedBefore: samePrefix(messages, loaded) });
  } catch (err) {
    throw asDiskFull(err, 'Your message', cfg.dataDir);
  }
  nameFromMessages(db, body.sessionId, messages);
  touchSession(db, body.sessionId);
  return messages;
}

/**
 * The turn's save after each step: the messages before the turn's own are the objects saved at its start, so only
 * the turn's message is written. A save that fails (a full disk) leaves the stored session as it was (one
 * transaction) and answers the sentence the page is shown; the next save writes everything again.
 */
function saveTurn(db: Db, dataDir: string, sessionId: string, messages: ClampMessage[]): (all: ClampMessage[]) => string | undefined {
  return (all) => {
    try {
      saveMessages(db, sessionId, all, { storedBefore: samePrefix(all, messages) });
      touchSession(db, sessionId);
      return undefined;
    } catch (err) {
      console.error('clamp: could not save the session:', err);
      if (isDiskFull(err)) return diskFullText("This turn's save", dataDir, err, 'The turn goes on, and is saved at its next step once there is room.');
      return `This turn could not be saved (${err instanceof Error ? err.message : String(err)}); the session keeps what was saved before.`;
    }
  };
}
