import type { LanguageModel, LanguageModelUsage, ModelMessage, ToolSet } from 'ai';
import type { Budget } from '../../contract/budget';
import type { ClampMessage, CompactionInfo, ContextBreakdown, ContextInfo, ContextWindowSource, LedgerStep, ModelStatus, PrunedItem } from '../../contract/protocol';
import type { ToolResult } from '../../contract/types';
import type { HookNote } from '../../contract/hooks';
import type { Registry } from '../../dispatch/registry';
import { byteLength } from '../../contract/text';
import { applyTurnBudget, type TurnCut } from '../turn-budget';
import { usesCacheBreakpoints, withCacheBreakpoints } from './cache';
import { chooseCut, fallbackSummary, writeSummary } from './compact';
import { contextLimits, correctionRatio, estimateRequest, resultText, tokensOf, toolDefinitionText, toolDefinitionTokens, type RequestEstimate, type TextCount } from './estimate';
import { boundCount, rememberCounts } from './count-cache';
import { tokenizerLoaded } from '../../dispatch/token-count';
import { contextState, costOf, inputSplit, nextRequestFloor } from './ledger';
import { choosePrunes } from './prune';
import { buildView, stepCount, stepNumbers, toolResults, type View } from './view';

/** What the keeper writes for the page (and the store): the data parts of the context. */
export type ContextEvent =
  | { type: 'data-context'; id: 'context'; data: ContextInfo }
  | { type: 'data-pruned'; id: string; data: { step: number; items: PrunedItem[] } }
  | { type: 'data-compaction'; id: string; data: CompactionInfo }
  | { type: 'data-turn-budget'; id: string; data: TurnCut };

export interface KeeperOptions {
  model: LanguageModel;
  status: ModelStatus;
  budget: Budget;
  dataDir: string;
  system: string;
  projectDocs: string;
  tools: ToolSet;
  /** the stored conversation the turn starts from */
  stored: readonly ClampMessage[];
  emit: (e: ContextEvent) => void;
  signal?: AbortSignal;
  maxRetries?: number;
  /** the assistant message this turn writes into */
  messageId: () => string;
  /** the turn's tools, whose traits say which results are never pruned */
  registry: Registry;
  /** told before a compaction is written (PreCompact hooks); never throws */
  beforeCompact?: (trigger: CompactionInfo['trigger'], focus?: string) => Promise<HookNote[] | void>;
}

/** Cuts the per-step budget made in earlier turns, recovered from the stored messages. */
function cutsFrom(messages: readonly ClampMessage[]): Map<string, TurnCut> {
  const known = new Map<string, TurnCut>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'data-turn-budget') known.set(p.data.toolCallId, p.data as TurnCut);
  return known;
}

/** Spill files of results cut by their own caps (the full text lies there), from the stored tool parts. */
function spillPathsFrom(messages: readonly ClampMessage[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of messages) {
    for (const p of m.parts as Array<{ toolCallId?: string; output?: unknown }>) {
      const r = p.output as ToolResult | undefined;
      if (p.toolCallId && r?.truncation?.spillPath) out.set(p.toolCallId, r.truncation.spillPath);
    }
  }
  return out;
}

/**
 * The session's context for one turn: before each step it builds what the model is sent (the latest
 * compaction's summary, stubs for pruned results, the per-step cut of the newest results), prunes and
 * compacts when the estimate passes the table's thresholds, and after each step it writes the ledger.
 * The store is never changed: everything it decides goes out as data parts, which later turns read back.
 */
export class ContextKeeper {
  readonly pruned: Map<string, PrunedItem>;
  compaction: CompactionInfo | null;
  private ratio: number;
  private readonly known: Map<string, TurnCut>;
  private readonly spillPaths: Map<string, string>;
  private forced: 'overflow' | null = null;
  /** the window in use: the status's, until a provider's context-length error names a smaller one */
  private window: { tokens: number; source: ContextWindowSource };
  private pending: { step: number; raw: number; shown: number; produced: number; breakdown: ContextBreakdown; meter: number } | null = null;
  /** a step prepared on an upper bound (the tokenizer not loaded yet): its estimate and meter are made when it finishes */
  private remembered = false;
  private unmeasured: { step: number; view: View; active: readonly string[]; lowered: 'pruning' | 'compaction' | null; shown: number; produced: number } | null = null;
  /**
   * The meter's anchor: the last request the provider counted (Clamp's raw estimate of it and the count)
   * and what the meter showed after it. The next request is that count plus the estimate of what was
   * added, never below what was shown unless pruning or a compaction made it smaller (said in `lowered`).
   */
  private anchor: { raw: number; reported: number; shown: number } | null;
  /** a compaction made by hand since the anchor's step: the first step says it lowered the count */
  private compactedSinceAnchor: boolean;

  constructor(private readonly o: KeeperOptions) {
    this.window = { tokens: o.status.windowTokens, source: o.status.windowSource };
    const s = contextState(o.stored);
    this.pruned = s.pruned;
    this.compaction = s.compaction;
    this.ratio = correctionRatio(s.lastLedger ? s.lastLedger.inputTokens.fresh + s.lastLedger.inputTokens.cacheRead + s.lastLedger.inputTokens.cacheWrite : undefined, s.lastLedger?.estimatedInputTokens, o.budget);
    this.known = cutsFrom(o.stored);
    this.spillPaths = spillPathsFrom(o.stored);
    const last = s.lastLedger;
    const reported = last ? last.inputTokens.fresh + last.inputTokens.cacheRead + last.inputTokens.cacheWrite : 0;
    this.anchor = last && reported > 0 ? { raw: last.estimatedInputTokens, reported, shown: Math.max(reported, s.lastContext?.usedTokens ?? 0) } : null;
    this.compactedSinceAnchor = !!(last && s.compaction && s.compaction.step > last.step);
  }

  /**
   * What the meter shows before a step: the anchor's count plus the estimate of what was added, at least
   * what it showed (so it never goes down mid-turn by the estimate's error); the whole estimate when the
   * request shrank, with what lowered it when Clamp did (`by`).
   */
  private meter(est: { raw: number; tokens: number }, by: 'pruning' | 'compaction' | null): { used: number; lowered?: ContextInfo['lowered'] } {
    const a = this.anchor;
    if (!a) return { used: est.tokens };
    if (!by && est.raw >= a.raw) return { used: Math.max(a.shown, a.reported + Math.round((est.raw - a.raw) * this.ratio)) };
    const used = est.tokens;
    return by && used < a.shown ? { used, lowered: { by, fromTokens: a.shown } } : { used };
  }

  /** A result that finished this turn: remember where its full text was spilled. */
  noteResult(toolCallId: string, r: ToolResult): void {
    if (r.truncation?.spillPath) this.spillPaths.set(toolCallId, r.truncation.spillPath);
  }

  /**
   * The provider said the last request was over its window: the next prepare compacts whatever the
   * estimate says, and estimates run higher. When the error names the window (windowFromError) and it
   * is smaller than the one in use, the rest of the turn uses it.
   */
  noteOverflow(namedWindowTokens?: number | null): void {
    this.forced = 'overflow';
    this.ratio = Math.min(this.o.budget.CONTEXT_ESTIMATE_CORRECTION_MAX_RATIO, this.ratio * 1.25);
    if (namedWindowTokens && namedWindowTokens < this.window.tokens) {
      this.window = { tokens: namedWindowTokens, source: { kind: 'server', detail: `the provider's context-length error (${this.window.source.detail} said ${this.window.tokens})` } };
    }
  }

  private estimate(view: View, active: readonly string[], count: TextCount = tokensOf): RequestEstimate & { tokens: number } {
    const e = estimateRequest({ system: this.o.system, projectDocs: this.o.projectDocs, toolTokens: toolDefinitionTokens(this.o.tools, active, count), messages: view.messages }, count);
    return { ...e, tokens: Math.round(e.raw * this.ratio) };
  }

  private view(all: readonly ModelMessage[], active: readonly string[]): View {
    const v = buildView(all, this.compaction, this.pruned);
    // the newest results share what the window has left, after everything before them
    let lastAssistant = v.messages.length - 1;
    while (lastAssistant >= 0 && v.messages[lastAssistant].role !== 'assistant') lastAssistant--;
    // the budget cuts only results after the last assistant message: without any, what came before is not needed
    const fresh = lastAssistant >= 0 && v.messages.slice(lastAssistant + 1).some((m) => m.role === 'tool');
    const before = fresh ? this.estimate({ ...v, messages: v.messages.slice(0, lastAssistant + 1) }, active).tokens : 0;
    // a pruned result stays its stub: an earlier cut of it is not put back
    const known = new Map([...this.known].filter(([id]) => !this.pruned.has(id)));
    const applied = applyTurnBudget(v.messages, { windowTokens: this.window.tokens, usedTokens: before, dataDir: this.o.dataDir, known, budget: this.o.budget });
    for (const cut of applied.cuts) {
      this.known.set(cut.toolCallId, cut);
      this.o.emit({ type: 'data-turn-budget', id: `budget-${cut.toolCallId}`, data: cut });
    }
    return { ...v, messages: applied.messages };
  }

  /**
   * Prune results older than keepSteps steps, oldest first. With a target (tokens), only as many as
   * bring the estimate under it: pruning in batches moves the changed point of the prefix (and with it
   * the provider's cache) seldom, rather than one result every step.
   */
  private prune(view: View, all: readonly ModelMessage[], latestStep: number, keepSteps: number, step: number, target?: { now: number; goal: number }): boolean {
    const full = new Map<string, string>();
    for (const { part } of toolResults(all, stepNumbers(all))) full.set(part.toolCallId, resultText(part.output));
    const items = choosePrunes(view, this.pruned, {
      latestStep,
      keepSteps,
      budget: this.o.budget,
      dataDir: this.o.dataDir,
      spillPaths: this.spillPaths,
      fullText: (id) => full.get(id),
      registry: this.o.registry,
    });
    if (target) {
      let left = target.now;
      const k = items.findIndex((it) => (left -= Math.max(0, tokensOf(full.get(it.toolCallId) ?? '') - tokensOf(it.stub)) * this.ratio) <= target.goal);
      if (k !== -1) items.splice(k + 1);
    }
    if (items.length === 0) return false;
    for (const it of items) this.pruned.set(it.toolCallId, it);
    this.o.emit({ type: 'data-pruned', id: `pruned-${step}`, data: { step, items } });
    return true;
  }

  /** The message holding a step: the stored message with one of its calls, else this turn's message. */
  private messageOfStep(all: readonly ModelMessage[], firstKeptStep: number): string {
    const steps = stepNumbers(all);
    const ids = new Set<string>();
    all.forEach((m, i) => {
      if (m.role === 'assistant' && steps[i] >= firstKeptStep && typeof m.content !== 'string') {
        for (const p of m.content) if (p.type === 'tool-call') ids.add(p.toolCallId);
      }
    });
    for (const m of this.o.stored) {
      if (m.parts.some((p) => ids.has((p as { toolCallId?: string }).toolCallId ?? ''))) return m.id;
    }
    return this.o.messageId();
  }

  /**
   * Compact the steps before the last CONTEXT_KEEP_RECENT_STEPS (or, when that leaves nothing, before
   * the latest one) into a summary the model writes; on failure, a mechanical summary and harder
   * pruning. Returns the compaction (already emitted), or null when there is nothing to compact.
   */
  async compact(all: readonly ModelMessage[], trigger: CompactionInfo['trigger'], active: readonly string[], focus?: string): Promise<CompactionInfo | null> {
    const started = Date.now();
    const latestStep = stepCount(all);
    const step = latestStep + 1;
    const limits = contextLimits(this.window.tokens, this.o.budget);
    const firstKeptStep = chooseCut(all, latestStep, this.o.budget.CONTEXT_KEEP_RECENT_STEPS, this.compaction) ?? chooseCut(all, latestStep, 1, this.compaction);
    if (firstKeptStep === null) return null;
    const hooks = (await this.o.beforeCompact?.(trigger, focus)) || [];
    const beforeTokens = this.estimate(this.view(all, active), active).tokens;
    const r = await writeSummary({
      model: this.o.model,
      all,
      firstKeptStep,
      previous: this.compaction,
      pruned: this.pruned,
      summaryMaxTokens: limits.summaryMax,
      requestMaxTokens: limits.hardMax - limits.summaryMax,
      focus,
      signal: this.o.signal,
      maxRetries: this.o.maxRetries,
    });
    const summary = r.ok ? r.text : fallbackSummary(all, firstKeptStep, this.compaction, r.reason, limits.summaryMax);
    this.compaction = {
      id: `compaction-${step}-${started.toString(36)}`,
      step,
      beforeTokens,
      afterTokens: 0,
      summary,
      trigger,
      firstKeptMessageId: this.messageOfStep(all, firstKeptStep),
      firstKeptStep,
      outcome: r.ok ? 'summary' : 'fallback-pruning',
      durationMs: 0,
      ...(hooks.length ? { hooks } : {}),
    };
    if (!r.ok) this.prune(this.view(all, active), all, latestStep, 1, step);
    this.compaction.afterTokens = this.estimate(this.view(all, active), active).tokens;
    this.compaction.durationMs = Date.now() - started;
    this.o.emit({ type: 'data-compaction', id: this.compaction.id, data: this.compaction });
    return this.compaction;
  }

  /**
   * What the model is sent at the next step, from the whole conversation as the SDK holds it:
   * past CONTEXT_PRUNE_AT_RATIO prune results older than CONTEXT_KEEP_RECENT_STEPS, oldest first,
   * down to CONTEXT_PRUNE_TO_RATIO; past
   * CONTEXT_COMPACT_AT_RATIO (or after an overflow) prune all but the newest step's results, and if
   * that is not enough compact; prune again if still over the window less the answer's reserve.
   */
  async prepare(all: readonly ModelMessage[], active: readonly string[]): Promise<ModelMessage[]> {
    const latestStep = stepCount(all);
    const step = latestStep + 1;
    const keep = this.o.budget.CONTEXT_KEEP_RECENT_STEPS;
    const limits = contextLimits(this.window.tokens, this.o.budget);
    this.unmeasured = null;
    let view = this.view(all, active);
    // what made this request smaller than the last, when Clamp did: the meter says so
    let lowered: 'pruning' | 'compaction' | null = this.compactedSinceAnchor ? 'compaction' : null;
    this.compactedSinceAnchor = false;
    if (!this.forced && !tokenizerLoaded() && this.estimate(view, active, boundCount(this.o.dataDir)).tokens <= Math.min(limits.pruneAt, limits.compactAt, limits.hardMax)) {
      // even the upper bound is under every threshold: the request is what it is; it is counted (the tokenizer
      // loading then) once it has gone, when the step finishes
      this.unmeasured = { step, view, active, lowered, ...this.resultBytes(view, all) };
      return this.sent(view);
    }
    let est = this.estimate(view, active);
    if (est.tokens > limits.pruneAt || this.forced) {
      if (this.prune(view, all, latestStep, keep, step, this.forced ? undefined : { now: est.tokens, goal: limits.pruneTo })) {
        view = this.view(all, active);
        est = this.estimate(view, active);
        lowered ??= 'pruning';
      }
    }
    if (est.tokens > limits.compactAt || this.forced) {
      // before a model call, prune harder: every result but the newest step's
      if (this.prune(view, all, latestStep, 1, step)) {
        view = this.view(all, active);
        est = this.estimate(view, active);
        lowered ??= 'pruning';
      }
    }
    if (est.tokens > limits.compactAt || this.forced) {
      const trigger = this.forced ?? 'auto';
      this.forced = null;
      if (await this.compact(all, trigger, active)) {
        view = this.view(all, active);
        est = this.estimate(view, active);
        lowered = 'compaction';
      }
    }
    if (est.tokens > limits.hardMax && this.prune(view, all, latestStep, 1, step)) {
      view = this.view(all, active);
      est = this.estimate(view, active);
      lowered ??= 'pruning';
    }
    this.measured(step, est, lowered, this.resultBytes(view, all), active);
    return this.sent(view);
  }

  private sent(view: View): ModelMessage[] {
    return usesCacheBreakpoints(this.o.status.provider) ? withCacheBreakpoints(view.messages) : view.messages;
  }

  /** Bytes of the tool results the request shows, and of the same results in full. */
  private resultBytes(view: View, all: readonly ModelMessage[]): { shown: number; produced: number } {
    const results = toolResults(view.messages, view.steps);
    const full = new Map<string, number>();
    for (const { part } of toolResults(all, stepNumbers(all))) full.set(part.toolCallId, byteLength(resultText(part.output)));
    const shown = results.reduce((n, r) => n + byteLength(resultText(r.part.output)), 0);
    const produced = results.reduce((n, r) => n + (full.get(r.part.toolCallId) ?? 0), 0);
    return { shown, produced };
  }

  /** A request's estimate is known: it is the step's pending ledger entry, and the meter shows it. */
  private measured(step: number, est: RequestEstimate & { tokens: number }, lowered: 'pruning' | 'compaction' | null, bytes: { shown: number; produced: number }, active: readonly string[]): void {
    if (!this.remembered) {
      // once per turn: the next process bounds its first request with these exact counts
      this.remembered = true;
      rememberCounts(this.o.dataDir, [this.o.system, this.o.projectDocs, ...active.map((n) => toolDefinitionText(this.o.tools, n))], tokensOf);
    }
    const m = this.meter(est, lowered);
    this.pending = { step, raw: est.raw, ...bytes, breakdown: est.breakdown, meter: m.used };
    this.o.emit({ type: 'data-context', id: 'context', data: { ...this.info(m.used, step, true, est.breakdown, est.raw), ...(m.lowered ? { lowered: m.lowered } : {}) } });
  }

  private info(usedTokens: number, step: number, estimated: boolean, b: ContextBreakdown, raw: number): ContextInfo {
    const k = raw > 0 ? usedTokens / raw : 1;
    const scale = (n: number) => Math.round(n * k);
    return {
      usedTokens,
      windowTokens: this.window.tokens,
      windowSource: this.window.source,
      step,
      estimated,
      breakdown: { systemAndTools: scale(b.systemAndTools), projectDocs: scale(b.projectDocs), conversation: scale(b.conversation), toolResults: scale(b.toolResults) },
    };
  }

  /** After a step: its ledger entry (to be written as data-ledger), the context as the provider counted it, and the next estimate's correction. */
  finishStep(usage: LanguageModelUsage, providerMetadata?: Record<string, Record<string, unknown> | undefined>): LedgerStep | null {
    const u = this.unmeasured;
    this.unmeasured = null;
    if (u) this.measured(u.step, this.estimate(u.view, u.active), u.lowered, u, u.active);
    const p = this.pending;
    if (!p) return null;
    this.pending = null;
    const inputTokens = inputSplit(usage, providerMetadata);
    const reported = inputTokens.fresh + inputTokens.cacheRead + inputTokens.cacheWrite;
    const outputTokens = usage.outputTokens ?? 0;
    if (reported > 0) {
      this.ratio = correctionRatio(reported, p.raw, this.o.budget);
      // what the next request starts from: this one as counted, and its answer (at least what was shown for it:
      // an estimate a little over the count is not taken back, the next request is that much bigger anyway)
      const shown = Math.max(nextRequestFloor(reported, usage), p.meter);
      this.anchor = { raw: p.raw, reported, shown };
      this.o.emit({ type: 'data-context', id: 'context', data: this.info(shown, p.step, false, p.breakdown, p.raw) });
    }
    return {
      step: p.step,
      inputTokens,
      outputTokens,
      estimatedInputTokens: p.raw,
      toolBytesProduced: p.produced,
      toolBytesShown: p.shown,
      costUsd: costOf(this.o.status.prices, inputTokens, outputTokens),
      model: this.o.status.model,
    };
  }
}
