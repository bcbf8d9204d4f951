import { jsonSchema, tool, type ToolSet } from 'ai';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { Registry } from '../dispatch/registry';
import { describeTool, modelSchema } from '../dispatch/registry';
import { createContext } from '../dispatch/context';
import { dispatch, judge, denialText, type Approver } from '../dispatch/dispatch';
import type { Budget } from '../contract/budget';
import type { PolicyDecision, ToolContext, ToolDefinition, ToolProgress, ToolResult } from '../contract/types';
import type { AgentHost } from './host';
import type { ApprovalInfo } from '../contract/protocol';
import type { CallScheduler } from './scheduler';

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
  signal: AbortSignal;
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

/**
 * The registry as AI SDK tools. Every call still goes through dispatch; the SDK's approval flow
 * asks the person when the policy says "ask"; toModelOutput gives the model the budgeted text while
 * the page receives the whole ToolResult.
 */
export function buildAgentTools(o: AgentToolsOptions): ToolSet {
  const approver: Approver = { rule: (t, input, d) => o.host.ruleVerdict(t, input, d) };
  const ctxFor = (toolCallId: string, signal?: AbortSignal): ToolContext =>
    createContext({
      workspace: o.host.workspace,
      dataDir: o.host.dataDir,
      mode: o.host.mode(),
      signal: signal ?? o.signal,
      budget: o.budget,
      sessionId: o.host.sessionId,
      callId: toolCallId,
      services: o.host.services,
      onProgress: o.onProgress ? (p) => o.onProgress!(toolCallId, p) : undefined,
    });

  const needsApproval = (name: string) => async (input: unknown, { toolCallId }: { toolCallId: string }) => {
    // the SDK asks again when an approved call resumes, and would drop an answer a rule has since made
    // unnecessary: a call a person has answered did need approval
    if (o.host.answerFor(toolCallId)) return true;
    const ctx = ctxFor(toolCallId);
    const j = await judge(o.reg, name, input, ctx, approver);
    if (!j.ok || j.decision.action !== 'ask') return false;
    const info = await approvalInfo(j.tool, j.input, j.decision, ctx, toolCallId);
    o.host.recordPending(info, j.input);
    o.onApprovalInfo?.(info);
    return true;
  };

  const run = async (name: string, input: unknown, toolCallId: string, signal: AbortSignal | undefined): Promise<ToolResult> => {
    const ctx = ctxFor(toolCallId, signal);
    const answer = o.host.answerFor(toolCallId);
    if (answer?.answer === 'deny') {
      return { status: 'denied', output: denialText(o.reg[name], { action: 'deny', reason: `the user denied it${answer.reason ? `: ${answer.reason}` : ''}` }), truncation: null };
    }
    const approved = !!answer;
    let args = input;
    const edited = answer?.answer === 'edit' && answer.editedCommand ? answer.editedCommand : undefined;
    if (edited && typeof input === 'object' && input !== null && 'command' in input) args = { ...input, command: edited };
    const startedAt = Date.now();
    let r = await dispatch(o.reg, name, args, ctx, { approver: { ...approver, approved } });
    // the page shows every call's duration, also after a reload
    if (typeof r.meta?.durationMs !== 'number') r = { ...r, meta: { ...r.meta, durationMs: Date.now() - startedAt } };
    if (approved) o.host.markConsumed(toolCallId);
    o.onResult?.(toolCallId, name, r);
    if (edited) {
      const proposed = (input as { command?: string }).command;
      return {
        ...r,
        output: `The user edited the command before approving it. What ran: ${edited}\n(You proposed: ${proposed})\n\n${r.output}`,
        meta: { ...r.meta, editedCommand: edited, proposedCommand: proposed },
      };
    }
    return r;
  };

  const tools: ToolSet = {};
  for (const t of Object.values(o.reg)) {
    tools[t.name] = tool({
      description: describeTool(t, o.budget),
      // dispatch validates with errors written for the model; the SDK passes the input through
      inputSchema: jsonSchema<unknown>(modelSchema(t) as JSONSchema7),
      needsApproval: needsApproval(t.name),
      execute: (input: unknown, opts: { toolCallId: string; abortSignal?: AbortSignal }) =>
        o.scheduler.schedule(t.effect, () => run(t.name, input, opts.toolCallId, opts.abortSignal)),
      toModelOutput: ({ output }: { output: unknown }) => {
        const r = output as ToolResult;
        return { type: r.status === 'error' ? 'error-text' : 'text', value: r.output };
      },
    });
  }
  return tools;
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
    cwd: typeof i.cwd === 'string' ? i.cwd : tool.effect === 'system' ? '.' : undefined,
    decision: {
      action: decision.action,
      reason: decision.reason,
      tier: decision.tier,
      ruleKey: decision.ruleKey,
      opaque: decision.opaque,
      subcommands: decision.subcommands,
      subRuleKeys: decision.subRuleKeys,
    },
    diff,
  };
}
