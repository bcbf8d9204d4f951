import { getToolName, isToolUIPart } from 'ai';
import type { ApprovalInfo, ClampDataParts, ClampMessage, CompactionInfo, LedgerStep, PrunedItem, StoredApproval, TodoItem, TurnCut } from '@/lib/contract/protocol';
import type { PendingCall } from './approval-bar';

/** The per-step budget cuts of the whole conversation, by toolCallId. */
export function cutsOf(messages: ClampMessage[]): Map<string, TurnCut> {
  const cuts = new Map<string, TurnCut>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'data-turn-budget') cuts.set(p.data.toolCallId, p.data);
  return cuts;
}

/** A tool result pruned from what the model is sent: the step it was first pruned at, and its stub. */
export type PrunedMark = PrunedItem & { step: number };

/** Every pruned result of the conversation, by toolCallId (once pruned a result stays pruned: the first mark wins). */
export function prunedOf(messages: ClampMessage[]): Map<string, PrunedMark> {
  const marks = new Map<string, PrunedMark>();
  for (const m of messages)
    for (const p of m.parts) if (p.type === 'data-pruned') for (const item of p.data.items) if (!marks.has(item.toolCallId)) marks.set(item.toolCallId, { ...item, step: p.data.step });
  return marks;
}

/** The ledger of the newest turn (the last assistant message's steps, in order); empty before the first step. */
export function turnLedgerOf(messages: ClampMessage[]): LedgerStep[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    const steps = m.parts.flatMap((p) => (p.type === 'data-ledger' ? [p.data] : []));
    if (steps.length) return steps;
  }
  return [];
}

/** The newest compaction when it came after the newest data-context (a compaction by hand, before the next step), else null. */
export function compactedSinceOf(messages: ClampMessage[]): CompactionInfo | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const parts = messages[i].parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const p = parts[j];
      if (p.type === 'data-context') return null;
      if (p.type === 'data-compaction') return p.data;
    }
  }
  return null;
}

/** The latest data part of a type (data-context, data-todos), or null. */
export function latestData<K extends 'context' | 'todos'>(messages: ClampMessage[], kind: K): ClampDataParts[K] | null {
  const type = `data-${kind}`;
  for (let i = messages.length - 1; i >= 0; i--) {
    const parts = messages[i].parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const p = parts[j];
      if (p.type === type) return (p as unknown as { data: ClampDataParts[K] }).data;
    }
  }
  return null;
}

/** The plan's items, when the model keeps one. */
export function todosOf(messages: ClampMessage[]): TodoItem[] | null {
  return latestData(messages, 'todos')?.items ?? null;
}

/**
 * Every call waiting for an answer, in call order: the tool parts in `approval-requested` state,
 * with what the server said about each (data-approval-info, else the stored approval). Stored
 * approvals with no tool part at all (a message saved before the part) are listed after them,
 * so a reload never loses a pending approval. `answered` holds the approval ids the person answered.
 */
export function pendingOf(messages: ClampMessage[], stored: StoredApproval[], answered: ReadonlySet<string>): PendingCall[] {
  const infos = new Map<string, ApprovalInfo>();
  const seen = new Set<string>();
  const pending: PendingCall[] = [];
  for (const s of stored) if (s.info) infos.set(s.toolCallId, s.info);
  for (const m of messages) for (const p of m.parts) if (p.type === 'data-approval-info') infos.set(p.data.toolCallId, p.data);
  for (const m of messages) {
    for (const p of m.parts) {
      if (!isToolUIPart(p)) continue;
      seen.add(p.toolCallId);
      // answered by approval: a later request for a call of the same id (a rewind, a reused id) is a new one
      if (p.state !== 'approval-requested' || answered.has(p.approval.id)) continue;
      pending.push({ toolCallId: p.toolCallId, approvalId: p.approval.id, toolName: getToolName(p), input: p.input, info: infos.get(p.toolCallId) ?? null });
    }
  }
  for (const s of stored) {
    if (s.status !== 'pending' || seen.has(s.toolCallId) || answered.has(s.approvalId)) continue;
    pending.push({ toolCallId: s.toolCallId, approvalId: s.approvalId, toolName: s.toolName, input: s.input, info: s.info });
  }
  return pending;
}
