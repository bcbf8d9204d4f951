import type { ModelMessage, ToolModelMessage, ToolResultPart } from 'ai';
import { BUDGET, type Budget } from '../contract/budget';
import { clampResult } from '../contract/clamp';
import { byteLength } from '../contract/text';
import type { TurnCut } from '../contract/protocol';

export type { TurnCut };

/** Bytes per token used to turn a token budget into a byte budget (a conservative average for code). */
export const BYTES_PER_TOKEN = 4;

/** The byte budget one step's results share: a share of what is left of the window, within bounds. */
export function stepBudgetBytes(windowTokens: number, usedTokens: number, budget: Budget = BUDGET): number {
  const leftTokens = Math.max(0, windowTokens - usedTokens);
  const bytes = Math.floor(leftTokens * budget.TURN_BUDGET_SHARE * BYTES_PER_TOKEN);
  return Math.min(budget.TURN_BUDGET_MAX_BYTES, Math.max(budget.TURN_BUDGET_MIN_BYTES, bytes));
}

/** Divide a budget among sizes: small results keep all they have, the rest share what is left evenly. */
export function divideBudget(sizes: number[], total: number): number[] {
  const order = sizes.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  const shares = new Array<number>(sizes.length).fill(0);
  let left = total;
  order.forEach(([size, i], k) => {
    const fair = Math.floor(left / (order.length - k));
    shares[i] = Math.min(size, fair);
    left -= shares[i];
  });
  return shares;
}

type TextOutput = { type: 'text' | 'error-text'; value: string };

function textOf(part: ToolResultPart): TextOutput | undefined {
  const o = part.output as { type: string; value?: unknown };
  return (o.type === 'text' || o.type === 'error-text') && typeof o.value === 'string' ? (o as TextOutput) : undefined;
}

type BudgetOptions = { windowTokens: number; usedTokens: number; dataDir: string; known: Map<string, TurnCut>; budget?: Budget };

/**
 * Apply the per-step budget to the messages of the next model call:
 * 1. every result cut earlier (this turn or a stored one) is replaced by its cut text again;
 * 2. the newest tool message is put in call order and its results share stepBudgetBytes.
 * Returns the messages to send and the new cuts (for the page and for storage).
 */
export function applyTurnBudget(messages: ModelMessage[], opts: BudgetOptions): { messages: ModelMessage[]; cuts: TurnCut[] } {
  const out = messages.map((m) => (m.role === 'tool' ? { ...m, content: [...m.content] } : m));
  reapplyCuts(out, opts.known);
  const cuts: TurnCut[] = [];
  // the newest tool message, after the last assistant message
  const lastAssistant = out.findLastIndex((m) => m.role === 'assistant');
  if (lastAssistant === -1) return { messages: out, cuts };
  const assistant = out[lastAssistant];
  const callOrder = Array.isArray(assistant.content)
    ? assistant.content.filter((p) => p.type === 'tool-call').map((p) => (p as { toolCallId: string }).toolCallId)
    : [];
  for (let i = lastAssistant + 1; i < out.length; i++) {
    const m = out[i];
    if (m.role !== 'tool') continue;
    // results reach the model in call order, whatever order they completed in
    m.content.sort((a, b) => {
      const ia = a.type === 'tool-result' ? callOrder.indexOf(a.toolCallId) : -1;
      const ib = b.type === 'tool-result' ? callOrder.indexOf(b.toolCallId) : -1;
      return ia - ib;
    });
    cuts.push(...cutFresh(m, opts));
  }
  return { messages: out, cuts };
}

/** Cuts already decided: each result cut earlier is sent as its cut text again. */
function reapplyCuts(out: ModelMessage[], known: Map<string, TurnCut>): void {
  for (const m of out) {
    if (m.role !== 'tool') continue;
    m.content = m.content.map((p) => {
      if (p.type !== 'tool-result') return p;
      const cut = known.get(p.toolCallId);
      const t = textOf(p);
      return cut && t ? { ...p, output: { type: t.type, value: cut.modelText } } : p;
    });
  }
}

/** The results of a tool message not cut before share the step's budget; each over its share is clamped (and spilled) and recorded in `known`. */
function cutFresh(m: ToolModelMessage, opts: BudgetOptions): TurnCut[] {
  const budget = opts.budget ?? BUDGET;
  const fresh = m.content.filter((p): p is ToolResultPart => p.type === 'tool-result' && !opts.known.has(p.toolCallId) && !!textOf(p));
  if (fresh.length === 0) return [];
  const total = stepBudgetBytes(opts.windowTokens, opts.usedTokens, budget);
  const sizes = fresh.map((p) => byteLength(textOf(p)!.value));
  const shares = divideBudget(sizes, total);
  const cuts: TurnCut[] = [];
  fresh.forEach((p, k) => {
    if (sizes[k] <= shares[k]) return;
    const t = textOf(p)!;
    const clamped = clampResult(
      { status: t.type === 'text' ? 'ok' : 'error', output: t.value, truncation: null },
      Math.max(shares[k], budget.TURN_BUDGET_RESULT_MIN_BYTES),
      opts.dataDir,
      p.toolName,
      'turn',
    );
    const cut: TurnCut = { toolCallId: p.toolCallId, modelText: clamped.output, truncation: clamped.truncation!, budgetBytes: total };
    opts.known.set(p.toolCallId, cut);
    cuts.push(cut);
    const idx = m.content.indexOf(p);
    m.content[idx] = { ...p, output: { type: t.type, value: clamped.output } };
  });
  return cuts;
}
