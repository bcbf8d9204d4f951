import type { LanguageModelUsage, UIMessageChunk } from 'ai';
import type { Registry } from '../../dispatch/registry';
import type { SubagentCall, SubagentEnd, SubagentRequest, SubagentView } from '../../contract/subagents';
import type { ToolResult } from '../../contract/types';
import { callSummary } from '../tool-summaries';
import type { Emit } from '../person';

const stateOf = (r: ToolResult): SubagentCall['state'] => (r.status === 'ok' ? 'ok' : r.status === 'error' ? 'error' : 'denied');

/**
 * A child's card on the page: the data-subagent part of the parent's message (its steps, tokens and
 * newest calls), written again through the parent's stream at every change.
 */
export class ChildCard {
  readonly view: SubagentView;
  private readonly calls = new Map<string, SubagentCall>();
  private readonly started = new Map<string, number>();
  private readonly inputs = new Map<string, unknown>();

  constructor(
    private readonly o: { emit: Emit; shownMax: number; reg: Registry },
    parentCallId: string,
    sessionId: string,
    req: SubagentRequest,
  ) {
    this.view = { toolCallId: parentCallId, sessionId, type: req.type, description: req.description, status: 'running', steps: 0, tokens: 0, calls: [], callsTotal: 0, startedAt: Date.now() };
  }

  /** Write the card as it is now. */
  push(): void {
    const all = [...this.calls.values()];
    this.o.emit({ type: 'data-subagent', id: `subagent-${this.view.toolCallId}`, data: { ...this.view, calls: all.slice(-this.o.shownMax), callsTotal: all.length } } as UIMessageChunk);
  }

  /** Change a call's entry; a call's result may arrive before the stream's chunk that lists it: whichever comes first makes the entry. */
  set(id: string, patch: Partial<SubagentCall>): void {
    this.calls.set(id, { toolCallId: id, toolName: '', summary: '', state: 'running', ...this.calls.get(id), ...patch });
    this.push();
  }

  /** The call has started running (after any approval): its duration counts from now. */
  start(id: string): void {
    this.started.set(id, Date.now());
  }

  /** The child's stream lists a call with its input. */
  input(id: string, toolName: string, input: unknown): void {
    this.inputs.set(id, input);
    const known = this.calls.get(id);
    this.set(id, { toolName, summary: known?.summary || (callSummary(this.o.reg, toolName, input) ?? '') });
  }

  /** A call finished with its result. */
  result(id: string, name: string, r: ToolResult): void {
    const t0 = this.started.get(id);
    this.set(id, { toolName: name, state: stateOf(r), summary: callSummary(this.o.reg, name, this.inputs.get(id), r) ?? this.calls.get(id)?.summary ?? '', ...(t0 !== undefined ? { durationMs: Date.now() - t0 } : {}) });
  }

  /** A step finished: counted with its tokens (written with the step's next push). */
  step(usage: LanguageModelUsage): void {
    this.view.steps++;
    this.view.tokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  }

  /** How many calls the child made. */
  get callCount(): number {
    return this.calls.size;
  }

  /** The child ended: the calls left running end with it, and the card shows how it ended. */
  end(status: SubagentEnd): void {
    for (const [id, c] of this.calls) if (c.state === 'running' || c.state === 'waiting') this.calls.set(id, { ...c, state: 'error' });
    this.view.status = status;
    this.view.endedAt = Date.now();
    this.push();
  }
}
