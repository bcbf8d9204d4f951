import { createUIMessageStream, generateId, stepCountIs, streamText, wrapLanguageModel, type InferUIMessageChunk, type LanguageModel, type ModelMessage, type SystemModelMessage, type UIMessageChunk, type UIMessageStreamWriter } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Registry } from '../dispatch/registry';
import { budgetTable, type Budget } from '../contract/budget';
import type { AgentHost } from './host';
import type { ClampMessage, ModelStatus } from '../contract/protocol';
import { repairMalformedCall } from './agent-tools';
import { prepareTurn, type PreparedTurn, type TurnToolHooks } from './prepare-turn';
import { describeProviderError, isContextOverflow, overflowAfterRetry, retriedText, retryingText, windowFromError } from './provider-errors';
import { visibleRetries } from './provider-retry';
import { cachedSystem, usesCacheBreakpoints } from './context/cache';
import { stepCount } from './context/view';
import { toolSummarizer } from './tool-summaries';
import { withTurnServices } from './turn-services';
import { StepDraft } from './step-draft';
import { stepModelSwitcher, type StepModel } from './model-switch';
import { clearSteer, steered, steerRequested } from './steer';
import { lateFeed, type LateFeed } from '../dispatch/late-diagnostics';
import { markStopped, providerErrorLine } from './turn-messages';
import { hookServiceOf } from '../contract/hooks';
import { spendGate, spendStop, type SpendPause } from './spend-gate';
import { inSpan, modelTelemetry } from '../contract/trace';
import type { ModelFor } from './subagents/run-child';

export const DEFAULT_MAX_STEPS = 100;
const RETRY_FIRST_DELAY_MS = 2000;
const OVERFLOW_MARK = '\u0000clamp:context-overflow';
/** A turn's stream that never reached onFinish (the page went away) hands its late diagnostics to the store after this long. */
const LATE_FEED_CLOSE_MS = 10_000;

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
  /** a model an agent file names, for its children (absent: they use the turn's) */
  modelFor?: ModelFor;
  /** the model the session wants for its next step (the header's picker), read before each step */
  stepModel?: () => StepModel | null;
  /** called after each step and at the end with the whole conversation; a save that failed answers a string, which the page is told */
  save: (messages: ClampMessage[]) => unknown;
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

type Chunk = InferUIMessageChunk<ClampMessage>;

/** One turn's stream while it runs: what its parts (prepareTurn's, the loop's) share. */
interface TurnRun {
  o: TurnOptions;
  budget: Budget;
  writer: UIMessageStreamWriter<ClampMessage>;
  /** the step being streamed, for a call stored before it runs */
  draft: StepDraft;
  late: LateFeed;
  /** the assistant message the turn writes into: a continuation's, else the stream's */
  messageId: string;
  /** a part written before the stream's start chunk would make the page open a second assistant message: such parts wait here */
  started: boolean;
  early: Chunk[];
}

/** The models a turn's steps use: its own, and the one the session switches to mid-turn. */
interface TurnModels {
  model: LanguageModelV3;
  switcher: ReturnType<typeof stepModelSwitcher>;
}

/**
 * Run one turn of the agent loop and return the UI message stream for the page.
 * Never throws: provider failures reach the page as a notice with the next step.
 */
export function runTurn(o: TurnOptions): ReadableStream<UIMessageChunk> {
  const budget = o.budget ?? budgetTable();
  // known before the stream starts, so a call stored before it runs names its message
  const responseId = generateId();
  const draft = new StepDraft();
  // late diagnostics go to this turn's stream; taken now, before the turn's message can be saved again
  const late = lateFeed(o.host.sessionId);
  const last = o.messages.at(-1);
  let stream: UIMessageStreamWriter<ClampMessage> | undefined;
  return createUIMessageStream<ClampMessage>({
    generateId: () => responseId,
    originalMessages: o.messages,
    onError: (err) => providerErrorLine(err, o.status.label),
    onStepFinish: ({ messages }) => saveStep(o, stream, messages),
    onFinish: ({ messages, isAborted }) => {
      o.save(isAborted ? markStopped(messages) : messages);
      late.close();
    },
    execute: ({ writer }) => {
      stream = writer;
      const run: TurnRun = { o, budget, writer, draft, late, messageId: last?.role === 'assistant' ? last.id : responseId, started: false, early: [] };
      return inSpan('invoke_agent clamp', turnAttributes(o), () => executeTurn(run));
    },
  });
}

/** The turn's span: the GenAI agent invocation, with the session as the conversation. */
function turnAttributes(o: TurnOptions) {
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'clamp',
    'gen_ai.conversation.id': o.host.sessionId,
    'gen_ai.provider.name': o.status.provider,
    'gen_ai.request.model': o.status.model,
  };
}

/** A step's save; one that failed (a full disk) is said on the page, once per turn (the notice is replaced, not repeated). */
function saveStep(o: TurnOptions, writer: UIMessageStreamWriter<ClampMessage> | undefined, messages: ClampMessage[]): void {
  const problem = o.save(messages);
  if (typeof problem !== 'string' || !writer) return;
  try {
    writer.write({ type: 'data-notice', id: 'save-failed', data: { level: 'error', message: problem } });
  } catch {
    // the stream has ended: the server's log has the failure
  }
}

/** The turn's body: prepare it, stream its steps (recovering from one overflow per step), then end the stream. */
async function executeTurn(run: TurnRun): Promise<void> {
  const { o } = run;
  const turn = prepareMain(run);
  const models = turnModels(run, turn);
  // a change's diagnostics that came after its result: the card of its call shows them
  run.late.attach((l) => afterStart(run, { type: 'data-diagnostics', id: `diagnostics-${l.lateId}`, data: l }));
  clearSteer(o.host.sessionId);
  await streamSteps(run, turn, models);
  // what arrives from here on is stored once the turn's message is saved (onFinish), or after a while if it never is
  run.late.detach();
  setTimeout(() => run.late.close(), LATE_FEED_CLOSE_MS).unref?.();
  // a stopped turn ends with the SDK's abort chunk, not a finish
  if (!o.signal.aborted) run.writer.write({ type: 'finish' });
}

/** The page's turn prepared: subagents and ask_user reach the page through this turn's stream, and so do its calls' progress. */
function prepareMain(run: TurnRun): PreparedTurn {
  const { o, budget, writer } = run;
  const maxRetries = o.maxRetries ?? 2;
  const host = withTurnServices({ ...o, budget, maxRetries }, (c) => writer.write(c as never));
  return prepareTurn({
    host,
    reg: o.reg,
    model: o.model,
    status: o.status,
    budget,
    stored: o.messages,
    signal: o.signal,
    systemExtra: o.systemExtra,
    maxRetries,
    emit: (e) => writer.write(e),
    messageId: () => run.messageId,
    hooks: pageHooks(run),
  });
}

/** What the turn's calls show on the page: live output, approval details, the plan, and where a call about to run sits. */
function pageHooks(run: TurnRun): TurnToolHooks {
  const { o, writer } = run;
  return {
    onProgress: (toolCallId, p) => {
      if (p.kind === 'output') writer.write({ type: 'data-tool-progress', data: { toolCallId, stream: p.stream, text: p.text }, transient: true });
    },
    onApprovalInfo: (info) => writer.write({ type: 'data-approval-info', id: `approval-${info.toolCallId}`, data: info }),
    onResult: (_toolCallId, _name, r) => {
      const todos = r.meta?.todos;
      if (Array.isArray(todos)) writer.write({ type: 'data-todos', id: 'todos', data: { items: todos } });
    },
    callPlace: () => ({ messageId: run.messageId, userMessageId: o.messages.findLast((m) => m.role === 'user')?.id ?? null, stepParts: run.draft.snapshot() }),
  };
}

/** Where the turn pauses at a spending limit: its wait and notices go to the page at once (the stream's start first). */
function spendPause(run: TurnRun): SpendPause {
  const emit = (c: UIMessageChunk) => {
    if (!run.started) {
      run.started = true;
      run.writer.write({ type: 'start', messageId: run.messageId });
      for (const e of run.early.splice(0)) run.writer.write(e);
    }
    run.writer.write(c as Chunk);
  };
  return { host: run.o.host, emit, signal: run.o.signal, pollMs: run.budget.WAIT_POLL_MS };
}

/** Write a part now if the stream has started, else once it does. */
function afterStart(run: TurnRun, c: Chunk): void {
  if (run.started) run.writer.write(c);
  else run.early.push(c);
}

/** The turn's model and the step switcher, each request retried by a middleware that says so on the page. */
function turnModels(run: TurnRun, turn: PreparedTurn): TurnModels {
  const { o } = run;
  const retries = pageRetries(run);
  const retried = (m: LanguageModelV3) => wrapLanguageModel({ model: m, middleware: retries });
  const model = retried(turn.model(o.model));
  const switcher = stepModelSwitcher({
    turnModelId: o.status.model,
    stored: o.messages,
    want: o.stepModel ?? (() => null),
    wrap: (m) => retried(turn.model(m)),
    record: (from, to) => afterStart(run, { type: 'data-model-switch', id: `model-switch-${Date.now()}`, data: { from, to } }),
  });
  return { model, switcher };
}

/** A failed request is sent again after a wait, and the page says so while it waits (one notice per request, updated in place). */
function pageRetries(run: TurnRun): ReturnType<typeof visibleRetries> {
  const { o } = run;
  let retryNotice = '';
  // the notice names the model (the label adds the provider and URL; the error names the URL)
  const who = o.status.model || o.status.label;
  return visibleRetries({
    maxRetries: o.maxRetries ?? 2,
    firstDelayMs: o.retryFirstDelayMs ?? RETRY_FIRST_DELAY_MS,
    signal: o.signal,
    onRetry: (n) => {
      if (n.retry === 1) retryNotice = `provider-retry-${Date.now().toString(36)}`;
      afterStart(run, { type: 'data-notice', id: retryNotice, data: { level: 'warning', message: retryingText(n.error, who, n.retry, n.of, n.delayMs) } });
    },
    onRecovered: (n) => afterStart(run, { type: 'data-notice', id: retryNotice, data: { level: 'info', message: retriedText(who, n, true) } }),
    onGaveUp: (n) => afterStart(run, { type: 'data-notice', id: retryNotice, data: { level: 'warning', message: retriedText(who, n, false) } }),
  });
}

/** One streamText run: the input of its last step, its context-length error if it ended on one, and the steps it finished. */
interface Attempt {
  stepInput: ModelMessage[];
  overflow: unknown;
  stepsDone: number;
  /** the model ended the turn by itself (not a call waiting for approval, a stop, a step limit) */
  endedByModel: boolean;
  /** the conversation after the attempt: its input and every message it added */
  after: ModelMessage[];
}

/** Stream the turn's steps; a step over the window is compacted and sent again, once; the turn's step limit holds across attempts. */
async function streamSteps(run: TurnRun, turn: PreparedTurn, models: TurnModels): Promise<void> {
  const { o, writer } = run;
  // the system prompt holds nothing that changes per step, so the prefix stays byte-stable for provider caches
  const system = usesCacheBreakpoints(o.status.provider) ? cachedSystem(turn.system) : turn.system;
  let input = await turn.input();
  // a spending limit already reached pauses the turn before its first request
  if (!(await spendGate(spendPause(run)))) return;
  let stepsLeft = o.maxSteps ?? DEFAULT_MAX_STEPS;
  let retriedStep = -1;
  let stopContinues = 0;
  for (let attempt = 0; ; attempt++) {
    const a = await streamAttempt(run, turn, models, { system, input, stepsLeft, first: attempt === 0 });
    if (!a.overflow) {
      stepsLeft -= a.stepsDone;
      const more = a.endedByModel && stepsLeft > 0 && stopContinues < run.budget.HOOK_STOP_CONTINUES_MAX ? await stopHooks(run, stopContinues > 0) : undefined;
      if (!more) return;
      stopContinues++;
      input = [...a.after, { role: 'user', content: `A Stop hook of the user asked you to go on before ending your turn:\n${more}` }];
      continue;
    }
    const step = stepCount(a.stepInput) + 1;
    stepsLeft -= a.stepsDone;
    if (step === retriedStep || stepsLeft <= 0) {
      const p = overflowAfterRetry(a.overflow, o.status.label, step);
      writer.write({ type: 'data-notice', id: `overflow-${step}`, data: { level: 'error', message: p.message, next: p.next } });
      writer.write({ type: 'error', errorText: `${p.message} ${p.next}` });
      return;
    }
    retriedStep = step;
    writer.write({ type: 'data-notice', id: `overflow-retry-${step}`, data: { level: 'warning', message: "The request was over the model's context window; compacted and retried." } });
    turn.keeper.noteOverflow(windowFromError(a.overflow));
    input = a.stepInput;
  }
}

/** One streamText run over `input`, its parts written to the page; a context-length error is kept for streamSteps, not shown. */
async function streamAttempt(run: TurnRun, turn: PreparedTurn, models: TurnModels, a: { system: string | SystemModelMessage; input: ModelMessage[]; stepsLeft: number; first: boolean }): Promise<Attempt> {
  const { o, writer } = run;
  const lead = uncheckedLead(a.input);
  const at: Attempt = { stepInput: a.input, overflow: null, stepsDone: 0, endedByModel: false, after: a.input };
  const result = streamText({
    model: models.model,
    system: a.system,
    messages: a.input.slice(lead.length),
    tools: turn.tools,
    stopWhen: [stepCountIs(a.stepsLeft), steered(o.host.sessionId), spendStop(spendPause(run), a.stepsLeft)],
    abortSignal: o.signal,
    // retried by the model's own middleware (turnModels), so the page hears of each retry
    maxRetries: 0,
    experimental_toolApprovalSecret: o.approvalSecret,
    experimental_repairToolCall: repairMalformedCall,
    experimental_telemetry: modelTelemetry('clamp.turn', o.host.sessionId),
    prepareStep: async ({ messages }) => {
      const all = lead.length ? [...lead, ...messages] : messages;
      at.stepInput = all;
      const stepModel = models.switcher.forStep();
      return { messages: await turn.keeper.prepare(all, turn.listed()), ...(stepModel ? { model: stepModel } : {}) };
    },
    onStepFinish: ({ usage, providerMetadata }) => {
      at.stepsDone++;
      const entry = turn.keeper.finishStep(usage, providerMetadata as Record<string, Record<string, unknown>> | undefined);
      if (entry) writer.write({ type: 'data-ledger', id: `ledger-${entry.step}`, data: { ...entry, model: models.switcher.id() ?? entry.model } });
    },
    onError: ({ error }) => {
      if (isContextOverflow(error)) {
        at.overflow = error;
        return;
      }
      const p = describeProviderError(error, o.status.label);
      writer.write({ type: 'data-notice', id: 'provider-error', data: { level: 'error', message: p.message, next: p.next } });
    },
  });
  const ui = result.toUIMessageStream<ClampMessage>({
    sendReasoning: true,
    sendStart: a.first,
    sendFinish: false,
    onError: (err) => (isContextOverflow(err) ? OVERFLOW_MARK : providerErrorLine(err, o.status.label)),
  });
  await toPage(run, ui);
  if (!at.overflow && !o.signal.aborted) {
    try {
      at.endedByModel = (await result.finishReason) === 'stop';
      at.after = [...a.input, ...(await result.response).messages];
    } catch {
      // a failed request ended the attempt: there is nothing to go on from
    }
  }
  return at;
}

/**
 * The turn's Stop hooks: their reason to go on (the page shows it as a notice), or undefined when none asked.
 * `active`: a Stop hook already made this turn go on (Claude Code's stop_hook_active).
 */
async function stopHooks(run: TurnRun, active: boolean): Promise<string | undefined> {
  const hooks = hookServiceOf(run.o.host.services);
  if (!hooks || steerRequested(run.o.host.sessionId)) return undefined;
  const a = await hooks.stop(run.o.host.sessionId, active, run.o.signal);
  if (!a.continueWith || run.o.signal.aborted) return undefined;
  run.writer.write({ type: 'data-notice', id: `hook-stop-${Date.now().toString(36)}`, data: { level: 'info', message: `A Stop hook asked the model to go on: ${a.continueWith}` } });
  return a.continueWith;
}

/** Write an attempt's parts to the page: each call's summary added, an overflow's error left out, the waiting parts after the start. */
async function toPage(run: TurnRun, ui: ReadableStream<Chunk>): Promise<void> {
  const withSummary = toolSummarizer(run.o.reg, run.o.messages);
  // read as chunks come (no async iterator or generator between: each would cost promises per chunk); stopped early, the stream is cancelled
  const reader = ui.getReader();
  let ended = false;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      for (const chunk of withSummary(r.value)) toPageChunk(run, chunk);
    }
    ended = true;
  } finally {
    if (!ended) void reader.cancel().catch(() => {});
  }
}

function toPageChunk(run: TurnRun, chunk: Chunk): void {
  // an overflow is recovered by streamSteps: its error never reaches the page as one
  if (chunk.type === 'error' && chunk.errorText === OVERFLOW_MARK) return;
  if (chunk.type === 'start' && chunk.messageId) run.messageId = chunk.messageId;
  run.draft.see(chunk);
  run.writer.write(chunk);
  if (chunk.type === 'start' && !run.started) {
    run.started = true;
    for (const c of run.early.splice(0)) run.writer.write(c);
  }
}
