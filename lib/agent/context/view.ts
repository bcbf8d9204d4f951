import type { ModelMessage, ToolResultPart } from 'ai';
import type { CompactionInfo, PrunedItem } from '../../contract/protocol';

/**
 * The session step of every message: an assistant message opens the next step, its tool message
 * belongs to it, and a user message counts with the step that answers it. The numbering depends only
 * on the conversation, so it is the same at every step and in every turn.
 */
export function stepNumbers(messages: readonly ModelMessage[]): number[] {
  const out: number[] = [];
  let step = 0;
  for (const m of messages) {
    if (m.role === 'assistant') step++;
    out.push(m.role === 'user' || m.role === 'system' ? step + 1 : step);
  }
  return out;
}

/** How many steps the conversation has made (its assistant messages). */
export function stepCount(messages: readonly ModelMessage[]): number {
  let n = 0;
  for (const m of messages) if (m.role === 'assistant') n++;
  return n;
}

/** The index from which a compaction keeps messages verbatim: the first message of step firstKeptStep, with the user messages just before it. -1 when that step is not there. */
export function cutIndex(messages: readonly ModelMessage[], steps: readonly number[], firstKeptStep: number): number {
  let i = messages.findIndex((m, k) => m.role === 'assistant' && steps[k] === firstKeptStep);
  if (i === -1) return -1;
  while (i > 0 && messages[i - 1].role === 'user') i--;
  return i;
}

/** The newest user message's index, or -1. */
export function newestUserIndex(messages: readonly ModelMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return -1;
}

/** The message the model is sent in place of the compacted steps. */
export function summaryMessage(c: CompactionInfo): ModelMessage {
  const head =
    `[Summary of steps 1–${c.firstKeptStep - 1} of this session, written at step ${c.step} to save context. ` +
    `The full messages stay in the session's store; results named below can be read again.]`;
  return { role: 'user', content: [{ type: 'text', text: `${head}\n\n${c.summary}` }] };
}

/** A message with each pruned tool result replaced by its stub (the stub text is stored, so it is the same at every step). */
function pruneMessage(m: ModelMessage, pruned: ReadonlyMap<string, PrunedItem>): ModelMessage {
  if (m.role !== 'tool' || !m.content.some((p) => p.type === 'tool-result' && pruned.has(p.toolCallId))) return m;
  return {
    ...m,
    content: m.content.map((p) => {
      if (p.type !== 'tool-result') return p;
      const item = pruned.get(p.toolCallId);
      if (!item) return p;
      const type = (p.output as { type: string }).type === 'error-text' ? 'error-text' : 'text';
      return { ...p, output: { type, value: item.stub } } as ToolResultPart;
    }),
  };
}

/** What the model is sent, before this step's own cuts: the summary, the newest user message if it lies before the cut, the kept messages, stubs in place of pruned results. */
export interface View {
  messages: ModelMessage[];
  /** the session step of each message in messages (the summary counts as step 0) */
  steps: number[];
  /** index in the conversation of each message (-1 for the summary) */
  origin: number[];
}

/** Build the view of a conversation under a compaction (or none) and a pruned set. */
export function buildView(all: readonly ModelMessage[], compaction: CompactionInfo | null, pruned: ReadonlyMap<string, PrunedItem>): View {
  const steps = stepNumbers(all);
  const cut = compaction ? cutIndex(all, steps, compaction.firstKeptStep) : -1;
  const out: View = { messages: [], steps: [], origin: [] };
  const push = (i: number) => {
    out.messages.push(pruneMessage(all[i], pruned));
    out.steps.push(steps[i]);
    out.origin.push(i);
  };
  if (compaction && cut > 0) {
    out.messages.push(summaryMessage(compaction));
    out.steps.push(0);
    out.origin.push(-1);
    const newest = newestUserIndex(all);
    if (newest !== -1 && newest < cut) push(newest);
    for (let i = cut; i < all.length; i++) push(i);
  } else {
    for (let i = 0; i < all.length; i++) push(i);
  }
  return out;
}

/** Every tool result in messages, with the step it belongs to. */
export function toolResults(messages: readonly ModelMessage[], steps: readonly number[]): { part: ToolResultPart; step: number }[] {
  const out: { part: ToolResultPart; step: number }[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return;
    for (const p of m.content) if (p.type === 'tool-result') out.push({ part: p, step: steps[i] });
  });
  return out;
}

/** The input of every tool call, by call id. */
export function callInputs(messages: readonly ModelMessage[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const m of messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const p of m.content) if (p.type === 'tool-call') out.set(p.toolCallId, p.input);
  }
  return out;
}
