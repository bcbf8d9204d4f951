import crypto from 'node:crypto';
import type { LanguageModel } from 'ai';
import type { Registry } from '../dispatch/registry';
import { budgetTable, type Budget } from '../contract/budget';
import type { ClampMessage, CompactionInfo, ModelStatus } from '../contract/protocol';
import type { AgentHost } from './host';
import { prepareTurn } from './prepare-turn';

export interface CompactNowOptions {
  host: AgentHost;
  reg: Registry;
  model: LanguageModel;
  status: ModelStatus;
  messages: ClampMessage[];
  focus?: string;
  signal?: AbortSignal;
  budget?: Budget;
  systemExtra?: string[];
}

/**
 * Compact a session by hand (the Compact control, `/compact [focus]`): the model summarises every
 * step before the last CONTEXT_KEEP_RECENT_STEPS. Returns the compaction and the message that
 * records it (an assistant message holding only the data-compaction part, to append to the
 * conversation), or null when there is nothing before those steps to compact. Never changes a
 * stored message.
 */
export async function compactNow(o: CompactNowOptions): Promise<{ compaction: CompactionInfo; message: ClampMessage } | null> {
  const id = crypto.randomUUID();
  const events: unknown[] = [];
  const turn = prepareTurn({
    host: o.host,
    reg: o.reg,
    model: o.model,
    status: o.status,
    budget: o.budget ?? budgetTable(),
    stored: o.messages,
    signal: o.signal,
    systemExtra: o.systemExtra,
    emit: (e) => events.push(e),
    messageId: () => id,
  });
  const compaction = await turn.keeper.compact(await turn.input(), 'manual', turn.listed(), o.focus);
  if (!compaction) return null;
  const pruned = events.filter((e) => (e as { type: string }).type === 'data-pruned') as ClampMessage['parts'];
  const message: ClampMessage = {
    id,
    role: 'assistant',
    metadata: { createdAt: Date.now() },
    parts: [...pruned, { type: 'data-compaction', id: compaction.id, data: compaction }],
  };
  return { compaction, message };
}
