import { createUIMessageStream, stepCountIs, streamText, type LanguageModel, type ModelMessage, type StopCondition, type ToolSet, type UIMessageChunk, type UIMessageStreamWriter } from 'ai';
import type { Registry } from '../../dispatch/registry';
import type { Budget } from '../../contract/budget';
import type { ClampMessage, ModelStatus } from '../../contract/protocol';
import type { SubagentOutcome, SubagentRequest } from '../../contract/subagents';
import type { AgentHost, ChildHost } from '../host';
import { repairMalformedCall } from '../agent-tools';
import { prepareTurn, type PreparedTurn } from '../prepare-turn';
import { describeProviderError } from '../provider-errors';
import { withToolSummaries } from '../tool-summaries';
import { awaitPerson, type Emit } from '../person';
import { markStopped, providerErrorLine } from '../turn-messages';
import { childRegistry, memoryChild, subagentSection } from './child-setup';
import { ChildCard } from './child-card';
import { spendGuardOf } from '../../contract/limits';
import { spendStop } from '../spend-gate';
import { hookServiceOf } from '../../contract/hooks';
import { modelTelemetry } from '../../contract/trace';

/** A model an agent file names (`provider:model`, or a model of the turn's provider), or why it cannot be used. */
export type ModelFor = (named: string) => { model: LanguageModel; status: ModelStatus } | { error: string };

/** What a child needs from the parent's turn. */
export interface SubagentDeps {
  host: AgentHost;
  /** the turn's registry (MCP tools included); the child's is cut from it by type */
  reg: Registry;
  model: LanguageModel;
  status: ModelStatus;
  budget: Budget;
  /** the parent turn's stream: the child's calls go to the page through it */
  emit: Emit;
  maxRetries: number;
  systemExtra?: string[];
  /** resolves an agent file's `model` line; absent, or the line absent: the child uses the parent's model */
  modelFor?: ModelFor;
}

/** One child's loop while it runs. */
interface ChildRun {
  d: SubagentDeps;
  req: SubagentRequest;
  /** the child's host: its own session, the parent's mode, rules and approvals */
  host: AgentHost;
  save: ChildHost['save'];
  reg: Registry;
  card: ChildCard;
  signal: AbortSignal;
  /** the child's first message: the parent's prompt */
  task: ClampMessage;
  /** the child's assistant message */
  messageId: string;
  /** the child's model: its agent file's, else the parent's */
  model: LanguageModel;
  status: ModelStatus;
  /** the child's own stream, once it runs (the keeper's events go to it) */
  write?: (c: UIMessageChunk) => void;
  /** each step's text; the last is the report */
  texts: string[];
  lastFinish?: string;
  error?: string;
}

/**
 * Run one child loop to its end: its own session and messages, its own system prompt and context
 * keeper, the same dispatch and exit clamp. Its calls reach the page as data-subagent parts of the
 * parent's message; a call that needs a person waits in the parent's bar while this runs. Never throws.
 */
export async function runChild(d: SubagentDeps, req: SubagentRequest, parentCallId: string, signal: AbortSignal): Promise<SubagentOutcome> {
  const run = startChild(d, req, parentCallId, signal);
  if (run.error) return childOutcome(run);
  const turn = prepareChild(run);
  await readChild(run, childStream(run, turn));
  return childOutcome(run);
}

/** The child's session with its task stored, and its card shown. */
function startChild(d: SubagentDeps, req: SubagentRequest, parentCallId: string, signal: AbortSignal): ChildRun {
  const child = d.host.spawnChild?.({ parentCallId, type: req.type, description: req.description }) ?? memoryChild(d.host, parentCallId);
  // nobody to ask (a headless run): the parent's host decides the child's calls too
  const host: AgentHost = d.host.unattended ? { ...child.host, unattended: d.host.unattended } : child.host;
  const reg = childRegistry(d.reg, req.type, req.agent);
  const card = new ChildCard({ emit: d.emit, shownMax: d.budget.SUBAGENT_CALLS_SHOWN_MAX, reg }, parentCallId, host.sessionId, req);
  const task: ClampMessage = { id: `${host.sessionId}-task`, role: 'user', parts: [{ type: 'text', text: req.prompt }], metadata: { createdAt: Date.now() } };
  child.save([task]);
  card.push();
  const m = childModel(d, req);
  return { d, req, host, save: child.save, reg, card, signal, task, messageId: '', texts: [], model: m.model, status: m.status, ...(m.error ? { error: m.error } : {}) };
}

/** The model an agent file names (its `model` line, `inherit` aside), else the parent's; a model that cannot be used is the child's error. */
function childModel(d: SubagentDeps, req: SubagentRequest): { model: LanguageModel; status: ModelStatus; error?: string } {
  const named = req.agent?.model;
  if (!named || named === 'inherit' || !d.modelFor) return { model: d.model, status: d.status };
  const r = d.modelFor(named);
  if ('error' in r) return { model: d.model, status: d.status, error: `The agent ${req.agent!.name} names the model ${named}, which cannot be used: ${r.error}` };
  return r;
}

/** The child's turn prepared: its calls follow on its card, and one that needs a person waits in the parent's bar. */
function prepareChild(run: ChildRun): PreparedTurn {
  const { d, host, card } = run;
  const from = { sessionId: host.sessionId, label: `${run.req.agent?.name ?? run.req.type}: ${run.req.description}` };
  return prepareTurn({
    host,
    reg: run.reg,
    model: run.model,
    status: run.status,
    budget: d.budget,
    stored: [run.task],
    signal: run.signal,
    systemExtra: [...(d.systemExtra ?? []), subagentSection(run.req.type, d.budget, run.req.agent)],
    maxRetries: d.maxRetries,
    emit: (e) => run.write?.(e as UIMessageChunk),
    messageId: () => run.messageId,
    hooks: {
      awaitApproval: async (info, input, s) => {
        // nobody to ask (a headless run): the call is refused, as the parent's would be
        if (!host.person) return { answer: 'deny', reason: 'it needs approval and nobody is there to give it in this run' };
        card.set(info.toolCallId, { state: 'waiting' });
        const a = await awaitPerson({ host, info, input, signal: s, pollMs: d.budget.WAIT_POLL_MS, emit: d.emit, from });
        card.set(info.toolCallId, { state: 'running' });
        return a;
      },
      onStart: (id) => card.start(id),
      onResult: (id, name, r) => card.result(id, name, r),
    },
  });
}

/** The child's own UI message stream, saved to its session after every step. */
function childStream(run: ChildRun, turn: PreparedTurn): ReadableStream<UIMessageChunk> {
  return createUIMessageStream<ClampMessage>({
    originalMessages: [run.task],
    onError: (err) => providerErrorLine(err, run.status.label),
    onStepFinish: ({ messages }) => run.save(messages),
    onFinish: ({ messages, isAborted }) => run.save(isAborted ? markStopped(messages) : messages),
    execute: async ({ writer }) => {
      run.write = (c) => writer.write(c as never);
      let input: ModelMessage[] | undefined = await turn.input();
      // a SubagentStop hook may make the child go on (HOOK_STOP_CONTINUES_MAX times at most), in the same message
      for (let round = 0; input; round++) {
        const result = childSteps(run, turn, writer, input);
        const ui = result.toUIMessageStream<ClampMessage>({ sendReasoning: true, sendStart: round === 0, sendFinish: false });
        for await (const chunk of withToolSummaries(ui, run.reg, [run.task])) {
          if (chunk.type === 'start' && chunk.messageId) run.messageId = chunk.messageId;
          writer.write(chunk);
        }
        input = await subagentStop(run, round, input, result);
      }
      if (!run.signal.aborted) writer.write({ type: 'finish' });
    },
  });
}

/**
 * The SubagentStop hooks once the child ended by itself: the input to go on from (the conversation with the hook's
 * reason as a user message), or undefined when none asked, the child did not end by itself, or it went on
 * HOOK_STOP_CONTINUES_MAX times already. Never throws.
 */
async function subagentStop(run: ChildRun, round: number, input: ModelMessage[], result: ReturnType<typeof streamText>): Promise<ModelMessage[] | undefined> {
  const hooks = hookServiceOf(run.host.services);
  if (!hooks || run.signal.aborted || run.error || run.lastFinish !== 'stop' || round >= run.d.budget.HOOK_STOP_CONTINUES_MAX) return undefined;
  try {
    const a = await hooks.subagentStop(run.d.host.sessionId, { sessionId: run.host.sessionId, type: run.req.agent?.name ?? run.req.type }, round > 0, run.signal);
    if (!a.continueWith || run.signal.aborted) return undefined;
    return [...input, ...(await result.response).messages, { role: 'user', content: `A SubagentStop hook of the user asked you to go on before ending:\n${a.continueWith}` }];
  } catch {
    return undefined;
  }
}

/** The child's streamText: up to SUBAGENT_MAX_STEPS steps or SUBAGENT_MAX_TOKENS tokens, each step counted on its card. */
function childSteps(run: ChildRun, turn: PreparedTurn, writer: UIMessageStreamWriter<ClampMessage>, input: ModelMessage[]) {
  const { d, card } = run;
  const b = d.budget;
  const overTokens: StopCondition<ToolSet> = () => card.view.tokens >= b.SUBAGENT_MAX_TOKENS;
  // the session's spending limits hold for its subagents: one reached pauses the child before its next request
  const from = { sessionId: run.host.sessionId, label: `${run.req.agent?.name ?? run.req.type}: ${run.req.description}` };
  const overSpend = spendStop({ host: run.host, emit: d.emit, signal: run.signal, pollMs: b.WAIT_POLL_MS, from }, b.SUBAGENT_MAX_STEPS);
  return streamText({
    model: turn.model(run.model),
    system: turn.system,
    messages: input,
    tools: turn.tools,
    stopWhen: [stepCountIs(b.SUBAGENT_MAX_STEPS), overTokens, overSpend],
    abortSignal: run.signal,
    maxRetries: d.maxRetries,
    experimental_repairToolCall: repairMalformedCall,
    experimental_telemetry: modelTelemetry('clamp.subagent', run.host.sessionId),
    prepareStep: async ({ messages }) => ({ messages: await turn.keeper.prepare(messages, turn.listed()) }),
    onStepFinish: (step) => {
      card.step(step.usage);
      if (step.text.trim()) run.texts.push(step.text);
      run.lastFinish = step.finishReason;
      const entry = turn.keeper.finishStep(step.usage, step.providerMetadata as Record<string, Record<string, unknown>> | undefined);
      if (entry) writer.write({ type: 'data-ledger', id: `ledger-${entry.step}`, data: entry });
      card.push();
    },
    onError: ({ error: err }) => {
      const p = describeProviderError(err, run.status.label);
      run.error = `${p.message} ${p.next}`;
      writer.write({ type: 'data-notice', id: 'provider-error', data: { level: 'error', message: p.message, next: p.next } });
    },
  });
}

/** Read the child's stream to its end (each listed call goes on its card); a failure of the stream is the child's error. */
async function readChild(run: ChildRun, stream: ReadableStream<UIMessageChunk>): Promise<void> {
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      if (chunk.type === 'tool-input-available') run.card.input(chunk.toolCallId, chunk.toolName, chunk.input);
    }
  } catch (err) {
    run.error ??= err instanceof Error ? err.message : String(err);
  }
}

/** How the child ended and its report (with a note when a cap ended it); the card shows the end. */
function childOutcome(run: ChildRun): SubagentOutcome {
  const { card, error } = run;
  const b = run.d.budget;
  const toolCalls = card.callCount;
  const end: SubagentOutcome['end'] = run.signal.aborted || spendGuardOf(run.host.services)?.stoppedAt() ? 'stopped' : error ? 'error' : run.lastFinish === 'tool-calls' ? (card.view.tokens >= b.SUBAGENT_MAX_TOKENS ? 'token-cap' : 'step-cap') : 'done';
  const capNote =
    end === 'step-cap'
      ? `\n\n[The subagent used all ${b.SUBAGENT_MAX_STEPS} of its steps before it finished; the report above is its last text, not a conclusion.]`
      : end === 'token-cap'
        ? `\n\n[The subagent spent its token budget (${b.SUBAGENT_MAX_TOKENS} tokens) before it finished; the report above is its last text, not a conclusion.]`
        : '';
  const report = end === 'stopped' ? 'The user stopped the turn while this subagent was working; it did not finish.' : (run.texts.at(-1) ?? '') + capNote;
  card.end(end);
  return { end, report, sessionId: run.host.sessionId, steps: card.view.steps, tokens: card.view.tokens, toolCalls, ...(error && end === 'error' ? { error } : {}) };
}
