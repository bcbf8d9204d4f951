import { convertToModelMessages, createUIMessageStream, generateId, stepCountIs, streamText, wrapLanguageModel, type InferUIMessageChunk, type LanguageModel, type ModelMessage, type UIMessageChunk } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Registry } from '../dispatch/registry';
import { listedTools } from '../dispatch/registry';
import { budgetTable, type Budget } from '../contract/budget';
import type { AgentHost } from './host';
import type { ClampMessage, ModelStatus } from '../contract/protocol';
import { buildAgentTools, repairMalformedCall, withListedTools } from './agent-tools';
import { CallScheduler } from './scheduler';
import { buildSystemPrompt } from './system-prompt';
import { describeProviderError, isContextOverflow, overflowAfterRetry, retriedText, retryingText, windowFromError } from './provider-errors';
import { visibleRetries } from './provider-retry';
import { ContextKeeper } from './context/keeper';
import { cachedSystem } from './context/cache';
import { stepCount } from './context/view';
import { withToolSummaries } from './tool-summaries';
import { withTurnServices } from './turn-services';
import { StepDraft } from './step-draft';
import { dataPartForModel, isModelNote } from './data-parts';
import { stepModelSwitcher, type StepModel } from './model-switch';
import { clearSteer, steered } from './steer';
import { lateFeed } from '../dispatch/late-diagnostics';
import { CallIds, conversationCallIds } from './call-ids';

export const DEFAULT_MAX_STEPS = 100;
const RETRY_FIRST_DELAY_MS = 2000;
const OVERFLOW_MARK = '\u0000clamp:context-overflow';
/** A turn's stream that never reached onFinish (the page went away) hands its late diagnostics to the store after this long. */
const LATE_FEED_CLOSE_MS = 10_000;

/** Messages the model has something to read in: a message of data parts only (a compaction made by hand) is the page's, not the model's. */
export function withModelContent(messages: ClampMessage[]): ClampMessage[] {
  return messages.filter((m) => m.parts.some((p) => (!p.type.startsWith('data-') || isModelNote(p)) && p.type !== 'step-start'));
}

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
  /** provider retries for 429/5xx/network errors, each announced on the page */
  maxRetries?: number;
  /** the wait before the first retry (default the SDK's, RETRY_FIRST_DELAY_MS); each later one doubles */
  retryFirstDelayMs?: number;
  budget?: Budget;
  /** more system prompt sections (skills, memories) */
  systemExtra?: string[];
  /** the model the session wants for its next step (the header's picker), read before each step */
  stepModel?: () => StepModel | null;
  /** called after each step and at the end with the whole conversation */
  save: (messages: ClampMessage[]) => void;
}

/**
 * The history the SDK is not handed to check: streamText validates every message it is given against
 * its schema, a cost that grows with the session (tens of ms per turn at 100 steps), and this history is
 * convertToModelMessages' own output. So when the newest message is the user's, everything before it is
 * put back in front of the SDK's messages at every step (prepareStep) and only the newest is checked. A
 * continuation (the newest a tool message answering approvals) is handed over whole: the SDK looks up the
 * approved calls in it.
 */
export function uncheckedLead(input: readonly ModelMessage[]): readonly ModelMessage[] {
  return input.at(-1)?.role === 'user' ? input.slice(0, -1) : [];
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
  // known before the stream starts, so a call stored before it runs names its message
  const responseId = generateId();
  const draft = new StepDraft();
  // late diagnostics go to this turn's stream; taken now, before the turn's message can be saved again
  const late = lateFeed(o.host.sessionId);
  return createUIMessageStream<ClampMessage>({
    generateId: () => responseId,
    originalMessages: o.messages,
    onError: (err) => {
      const p = describeProviderError(err, label);
      return `${p.message} ${p.next}`;
    },
    onStepFinish: ({ messages }) => o.save(messages),
    onFinish: ({ messages, isAborted }) => {
      o.save(isAborted ? markStopped(messages) : messages);
      late.close();
    },
    execute: async ({ writer }) => {
      const scheduler = new CallScheduler();
      // subagents and ask_user reach the page through this turn's stream
      const host = withTurnServices({ ...o, budget, maxRetries: o.maxRetries ?? 2 }, (c) => writer.write(c as never));
      const tools = buildAgentTools({
        reg: o.reg,
        host,
        scheduler,
        budget,
        signal: o.signal,
        onProgress: (toolCallId, p) => {
          if (p.kind === 'output') writer.write({ type: 'data-tool-progress', data: { toolCallId, stream: p.stream, text: p.text }, transient: true });
        },
        onApprovalInfo: (info) => writer.write({ type: 'data-approval-info', id: `approval-${info.toolCallId}`, data: info }),
        onResult: (toolCallId, _name, r) => {
          // tools run only once the loop runs, after the keeper exists
          keeper.noteResult(toolCallId, r);
          const todos = r.meta?.todos;
          if (Array.isArray(todos)) writer.write({ type: 'data-todos', id: 'todos', data: { items: todos } });
        },
        callPlace: () => ({ messageId, userMessageId: o.messages.findLast((m) => m.role === 'user')?.id ?? null, stepParts: draft.snapshot() }),
      });
      const sys = buildSystemPrompt({ workspace: o.host.workspace, dataDir: o.host.dataDir, extra: o.systemExtra });
      const last = o.messages.at(-1);
      let messageId = last?.role === 'assistant' ? last.id : responseId;
      const keeper = new ContextKeeper({
        model: o.model,
        status: o.status,
        budget,
        dataDir: o.host.dataDir,
        system: sys.prompt,
        projectDocs: sys.docs.text,
        tools,
        stored: o.messages,
        emit: (e) => writer.write(e),
        signal: o.signal,
        maxRetries: o.maxRetries ?? 2,
        messageId: () => messageId,
      });
      const ctxInfo = { workspace: o.host.workspace, dataDir: o.host.dataDir, services: host.services };
      const listed = () => listedTools(o.reg, o.host.mode(), ctxInfo).map((t) => t.name);
      // the model is told about the mode's tools; the SDK knows them all, so dispatch refuses the rest
      // every call of the session gets an id of its own, whatever ids the model server hands out
      const ids = new CallIds((id) => o.host.callIdUsed?.(id) ?? false);
      ids.seen(conversationCallIds(o.messages));
      // a part written before the stream's start chunk would make the page open a second assistant message
      let started = false;
      const early: InferUIMessageChunk<ClampMessage>[] = [];
      const afterStart = (c: InferUIMessageChunk<ClampMessage>) => (started ? writer.write(c) : early.push(c));
      // a failed request is sent again after a wait, and the page says so while it waits (one notice per request, updated in place)
      let retryNotice = '';
      // the notice names the model (the label adds the provider and URL; the error names the URL)
      const who = o.status.model || label;
      const retries = visibleRetries({
        maxRetries: o.maxRetries ?? 2,
        firstDelayMs: o.retryFirstDelayMs ?? RETRY_FIRST_DELAY_MS,
        signal: o.signal,
        onRetry: (n) => {
          if (n.retry === 1) retryNotice = `provider-retry-${Date.now().toString(36)}`;
          afterStart({ type: 'data-notice', id: retryNotice, data: { level: 'warning', message: retryingText(n.error, who, n.retry, n.of, n.delayMs) } });
        },
        onRecovered: (n) => afterStart({ type: 'data-notice', id: retryNotice, data: { level: 'info', message: retriedText(who, n, true) } }),
        onGaveUp: (n) => afterStart({ type: 'data-notice', id: retryNotice, data: { level: 'warning', message: retriedText(who, n, false) } }),
      });
      const retried = (m: LanguageModelV3) => wrapLanguageModel({ model: m, middleware: retries });
      const model = retried(withListedTools(o.model, () => new Set(listed()), ids));
      // a change's diagnostics that came after its result: the card of its call shows them
      late.attach((l) => afterStart({ type: 'data-diagnostics', id: `diagnostics-${l.lateId}`, data: l }));
      const switcher = stepModelSwitcher({
        turnModelId: o.status.model,
        stored: o.messages,
        want: o.stepModel ?? (() => null),
        wrap: (m) => retried(withListedTools(m, () => new Set(listed()), ids)),
        record: (from, to) => afterStart({ type: 'data-model-switch', id: `model-switch-${Date.now()}`, data: { from, to } }),
      });
      clearSteer(o.host.sessionId);
      const anthropic = o.status.provider === 'anthropic';
      // the system prompt holds nothing that changes per step, so the prefix stays byte-stable for provider caches
      const system = anthropic ? cachedSystem(sys.prompt) : sys.prompt;
      let input = await convertToModelMessages(withModelContent(o.messages), { tools, ignoreIncompleteToolCalls: true, convertDataPart: dataPartForModel });
      let stepsLeft = o.maxSteps ?? DEFAULT_MAX_STEPS;
      let retriedStep = -1;
      for (let attempt = 0; ; attempt++) {
        const lead = uncheckedLead(input);
        let stepInput: ModelMessage[] = input;
        let overflow: unknown = null;
        let stepsDone = 0;
        const result = streamText({
          model,
          system,
          messages: input.slice(lead.length),
          tools,
          stopWhen: [stepCountIs(stepsLeft), steered(o.host.sessionId)],
          abortSignal: o.signal,
          // retried by the model's own middleware above, so the page hears of each retry
          maxRetries: 0,
          experimental_toolApprovalSecret: o.approvalSecret,
          experimental_repairToolCall: repairMalformedCall,
          prepareStep: async ({ messages }) => {
            const all = lead.length ? [...lead, ...messages] : messages;
            stepInput = all;
            const stepModel = switcher.forStep();
            return { messages: await keeper.prepare(all, listed()), ...(stepModel ? { model: stepModel } : {}) };
          },
          onStepFinish: ({ usage, providerMetadata }) => {
            stepsDone++;
            const entry = keeper.finishStep(usage, providerMetadata as Record<string, Record<string, unknown>> | undefined);
            if (entry) writer.write({ type: 'data-ledger', id: `ledger-${entry.step}`, data: { ...entry, model: switcher.id() ?? entry.model } });
          },
          onError: ({ error }) => {
            if (isContextOverflow(error)) {
              overflow = error;
              return;
            }
            const p = describeProviderError(error, label);
            writer.write({ type: 'data-notice', id: 'provider-error', data: { level: 'error', message: p.message, next: p.next } });
          },
        });
        const ui = result.toUIMessageStream<ClampMessage>({
          sendReasoning: true,
          sendStart: attempt === 0,
          sendFinish: false,
          onError: (err) => {
            if (isContextOverflow(err)) return OVERFLOW_MARK;
            const p = describeProviderError(err, label);
            return `${p.message} ${p.next}`;
          },
        });
        for await (const chunk of withToolSummaries(ui, o.reg, o.messages)) {
          // an overflow is recovered below: its error never reaches the page as one
          if (chunk.type === 'error' && chunk.errorText === OVERFLOW_MARK) continue;
          if (chunk.type === 'start' && chunk.messageId) messageId = chunk.messageId;
          draft.see(chunk);
          writer.write(chunk);
          if (chunk.type === 'start' && !started) {
            started = true;
            for (const c of early.splice(0)) writer.write(c);
          }
        }
        if (!overflow) break;
        const step = stepCount(stepInput) + 1;
        stepsLeft -= stepsDone;
        if (step === retriedStep || stepsLeft <= 0) {
          const p = overflowAfterRetry(overflow, label, step);
          writer.write({ type: 'data-notice', id: `overflow-${step}`, data: { level: 'error', message: p.message, next: p.next } });
          writer.write({ type: 'error', errorText: `${p.message} ${p.next}` });
          break;
        }
        retriedStep = step;
        writer.write({ type: 'data-notice', id: `overflow-retry-${step}`, data: { level: 'warning', message: "The request was over the model's context window; compacted and retried." } });
        keeper.noteOverflow(windowFromError(overflow));
        input = stepInput;
      }
      // what arrives from here on is stored once the turn's message is saved (onFinish), or after a while if it never is
      late.detach();
      setTimeout(() => late.close(), LATE_FEED_CLOSE_MS).unref?.();
      // a stopped turn ends with the SDK's abort chunk, not a finish
      if (!o.signal.aborted) writer.write({ type: 'finish' });
    },
  });
}
