import { wrapLanguageModel, type LanguageModel, type StopCondition, type ToolSet, type UIMessageChunk } from 'ai';
import type { LanguageModelV3, LanguageModelV3Usage, SharedV3ProviderMetadata } from '@ai-sdk/provider';
import { limitAmount, limitText, parseLimit, spendGuardOf, type LimitHit, type SpendGuard } from '../contract/limits';
import type { ApprovalInfo, ModelPrices } from '../contract/protocol';
import { tapStream } from '../contract/stream-tap';
import { costOf } from './context/ledger';
import type { WaitOrigin } from '../contract/subagents';
import type { AgentHost } from './host';
import { awaitPerson, type Emit } from './person';

/** Where a turn (or a subagent's loop) pauses at a spending limit: its host, the page's stream, its signal. */
export interface SpendPause {
  host: AgentHost;
  emit: Emit;
  signal: AbortSignal;
  pollMs: number;
  /** a subagent's loop: the wait names it */
  from?: WaitOrigin;
}

/**
 * Before a model request: whether the turn goes on. Under every limit it does. At one, a turn a person follows waits
 * for them as ask_user's question waits (the inbox lists it, notifications fire): continue with a new limit (stored)
 * and the turn goes on from here, or stop and it ends as a person's Stop ends it. A turn nobody follows (a headless run)
 * stops. Once stopped, every later check of the turn (its subagents' too) stops without asking again. Never throws.
 */
export async function spendGate(p: SpendPause): Promise<boolean> {
  const guard = spendGuardOf(p.host.services);
  if (!guard) return true;
  for (;;) {
    if (guard.stoppedAt() || p.signal.aborted) return false;
    const hit = guard.reached();
    if (!hit) return true;
    const to = p.host.person ? await askToContinue(p, hit) : null;
    if (to === 'stopped') return false;
    if (to === null) {
      stopAt(p, guard, hit);
      return false;
    }
    guard.raise(hit, to);
    p.emit(notice(`limit-raised-${Date.now().toString(36)}`, 'info', `${limitText(hit)} Continuing with a new ${hit.scope === 'day' ? 'daily' : hit.scope} limit of ${limitAmount(hit.unit, to)}.`));
  }
}

/**
 * spendGate as a stopWhen condition: checked by the SDK after a step's calls have all run, before the next request.
 * At `maxSteps` the step limit ends the loop anyway: nobody is asked about a request that will not be sent.
 */
export function spendStop(p: SpendPause, maxSteps?: number): StopCondition<ToolSet> {
  return async ({ steps }) => (maxSteps !== undefined && steps.length >= maxSteps) || !(await spendGate(p));
}

/** The turn stops at the limit: the page (and a headless run's transcript) says which, with what to do. */
function stopAt(p: SpendPause, guard: SpendGuard, hit: LimitHit): void {
  guard.stop(hit);
  const next = hit.scope === 'run' ? 'Run again with a larger --max-tokens or --max-cost to go on.' : 'Send a message to go on (you are asked for a new limit first), or raise the limit in the settings (Spending limits).';
  p.emit(notice(`limit-stop-${Date.now().toString(36)}`, 'warning', `${limitText(hit)} The turn stopped before its next model request.`, next));
}

function notice(id: string, level: 'info' | 'warning', message: string, next?: string): UIMessageChunk {
  return { type: 'data-notice', id, data: { level, message, ...(next ? { next } : {}) } } as UIMessageChunk;
}

/** Ask the person: the new limit they continue with, null when they stop, 'stopped' when the turn was stopped meanwhile. */
async function askToContinue(p: SpendPause, hit: LimitHit): Promise<number | null | 'stopped'> {
  const toolCallId = `limit-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const text = limitText(hit);
  const info: ApprovalInfo = {
    toolCallId,
    toolName: 'spending_limit',
    summary: text,
    decision: { action: 'ask', reason: 'a spending limit was reached' },
    question: { question: `${text} Continue with a new limit, or stop?`, limit: hit },
  };
  const a = await awaitPerson({ host: p.host, info, input: hit, signal: p.signal, pollMs: p.pollMs, emit: p.emit, ...(p.from ? { from: p.from } : {}) });
  if (a === 'stopped') return 'stopped';
  p.host.markConsumed(toolCallId);
  return a.answer === 'deny' || !a.reply ? null : parseLimit(a.reply);
}

/** A request's tokens as the ledger splits them: fresh, cache read and cache write input, and output. */
function splitUsage(u: LanguageModelV3Usage, meta?: SharedV3ProviderMetadata): { inputTokens: { fresh: number; cacheRead: number; cacheWrite: number }; outputTokens: number } {
  const cacheRead = u.inputTokens.cacheRead ?? 0;
  const anthropicWrite = meta?.anthropic?.cacheCreationInputTokens;
  const cacheWrite = u.inputTokens.cacheWrite ?? (typeof anthropicWrite === 'number' ? anthropicWrite : 0);
  const fresh = u.inputTokens.noCache ?? Math.max(0, (u.inputTokens.total ?? 0) - cacheRead - cacheWrite);
  return { inputTokens: { fresh, cacheRead, cacheWrite }, outputTokens: u.outputTokens.total ?? 0 };
}

/**
 * The model with every request counted toward the spending limits as soon as its answer ends — before the step's
 * calls run, so a subagent started by one of them already sees its parent's request counted. A model without a
 * guard in the host's services comes back as it is.
 */
export function spendMetered(model: LanguageModelV3, host: Pick<AgentHost, 'services'>, prices: ModelPrices | null | undefined): LanguageModelV3 {
  const guard = spendGuardOf(host.services);
  if (!guard) return model;
  const count = (u: LanguageModelV3Usage, meta?: SharedV3ProviderMetadata) => {
    const s = splitUsage(u, meta);
    guard.record({ ...s, costUsd: costOf(prices, s.inputTokens, s.outputTokens) });
  };
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ doGenerate }) => {
        const r = await doGenerate();
        count(r.usage, r.providerMetadata);
        return r;
      },
      wrapStream: async ({ doStream }) => {
        const r = await doStream();
        const stream = tapStream(r.stream, (part) => {
          if (part.type === 'finish') count(part.usage, part.providerMetadata);
          return part;
        });
        return { ...r, stream };
      },
    },
  });
}

/** spendMetered for a model given as the SDK's LanguageModel (the keeper's, for a compaction's summary); a model id or an older model stays as it is. */
export function spendMeteredAny(model: LanguageModel, host: Pick<AgentHost, 'services'>, prices: ModelPrices | null | undefined): LanguageModel {
  return typeof model !== 'string' && model.specificationVersion === 'v3' ? spendMetered(model, host, prices) : model;
}
