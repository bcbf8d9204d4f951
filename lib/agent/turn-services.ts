import type { LanguageModel } from 'ai';
import type { Registry } from '../dispatch/registry';
import type { Budget } from '../contract/budget';
import type { ModelStatus } from '../contract/protocol';
import type { AgentHost } from './host';
import { askService, type Emit } from './person';
import { createSubagents } from './subagents/service';
import type { ModelFor } from './subagents/run-child';

/**
 * The host as one turn's tools see it: its services plus what only the running loop can give —
 * subagents (ctx.services.subagents) and, when a person follows the turn, ask_user's waiting
 * (ctx.services.ask). A host without a person (a headless run) gets no `ask`: ask_user says so.
 */
export function withTurnServices(o: { host: AgentHost; reg: Registry; model: LanguageModel; status: ModelStatus; budget: Budget; maxRetries: number; systemExtra?: string[]; modelFor?: ModelFor }, emit: Emit): AgentHost {
  const subagents = createSubagents({ host: o.host, reg: o.reg, model: o.model, status: o.status, budget: o.budget, emit, maxRetries: o.maxRetries, systemExtra: o.systemExtra, modelFor: o.modelFor });
  const ask = o.host.person ? { ask: askService(o.host, emit, o.budget.WAIT_POLL_MS) } : {};
  return { ...o.host, services: { ...o.host.services, subagents, ...ask } };
}
