import { convertToModelMessages, createUIMessageStream, stepCountIs, streamText, type LanguageModel, type StopCondition, type ToolSet, type UIMessageChunk } from 'ai';
import type { Registry } from '../../dispatch/registry';
import { listedTools } from '../../dispatch/registry';
import type { Budget } from '../../contract/budget';
import type { ClampMessage, ModelStatus } from '../../contract/protocol';
import type { SubagentCall, SubagentOutcome, SubagentRequest, SubagentView } from '../../contract/subagents';
import type { ToolResult } from '../../contract/types';
import type { AgentHost } from '../host';
import { buildAgentTools, repairMalformedCall, withListedTools } from '../agent-tools';
import { CallIds } from '../call-ids';
import { CallScheduler } from '../scheduler';
import { buildSystemPrompt } from '../system-prompt';
import { ContextKeeper } from '../context/keeper';
import { describeProviderError } from '../provider-errors';
import { callSummary, withToolSummaries } from '../tool-summaries';
import { awaitPerson, type Emit } from '../person';
import { markStopped } from '../run-turn';
import { childRegistry, memoryChild, subagentSection } from './child-setup';

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
}

const stateOf = (r: ToolResult): SubagentCall['state'] => (r.status === 'ok' ? 'ok' : r.status === 'error' ? 'error' : 'denied');

/**
 * Run one child loop to its end: its own session and messages, its own system prompt and context
 * keeper, the same dispatch and exit clamp. Its calls reach the page as data-subagent parts of the
 * parent's message; a call that needs a person waits in the parent's bar while this runs. Never throws.
 */
export async function runChild(d: SubagentDeps, req: SubagentRequest, parentCallId: string, signal: AbortSignal): Promise<SubagentOutcome> {
  const b = d.budget;
  const child = d.host.spawnChild?.({ parentCallId, type: req.type, description: req.description }) ?? memoryChild(d.host, parentCallId);
  // nobody to ask (a headless run): the parent's host decides the child's calls too
  const ch: AgentHost = d.host.unattended ? { ...child.host, unattended: d.host.unattended } : child.host;
  const reg = childRegistry(d.reg, req.type);
  const view: SubagentView = { toolCallId: parentCallId, sessionId: ch.sessionId, type: req.type, description: req.description, status: 'running', steps: 0, tokens: 0, calls: [], callsTotal: 0, startedAt: Date.now() };
  const calls = new Map<string, SubagentCall>();
  const started = new Map<string, number>();
  const inputs = new Map<string, unknown>();
  const push = () => {
    const all = [...calls.values()];
    d.emit({ type: 'data-subagent', id: `subagent-${parentCallId}`, data: { ...view, calls: all.slice(-b.SUBAGENT_CALLS_SHOWN_MAX), callsTotal: all.length } } as UIMessageChunk);
  };
  // a call's result may arrive before the stream's chunk that lists it: whichever comes first makes the entry
  const setCall = (id: string, patch: Partial<SubagentCall>) => {
    calls.set(id, { toolCallId: id, toolName: '', summary: '', state: 'running', ...calls.get(id), ...patch });
    push();
  };
  const task: ClampMessage = { id: `${ch.sessionId}-task`, role: 'user', parts: [{ type: 'text', text: req.prompt }], metadata: { createdAt: Date.now() } };
  child.save([task]);
  push();

  const from = { sessionId: ch.sessionId, label: `${req.type}: ${req.description}` };
  const tools: ToolSet = buildAgentTools({
    reg,
    host: ch,
    scheduler: new CallScheduler(),
    budget: b,
    signal,
    awaitApproval: async (info, input, s) => {
      // nobody to ask (a headless run): the call is refused, as the parent's would be
      if (!ch.person) return { answer: 'deny', reason: 'it needs approval and nobody is there to give it in this run' };
      setCall(info.toolCallId, { state: 'waiting' });
      const a = await awaitPerson({ host: ch, info, input, signal: s, pollMs: b.WAIT_POLL_MS, emit: d.emit, from });
      setCall(info.toolCallId, { state: 'running' });
      return a;
    },
    onStart: (id) => started.set(id, Date.now()),
    onResult: (id, name, r) => {
      keeper.noteResult(id, r);
      const t0 = started.get(id);
      setCall(id, { toolName: name, state: stateOf(r), summary: callSummary(reg, name, inputs.get(id), r) ?? calls.get(id)?.summary ?? '', ...(t0 !== undefined ? { durationMs: Date.now() - t0 } : {}) });
    },
  });
  const sys = buildSystemPrompt({ workspace: ch.workspace, dataDir: ch.dataDir, extra: [...(d.systemExtra ?? []), subagentSection(req.type, b)] });
  const ctxInfo = { workspace: ch.workspace, dataDir: ch.dataDir, services: ch.services };
  const listed = () => listedTools(reg, ch.mode(), ctxInfo).map((t) => t.name);
  let messageId = '';
  const keeper = new ContextKeeper({
    model: d.model,
    status: d.status,
    budget: b,
    dataDir: ch.dataDir,
    system: sys.prompt,
    projectDocs: sys.docs.text,
    tools,
    stored: [task],
    emit: (e) => writeChild?.(e as UIMessageChunk),
    signal,
    maxRetries: d.maxRetries,
    messageId: () => messageId,
  });
  let writeChild: ((c: UIMessageChunk) => void) | undefined;
  const texts: string[] = [];
  let lastFinish: string | undefined;
  let error: string | undefined;
  const overTokens: StopCondition<ToolSet> = () => view.tokens >= b.SUBAGENT_MAX_TOKENS;
  const stream = createUIMessageStream<ClampMessage>({
    originalMessages: [task],
    onError: (err) => {
      const p = describeProviderError(err, d.status.label);
      return `${p.message} ${p.next}`;
    },
    onStepFinish: ({ messages }) => child.save(messages),
    onFinish: ({ messages, isAborted }) => child.save(isAborted ? markStopped(messages) : messages),
    execute: async ({ writer }) => {
      writeChild = (c) => writer.write(c as never);
      const input = await convertToModelMessages([task], { tools });
      const result = streamText({
        model: withListedTools(d.model, () => new Set(listed()), new CallIds((id) => ch.callIdUsed?.(id) ?? false)),
        system: sys.prompt,
        messages: input,
        tools,
        stopWhen: [stepCountIs(b.SUBAGENT_MAX_STEPS), overTokens],
        abortSignal: signal,
        maxRetries: d.maxRetries,
        experimental_repairToolCall: repairMalformedCall,
        prepareStep: async ({ messages }) => ({ messages: await keeper.prepare(messages, listed()) }),
        onStepFinish: (step) => {
          view.steps++;
          view.tokens += step.usage.totalTokens ?? (step.usage.inputTokens ?? 0) + (step.usage.outputTokens ?? 0);
          if (step.text.trim()) texts.push(step.text);
          lastFinish = step.finishReason;
          const entry = keeper.finishStep(step.usage, step.providerMetadata as Record<string, Record<string, unknown>> | undefined);
          if (entry) writer.write({ type: 'data-ledger', id: `ledger-${entry.step}`, data: entry });
          push();
        },
        onError: ({ error: err }) => {
          const p = describeProviderError(err, d.status.label);
          error = `${p.message} ${p.next}`;
          writer.write({ type: 'data-notice', id: 'provider-error', data: { level: 'error', message: p.message, next: p.next } });
        },
      });
      const ui = result.toUIMessageStream<ClampMessage>({ sendReasoning: true, sendFinish: false });
      for await (const chunk of withToolSummaries(ui, reg, [task])) {
        if (chunk.type === 'start' && chunk.messageId) messageId = chunk.messageId;
        writer.write(chunk);
      }
      if (!signal.aborted) writer.write({ type: 'finish' });
    },
  });
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      if (chunk.type === 'tool-input-available') {
        inputs.set(chunk.toolCallId, chunk.input);
        const known = calls.get(chunk.toolCallId);
        setCall(chunk.toolCallId, { toolName: chunk.toolName, summary: known?.summary || (callSummary(reg, chunk.toolName, chunk.input) ?? '') });
      }
    }
  } catch (err) {
    error ??= err instanceof Error ? err.message : String(err);
  }
  const toolCalls = calls.size;
  const end: SubagentOutcome['end'] = signal.aborted ? 'stopped' : error ? 'error' : lastFinish === 'tool-calls' ? (view.tokens >= b.SUBAGENT_MAX_TOKENS ? 'token-cap' : 'step-cap') : 'done';
  const capNote =
    end === 'step-cap'
      ? `\n\n[The subagent used all ${b.SUBAGENT_MAX_STEPS} of its steps before it finished; the report above is its last text, not a conclusion.]`
      : end === 'token-cap'
        ? `\n\n[The subagent spent its token budget (${b.SUBAGENT_MAX_TOKENS} tokens) before it finished; the report above is its last text, not a conclusion.]`
        : '';
  const report = end === 'stopped' ? 'The user stopped the turn while this subagent was working; it did not finish.' : (texts.at(-1) ?? '') + capNote;
  // the calls left running end with the child
  for (const [id, c] of calls) if (c.state === 'running' || c.state === 'waiting') calls.set(id, { ...c, state: 'error' });
  view.status = end;
  view.endedAt = Date.now();
  push();
  return { end, report, sessionId: ch.sessionId, steps: view.steps, tokens: view.tokens, toolCalls, ...(error && end === 'error' ? { error } : {}) };
}
