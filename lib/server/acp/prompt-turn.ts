import type { UIMessageChunk } from 'ai';
import type { AgentContext, PromptRequest, PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ChatBody } from '../../contract/chat-body';
import type { AgentHost } from '../../agent/host';
import { createToolRegistry } from '../../dispatch/all-tools';
import { newId, StoreError } from '../../store/db';
import { answerToolCall } from '../approvals';
import { HttpError, type ServerConfig } from '../http';
import { startSessionTurn } from '../turn';
import { commandMessage } from './commands';
import type { OnResult } from './editor-fs';
import { editorAsk } from './ask';
import { answerOf, permissionRequest } from './permission';
import { promptMessage } from './prompt-blocks';
import { TurnRelay, type PendingCall } from './relay';

/** One ACP session of this connection: its Clamp session, the folder it works in, and the running prompt's stop. */
export interface AcpSession {
  id: string;
  cfg: ServerConfig;
  /** aborting it stops the running prompt (session/cancel) as the page's Stop does */
  stop?: AbortController;
  /**
   * the host as the editor's session uses it (its files through the editor, when the editor offers them); always a
   * host of the caller's own, so the turn knows the person is in the editor, not on the page
   */
  host?: (stored: AgentHost) => AgentHost;
  /** a call finished: the editor's buffers follow the files it wrote */
  onResult?: OnResult;
}

/** Where a prompt's updates go. */
export type Send = (update: SessionUpdate) => void;

const REASON_STOPPED = 'stopped in the editor (session/cancel)';

/**
 * `session/prompt`: the prompt as a user message (commands expanded, files attached), one turn through
 * startSessionTurn like the page's, relayed as updates; a call that would ask on the page asks the editor
 * (session/request_permission), its answer is recorded as the page records it, and the turn continues as the
 * page's does. Ends with "cancelled" when session/cancel stopped it, "max_turn_requests" at the step limit
 * (CLAMP_MAX_STEPS) with calls still to follow up. Throws RequestError for a prompt the turn
 * refuses (the session busy elsewhere, no model).
 */
export async function runPrompt(client: AgentContext, s: AcpSession, params: PromptRequest, send: Send): Promise<PromptResponse> {
  const msg = promptMessage(params.prompt, s.cfg.workspace);
  const cmd = commandMessage(s.cfg, msg.text);
  const stop = new AbortController();
  s.stop = stop;
  const reg = createToolRegistry();
  let body: ChatBody = { sessionId: s.id, message: { id: `acp-${newId()}`, text: cmd.text, ...(msg.files.length ? { files: msg.files } : {}), ...(cmd.skill ? { skill: cmd.skill } : {}), ...(cmd.command ? { command: cmd.command } : {}) } };
  try {
    const relay = new TurnRelay({ reg, workspace: s.cfg.workspace, send, onResult: s.onResult });
    for (;;) {
      relay.nextStream();
      await relayStream(await turnStream(client, s, body, stop.signal, relay), relay);
      if (stop.signal.aborted || relay.aborted) return { stopReason: 'cancelled' };
      const pending = relay.pending();
      if (!pending.length || !relay.messageId) return { stopReason: relay.stepLimited() ? 'max_turn_requests' : 'end_turn' };
      const answered = await askEditor(client, s, pending, relay, stop.signal);
      if (!answered) return { stopReason: 'cancelled' };
      body = { sessionId: s.id, continue: { messageId: relay.messageId } };
    }
  } finally {
    if (s.stop === stop) s.stop = undefined;
  }
}

/** The session's host for one turn: ask_user asks the editor, and the editor hears of each call about to run (in progress) before the host's own write-ahead. */
function runningHost(client: AgentContext, s: AcpSession, relay: TurnRelay): (stored: AgentHost) => AgentHost {
  return (stored) => {
    const host = s.host ? s.host(stored) : stored;
    return {
      ...host,
      // ask_user's questions go to the editor (a person is there, answering through the protocol)
      services: { ...host.services, ask: editorAsk(client, s.id) },
      beforeRun: async (call) => {
        relay.running(call.toolCallId);
        await host.beforeRun?.(call);
      },
    };
  };
}

/** The turn's stream, started as the page's route starts one; what it refuses becomes the request's error. */
async function turnStream(client: AgentContext, s: AcpSession, body: ChatBody, signal: AbortSignal, relay: TurnRelay): Promise<ReadableStream<UIMessageChunk>> {
  try {
    return await startSessionTurn(s.cfg, body, { signal, abortReason: REASON_STOPPED, holder: 'clamp acp', host: runningHost(client, s, relay) });
  } catch (err) {
    if (err instanceof HttpError || err instanceof StoreError) throw new RequestError(-32603, err.message);
    throw err;
  }
}

async function relayStream(stream: ReadableStream<UIMessageChunk>, relay: TurnRelay): Promise<void> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    relay.note(value);
  }
}

/**
 * Ask the editor about each waiting call, in call order, and record each answer as the page does. False when
 * the prompt was cancelled meanwhile (the calls not answered yet are refused, so the conversation stays whole).
 */
async function askEditor(client: AgentContext, s: AcpSession, pending: PendingCall[], relay: TurnRelay, signal: AbortSignal): Promise<boolean> {
  const reg = createToolRegistry();
  for (const call of pending) {
    let answer = signal.aborted ? undefined : await ask(client, s, call, reg, signal);
    const cancelled = answer === undefined;
    answer ??= 'deny';
    try {
      answerToolCall(s.cfg, s.id, call.toolCallId, { answer, ...(cancelled ? { reason: 'The prompt was cancelled in the editor.' } : {}) });
    } catch (err) {
      // the page answered it meanwhile: its answer stands
      if (!(err instanceof HttpError)) throw err;
    }
    if (answer !== 'deny') relay.running(call.toolCallId);
  }
  return !signal.aborted;
}

/** The editor's answer for one call; undefined when the prompt was cancelled or the editor gave no usable answer. */
async function ask(client: AgentContext, s: AcpSession, call: PendingCall, reg: ReturnType<typeof createToolRegistry>, signal: AbortSignal) {
  try {
    const r = await client.request('session/request_permission', permissionRequest(s.id, call, reg, s.cfg.workspace), { cancellationSignal: signal, stopWaitingOnCancel: true });
    if (r.outcome.outcome !== 'selected') return undefined;
    return answerOf(r.outcome.optionId) ?? 'deny';
  } catch (err) {
    if (signal.aborted) return undefined;
    process.stderr.write(`clamp acp: the editor did not answer the permission request for ${call.toolName}: ${err instanceof Error ? err.message : String(err)}; the call is refused.\n`);
    return 'deny';
  }
}
