import { dynamicTool, InvalidToolInputError, jsonSchema, tool, wrapLanguageModel, type LanguageModel, type ToolSet } from 'ai';
import type { JSONSchema7, LanguageModelV3, LanguageModelV3ToolCall } from '@ai-sdk/provider';
import type { Registry } from '../dispatch/registry';
import { describeTool, lookupTool, modelSchema } from '../dispatch/registry';
import { createContext } from '../dispatch/context';
import { denialText, dispatch, judge, type Approver } from '../dispatch/dispatch';
import type { Budget } from '../contract/budget';
import { traitsOf, type PolicyDecision, type ToolContext, type ToolDefinition, type ToolProgress, type ToolResult } from '../contract/types';
import type { AgentHost, RecordedAnswer, RunningCall } from './host';
import type { ApprovalInfo } from '../contract/protocol';
import type { CallScheduler } from './scheduler';
import { APPROVED_NETWORK } from '../tools/commands/sandbox-policy';
import { mcpImagesOf } from '../mcp/content';
import { callIdMiddleware, type CallIds } from './call-ids';
import { hookServiceOf } from '../contract/hooks';

export interface AgentToolsOptions {
  reg: Registry;
  host: AgentHost;
  scheduler: CallScheduler;
  budget: Budget;
  /** live output of running tools, and approval details, for the page */
  onProgress?: (toolCallId: string, p: ToolProgress) => void;
  onApprovalInfo?: (info: ApprovalInfo) => void;
  /** every finished call's result (the plan panel follows todo_write through it) */
  onResult?: (toolCallId: string, toolName: string, result: ToolResult) => void;
  /** where a call about to run sits in the conversation (for the host's write-ahead) */
  callPlace?: () => Pick<RunningCall, 'messageId' | 'userMessageId' | 'stepParts'>;
  signal: AbortSignal;
  /**
   * A subagent's loop: a call that needs a person waits here for the answer (recorded pending, shown
   * in the parent's bar) while the call runs, instead of the SDK's stop-and-continue. 'stopped': the
   * turn was stopped meanwhile. Absent: the SDK's approval flow.
   */
  awaitApproval?: (info: ApprovalInfo, input: unknown, signal: AbortSignal) => Promise<RecordedAnswer | 'stopped'>;
  /** the call has started running (after any approval): a child's card follows it */
  onStart?: (toolCallId: string, toolName: string) => void;
}

/** The call in one line from the tool's own summary() (the input is validated). */
function summarize(tool: ToolDefinition, input: unknown): string {
  let line = '';
  try {
    line = tool.summary(input);
  } catch {
    // a summary that throws must not keep the person from answering
  }
  return `${tool.name} ${line}`.trim();
}

const modelOutput = ({ output }: { output: unknown }) => {
  const r = output as ToolResult;
  const images = mcpImagesOf(r);
  // an MCP tool's images go to the model as image parts (only when the model takes them: see lib/mcp/content.ts)
  if (images.length && r.status !== 'error') {
    return { type: 'content' as const, value: [{ type: 'text' as const, text: r.output }, ...images.map((i) => ({ type: 'image-data' as const, data: i.data, mediaType: i.mediaType }))] };
  }
  return { type: r.status === 'error' ? ('error-text' as const) : ('text' as const), value: r.output };
};

/** What the calls of one turn's tools share: the options, the rules' approver, and the verdicts made when the SDK asked. */
interface TurnCalls {
  o: AgentToolsOptions;
  approver: Approver;
  /** the verdict made when the SDK asked whether a call needs approval, used when that call runs */
  verdicts: Map<string, PolicyDecision>;
}

/**
 * The registry as AI SDK tools. Every call goes through dispatch, which alone refuses or clamps it:
 * every registered tool is given to the SDK (the mode's listed tools are what the model is told
 * about: see withListedTools), so a call the mode forbids reaches dispatch and gets its refusal; a
 * name no tool has gets a stand-in that sends it to dispatch too ("Unknown tool …"). The SDK's
 * approval flow asks the person when the verdict is "ask"; that verdict is recorded with the pending
 * approval and used, not recomputed, when the approved call runs. toModelOutput gives the model the
 * budgeted text while the page receives the whole ToolResult.
 */
export function buildAgentTools(o: AgentToolsOptions): ToolSet {
  const lookup = toolLookup({ o, approver: { rule: (t, input, d, paths) => o.host.ruleVerdict(t, input, d, paths) }, verdicts: new Map() });
  // only the registry's tools are listed (Object.keys/entries: what the model can be told about); a
  // look-up of any other name, by property or own-property check, finds its stand-in
  const known = (key: string) => Object.hasOwn(o.reg, key);
  return new Proxy(Object.create(null) as ToolSet, {
    get: (_target, key) => (typeof key === 'string' ? lookup(key) : undefined),
    has: (_target, key) => typeof key === 'string',
    ownKeys: () => Object.keys(o.reg),
    getOwnPropertyDescriptor: (_target, key) =>
      typeof key === 'string' ? { value: lookup(key), writable: false, enumerable: known(key), configurable: true } : undefined,
  });
}

/** A call's tool context; "allow network" on this call's approval reaches run_command through its own context only. */
function ctxFor(c: TurnCalls, toolCallId: string, signal?: AbortSignal, network = false): ToolContext {
  const { o } = c;
  return createContext({
    workspace: o.host.workspace,
    dataDir: o.host.dataDir,
    mode: o.host.mode(),
    signal: signal ?? o.signal,
    budget: o.budget,
    sessionId: o.host.sessionId,
    callId: toolCallId,
    services: network ? { ...o.host.services, [APPROVED_NETWORK]: true } : o.host.services,
    onProgress: o.onProgress ? (p) => o.onProgress!(toolCallId, p) : undefined,
  });
}

/** The SDK's question for a tool: does this call need the person? Judged once; the verdict is kept for the call's run. */
const needsApproval = (c: TurnCalls, name: string) => async (input: unknown, { toolCallId }: { toolCallId: string }) => {
  const { o } = c;
  // a child's calls wait for their answer inside run()
  if (o.awaitApproval) return false;
  // the SDK asks again when an approved call resumes, and would drop an answer a rule has since made
  // unnecessary: a call a person has answered did need approval
  if (o.host.answerFor(toolCallId)) return true;
  const ctx = ctxFor(c, toolCallId);
  const j = await judge(o.reg, name, input, ctx, c.approver);
  // a call that cannot run (invalid, outside the workspace) runs into dispatch, which says why
  if (!j.ok) return false;
  if (j.decision.action !== 'ask') {
    c.verdicts.set(toolCallId, j.decision);
    return false;
  }
  // no person to ask: the host decides now, and dispatch runs or refuses the call on that verdict
  if (o.host.unattended) {
    c.verdicts.set(toolCallId, o.host.unattended(j.tool, j.decision));
    return false;
  }
  const info = await approvalInfo(j.tool, j.input, j.decision, { ...ctx, paths: j.paths }, toolCallId);
  o.host.recordPending(info, j.input);
  o.onApprovalInfo?.(info);
  notifyWaiting(o.host, info);
  return true;
};

/** A call waits for the person: Notification hooks hear of it (Claude Code's wording). */
function notifyWaiting(host: AgentHost, info: ApprovalInfo): void {
  hookServiceOf(host.services)?.notification(host.sessionId, `Clamp needs your permission to use ${info.toolName}: ${info.summary}`);
}

/** Run one call: its answer or verdict, the host's write-ahead, dispatch, and the result told to the turn. */
async function runCall(c: TurnCalls, name: string, input: unknown, toolCallId: string, signal: AbortSignal | undefined): Promise<ToolResult> {
  const { o } = c;
  let answer = o.host.answerFor(toolCallId);
  if (o.awaitApproval && !answer) {
    const waited = await waitInRun(c, name, input, toolCallId, signal ?? o.signal);
    if (waited.result) {
      o.onResult?.(toolCallId, name, waited.result);
      return waited.result;
    }
    answer = waited.answer;
  }
  o.onStart?.(toolCallId, name);
  const ctx = ctxFor(c, toolCallId, signal, !!answer && answer.answer !== 'deny' && answer.network === true);
  const verdict = answer ? answer.decision : c.verdicts.get(toolCallId);
  c.verdicts.delete(toolCallId);
  // a denied call never executes (the SDK reports it as denied); were one to, it would still not run
  const approved = !!answer && answer.answer !== 'deny';
  const startedAt = Date.now();
  // write-ahead and the checkpoint before a change: stored before the call runs
  const place = o.callPlace?.() ?? { messageId: '', userMessageId: null, stepParts: [] };
  const ran = answer?.answer === 'edit' && answer.editedCommand ? { ...(input as object), command: answer.editedCommand } : input;
  const refused = await o.host.beforeRun?.({ toolCallId, toolName: name, input: ran, effect: lookupTool(o.reg, name)?.effect, ...place });
  let r =
    refused ||
    (await dispatch(o.reg, name, input, ctx, {
      approver: { ...c.approver, approved },
      verdict,
      editedCommand: answer?.answer === 'edit' && answer.editedCommand ? answer.editedCommand : undefined,
    }));
  // the page shows every call's duration, also after a reload (metadata only: the model's text is not touched)
  if (typeof r.meta?.durationMs !== 'number') r = { ...r, meta: { ...r.meta, durationMs: Date.now() - startedAt } };
  o.host.afterRun?.(toolCallId, r);
  if (answer) o.host.markConsumed(toolCallId);
  o.onResult?.(toolCallId, name, r);
  return r;
}

/** A child's call that needs a person: judged here, recorded pending, and awaited while the call runs. */
async function waitInRun(c: TurnCalls, name: string, input: unknown, toolCallId: string, signal: AbortSignal): Promise<{ result?: ToolResult; answer?: RecordedAnswer }> {
  const { o } = c;
  const ctx = ctxFor(c, toolCallId, signal);
  const j = await judge(o.reg, name, input, ctx, c.approver);
  if (!j.ok || j.decision.action !== 'ask') {
    if (j.ok) c.verdicts.set(toolCallId, j.decision);
    return {};
  }
  // no person to ask: the host decides now, and dispatch runs or refuses the call on that verdict
  if (o.host.unattended) {
    c.verdicts.set(toolCallId, o.host.unattended(j.tool, j.decision));
    return {};
  }
  const info = await approvalInfo(j.tool, j.input, j.decision, { ...ctx, paths: j.paths }, toolCallId);
  notifyWaiting(o.host, info);
  const a = await o.awaitApproval!(info, j.input, signal);
  if (a === 'stopped') return { result: { status: 'error', output: `${name} was not run: the turn was stopped while it waited for approval.`, truncation: null } };
  if (a.answer === 'deny') {
    o.host.markConsumed(toolCallId);
    return { result: { status: 'denied', output: denialText(name, { by: 'user', reason: a.reason }), truncation: null, meta: { policy: j.decision } } };
  }
  return { answer: { ...a, decision: a.decision ?? j.decision } };
}

/** The SDK tool for a name: built lazily from the registry as it is at each look-up (a turn's registry follows its MCP servers), a stand-in for a name it lacks. */
function toolLookup(c: TurnCalls): (key: string) => ToolSet[string] {
  const { o } = c;
  const execute = (name: string, effect: ToolDefinition['effect']) => (input: unknown, opts: { toolCallId: string; abortSignal?: AbortSignal }) =>
    o.scheduler.schedule(effect, () => runCall(c, name, input, opts.toolCallId, opts.abortSignal));
  const built = new Map<string, { def: ToolDefinition; tool: ToolSet[string] }>();
  const sdkTool = (t: ToolDefinition): ToolSet[string] => {
    let b = built.get(t.name);
    if (!b || b.def !== t) {
      b = {
        def: t,
        tool: tool({
          description: describeTool(t, o.budget),
          // dispatch validates with errors written for the model; the SDK passes the input through
          inputSchema: jsonSchema<unknown>(modelSchema(t) as JSONSchema7),
          needsApproval: needsApproval(c, t.name),
          execute: execute(t.name, t.effect),
          toModelOutput: modelOutput,
        }),
      };
      built.set(t.name, b);
    }
    return b.tool;
  };
  // a name the registry does not have: dispatch answers it (nothing runs), so it can run alongside reads
  const standIns = new Map<string, ToolSet[string]>();
  const standIn = (name: string): ToolSet[string] => {
    let t = standIns.get(name);
    if (!t) {
      t = dynamicTool({ description: '', inputSchema: jsonSchema<unknown>({}), execute: execute(name, 'read'), toModelOutput: modelOutput });
      standIns.set(name, t!);
    }
    return t!;
  };
  return (key) => (Object.hasOwn(o.reg, key) ? sdkTool(o.reg[key]) : standIn(key));
}

/**
 * The SDK's repair hook: a call whose arguments are not JSON is given to its tool as the raw text
 * (a JSON string), so dispatch reads it and answers "… they are not valid JSON …" as for any caller.
 * Never throws.
 */
export async function repairMalformedCall({ toolCall, error }: { toolCall: LanguageModelV3ToolCall; error: unknown }): Promise<LanguageModelV3ToolCall | null> {
  if (!InvalidToolInputError.isInstance(error)) return null;
  return { ...toolCall, input: JSON.stringify(toolCall.input) };
}

/**
 * The model as the loop calls it: each request lists only the tools the mode offers (read when the
 * request is made, so a mode switched on the page holds from the next step); the SDK still knows
 * every tool, so a forbidden call reaches dispatch and is refused there. With `ids`, every call the
 * model makes gets an id no other call of the session has (lib/agent/call-ids.ts).
 */
export function withListedTools(model: LanguageModel, listed: () => ReadonlySet<string>, ids?: CallIds): LanguageModelV3 {
  if (typeof model === 'string' || model.specificationVersion !== 'v3') {
    throw new Error(`Clamp needs a language model of the AI SDK's v3 specification; ${typeof model === 'string' ? model : model.modelId} is not one.`);
  }
  return wrapLanguageModel({
    model,
    middleware: [
      {
        specificationVersion: 'v3',
        transformParams: async ({ params }) => {
          const names = listed();
          return { ...params, tools: params.tools?.filter((t) => names.has(t.name)) };
        },
      },
      ...(ids ? [callIdMiddleware(ids)] : []),
    ],
  });
}

/** What the approval bar shows for a call: summary, sub-commands, cwd, tier and reason, diff for writes. */
export async function approvalInfo(tool: ToolDefinition, input: unknown, decision: PolicyDecision, ctx: ToolContext, toolCallId: string): Promise<ApprovalInfo> {
  let summary = summarize(tool, input);
  let diff: string | undefined;
  if (tool.preview) {
    try {
      const p = await tool.preview(input as never, ctx);
      summary = p.summary ?? summary;
      diff = p.diff;
    } catch (err) {
      diff = `(the change could not be previewed: ${err instanceof Error ? err.message : String(err)})`;
    }
  }
  const i = (input ?? {}) as Record<string, unknown>;
  return {
    toolCallId,
    toolName: tool.name,
    summary,
    subcommands: decision.subcommands,
    ...(traitsOf(tool).command ? { command: true as const } : {}),
    cwd: typeof i.cwd === 'string' ? i.cwd : tool.effect === 'system' ? '.' : undefined,
    decision: {
      action: decision.action,
      reason: decision.reason,
      tier: decision.tier,
      ruleKey: decision.ruleKey,
      opaque: decision.opaque,
      subcommands: decision.subcommands,
      subRuleKeys: decision.subRuleKeys,
      localAddresses: decision.localAddresses,
      hook: decision.hook,
    },
    diff,
  };
}
