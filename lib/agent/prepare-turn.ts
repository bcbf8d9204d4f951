import { convertToModelMessages, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { listedTools, type Registry } from '../dispatch/registry';
import type { Budget } from '../contract/budget';
import type { ClampMessage, ModelStatus } from '../contract/protocol';
import type { AgentHost } from './host';
import { buildAgentTools, withListedTools, type AgentToolsOptions } from './agent-tools';
import { CallScheduler } from './scheduler';
import { buildSystemPrompt } from './system-prompt';
import { ContextKeeper, type KeeperOptions } from './context/keeper';
import { hookServiceOf } from '../contract/hooks';
import { spendMetered, spendMeteredAny } from './spend-gate';
import { CallIds, conversationCallIds } from './call-ids';
import { dataPartForModel } from './data-parts';
import { withModelContent } from './turn-messages';

/** What a turn's tools tell whoever runs the turn: the page's stream, a subagent's card. */
export type TurnToolHooks = Pick<AgentToolsOptions, 'onProgress' | 'onApprovalInfo' | 'onResult' | 'callPlace' | 'awaitApproval' | 'onStart'>;

export interface PrepareTurnOptions {
  /** the host as the turn's tools see it (with the turn's services, when it has any) */
  host: AgentHost;
  reg: Registry;
  model: LanguageModel;
  status: ModelStatus;
  budget: Budget;
  /** the conversation the turn starts from */
  stored: ClampMessage[];
  /** aborts the turn's calls and the keeper's requests; absent: nothing stops them */
  signal?: AbortSignal;
  /** more system prompt sections (skills, memories, a subagent's own) */
  systemExtra?: string[];
  maxRetries?: number;
  /** the keeper's events (context meter, pruned marks, compactions) */
  emit: KeeperOptions['emit'];
  /** the assistant message the turn writes into */
  messageId: () => string;
  hooks?: TurnToolHooks;
}

/** What one turn runs on: built once by prepareTurn for the page's turn, a subagent and compaction alike. */
export interface PreparedTurn {
  tools: ToolSet;
  scheduler: CallScheduler;
  keeper: ContextKeeper;
  /** the system prompt (nothing in it changes per step) */
  system: string;
  /** the names of the tools the mode lists now (read at each call: a mode switched on the page holds from the next step) */
  listed: () => string[];
  /** a model as the loop calls it: each request lists the mode's tools only, and every call gets an id no other call of the session has */
  model: (m: LanguageModel) => LanguageModelV3;
  /** the stored conversation as the model reads it */
  input: () => Promise<ModelMessage[]>;
}

/**
 * Build what a turn needs: its SDK tools over the registry (every call through dispatch, scheduled by
 * side-effect class), its context keeper (told of every result), its system prompt, the mode's tool
 * list and its model. Builds nothing that talks to the model or runs a tool.
 */
/**
 * f's answer worked out once per turn of the event loop (a copy to each caller): a step asks for its listed tools twice
 * (the context keeper, then the request), a few microtasks apart, and each asking reads the mode and the tools' files.
 */
function oncePerTick<T>(f: () => T[]): () => T[] {
  let kept: T[] | null = null;
  return () => {
    if (!kept) {
      kept = f();
      setImmediate(() => (kept = null));
    }
    return [...kept];
  };
}

export function prepareTurn(o: PrepareTurnOptions): PreparedTurn {
  const { host } = o;
  const scheduler = new CallScheduler();
  const tools = buildAgentTools({
    ...o.hooks,
    reg: o.reg,
    host,
    scheduler,
    budget: o.budget,
    signal: o.signal ?? new AbortController().signal,
    onResult: (toolCallId, name, r) => {
      // tools run only once the loop runs, after the keeper exists
      keeper.noteResult(toolCallId, r);
      o.hooks?.onResult?.(toolCallId, name, r);
    },
  });
  const sys = buildSystemPrompt({ workspace: host.workspace, dataDir: host.dataDir, extra: o.systemExtra });
  const keeper = new ContextKeeper({
    // a compaction's summary request counts toward the spending limits too
    model: spendMeteredAny(o.model, host, o.status.prices),
    status: o.status,
    budget: o.budget,
    dataDir: host.dataDir,
    system: sys.prompt,
    projectDocs: sys.docs.text,
    tools,
    registry: o.reg,
    stored: o.stored,
    emit: o.emit,
    signal: o.signal,
    maxRetries: o.maxRetries,
    messageId: o.messageId,
    // what the PreCompact hooks did goes on the compaction's divider for the person, not to the model (as in Claude Code)
    beforeCompact: async (trigger, focus) => hookServiceOf(host.services)?.preCompact(host.sessionId, trigger === 'manual' ? 'manual' : 'auto', focus),
  });
  const ctxInfo = { workspace: host.workspace, dataDir: host.dataDir, services: host.services };
  const listed = oncePerTick(() => listedTools(o.reg, host.mode(), ctxInfo).map((t) => t.name));
  // every call of the session gets an id of its own, whatever ids the model server hands out
  const ids = new CallIds((id) => host.callIdUsed?.(id) ?? false);
  ids.seen(conversationCallIds(o.stored));
  return {
    tools,
    scheduler,
    keeper,
    system: sys.prompt,
    listed,
    // the model is told about the mode's tools; the SDK knows them all, so dispatch refuses the rest
    // and each request is counted toward the spending limits when its answer ends
    model: (m) => spendMetered(withListedTools(m, () => new Set(listed()), ids), host, o.status.prices),
    input: () => convertToModelMessages(withModelContent(o.stored), { tools, ignoreIncompleteToolCalls: true, convertDataPart: dataPartForModel }),
  };
}
