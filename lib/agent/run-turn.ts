import { convertToModelMessages, createUIMessageStream, stepCountIs, streamText, type LanguageModel, type UIMessageChunk } from 'ai';
import type { Registry } from '../dispatch/registry';
import { listedTools } from '../dispatch/registry';
import { budgetTable, type Budget } from '../contract/budget';
import type { AgentHost } from './host';
import type { ClampMessage, ModelStatus } from '../contract/protocol';
import { buildAgentTools } from './agent-tools';
import { CallScheduler } from './scheduler';
import { applyTurnBudget, type TurnCut } from './turn-budget';
import { buildSystemPrompt } from './system-prompt';
import { describeProviderError } from './provider-errors';
import { withToolSummaries } from './tool-summaries';

export const DEFAULT_MAX_STEPS = 100;

export interface TurnOptions {
  host: AgentHost;
  reg: Registry;
  model: LanguageModel;
  status: ModelStatus;
  /** the whole conversation: stored messages plus the new one */
  messages: ClampMessage[];
  signal: AbortSignal;
  approvalSecret: string | Uint8Array;
  maxSteps?: number;
  /** provider retries for 429/5xx/network errors (the SDK's backoff) */
  maxRetries?: number;
  budget?: Budget;
  /** more system prompt sections (skills, memories) */
  systemExtra?: string[];
  /** called after each step and at the end with the whole conversation */
  save: (messages: ClampMessage[]) => void;
}

/** Cuts the per-step budget made in earlier turns, recovered from the stored messages. */
export function cutsFromMessages(messages: ClampMessage[]): Map<string, TurnCut> {
  const known = new Map<string, TurnCut>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'data-turn-budget') known.set(p.data.toolCallId, p.data);
    }
  }
  return known;
}

/** After Stop, calls that never finished are stored as stopped (an error the model and the page can read), not as running forever. */
export function markStopped(messages: ClampMessage[]): ClampMessage[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return messages;
  const parts = last.parts.map((p) => {
    const t = p as { type: string; state?: string; toolCallId?: string };
    if (!(t.type.startsWith('tool-') || t.type === 'dynamic-tool') || !t.toolCallId) return p;
    if (t.state !== 'input-available' && t.state !== 'input-streaming') return p;
    return { ...p, state: 'output-error', errorText: 'Stopped by the user before it finished.' } as unknown as typeof p;
  });
  return [...messages.slice(0, -1), { ...last, parts }];
}

/**
 * Run one turn of the agent loop and return the UI message stream for the page.
 * Never throws: provider failures reach the page as a notice with the next step.
 */
export function runTurn(o: TurnOptions): ReadableStream<UIMessageChunk> {
  const budget = o.budget ?? budgetTable();
  const label = o.status.label;
  return createUIMessageStream<ClampMessage>({
    originalMessages: o.messages,
    onError: (err) => {
      const p = describeProviderError(err, label);
      return `${p.message} ${p.next}`;
    },
    onStepFinish: ({ messages }) => o.save(messages),
    onFinish: ({ messages, isAborted }) => o.save(isAborted ? markStopped(messages) : messages),
    execute: async ({ writer }) => {
      const known = cutsFromMessages(o.messages);
      const scheduler = new CallScheduler();
      const tools = buildAgentTools({
        reg: o.reg,
        host: o.host,
        scheduler,
        budget,
        signal: o.signal,
        onProgress: (toolCallId, p) => {
          if (p.kind === 'output') writer.write({ type: 'data-tool-progress', data: { toolCallId, stream: p.stream, text: p.text }, transient: true });
        },
        onApprovalInfo: (info) => writer.write({ type: 'data-approval-info', id: `approval-${info.toolCallId}`, data: info }),
        onResult: (_id, _name, r) => {
          const todos = r.meta?.todos;
          if (Array.isArray(todos)) writer.write({ type: 'data-todos', id: 'todos', data: { items: todos } });
        },
      });
      const system = buildSystemPrompt({ workspace: o.host.workspace, dataDir: o.host.dataDir, extra: o.systemExtra }).prompt;
      const modelMessages = await convertToModelMessages(o.messages, { tools, ignoreIncompleteToolCalls: true });
      let usedTokens = 0;
      let step = 0;
      const ctxInfo = { workspace: o.host.workspace, dataDir: o.host.dataDir, services: o.host.services };
      const result = streamText({
        model: o.model,
        system,
        messages: modelMessages,
        tools,
        stopWhen: stepCountIs(o.maxSteps ?? DEFAULT_MAX_STEPS),
        abortSignal: o.signal,
        maxRetries: o.maxRetries ?? 2,
        experimental_toolApprovalSecret: o.approvalSecret,
        prepareStep: ({ messages }) => {
          const active = listedTools(o.reg, o.host.mode(), ctxInfo).map((t) => t.name);
          const applied = applyTurnBudget(messages, { windowTokens: o.status.windowTokens, usedTokens, dataDir: o.host.dataDir, known, budget });
          for (const cut of applied.cuts) writer.write({ type: 'data-turn-budget', id: `budget-${cut.toolCallId}`, data: cut });
          return { messages: applied.messages, activeTools: active };
        },
        onStepFinish: ({ usage }) => {
          step++;
          usedTokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
          writer.write({ type: 'data-context', id: 'context', data: { usedTokens, windowTokens: o.status.windowTokens, step } });
        },
        onError: ({ error }) => {
          const p = describeProviderError(error, label);
          writer.write({ type: 'data-notice', id: 'provider-error', data: { level: 'error', message: p.message, next: p.next } });
        },
      });
      writer.merge(withToolSummaries(result.toUIMessageStream<ClampMessage>({ sendReasoning: true, onError: (err) => {
        const p = describeProviderError(err, label);
        return `${p.message} ${p.next}`;
      } }), o.reg, o.messages));
      await result.consumeStream();
    },
  });
}
