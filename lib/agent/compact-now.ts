import crypto from 'node:crypto';
import { convertToModelMessages, type LanguageModel } from 'ai';
import type { Registry } from '../dispatch/registry';
import { listedTools } from '../dispatch/registry';
import { budgetTable, type Budget } from '../contract/budget';
import type { ClampMessage, CompactionInfo, ModelStatus } from '../contract/protocol';
import type { AgentHost } from './host';
import { buildAgentTools } from './agent-tools';
import { CallScheduler } from './scheduler';
import { buildSystemPrompt } from './system-prompt';
import { ContextKeeper } from './context/keeper';
import { withModelContent } from './run-turn';
import { dataPartForModel } from './data-parts';

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
  const budget = o.budget ?? budgetTable();
  const tools = buildAgentTools({ reg: o.reg, host: o.host, scheduler: new CallScheduler(), budget, signal: o.signal ?? new AbortController().signal });
  const sys = buildSystemPrompt({ workspace: o.host.workspace, dataDir: o.host.dataDir, extra: o.systemExtra });
  const id = crypto.randomUUID();
  const events: unknown[] = [];
  const keeper = new ContextKeeper({
    model: o.model,
    status: o.status,
    budget,
    dataDir: o.host.dataDir,
    system: sys.prompt,
    projectDocs: sys.docs.text,
    tools,
    stored: o.messages,
    emit: (e) => events.push(e),
    signal: o.signal,
    messageId: () => id,
  });
  const all = await convertToModelMessages(withModelContent(o.messages), { tools, ignoreIncompleteToolCalls: true, convertDataPart: dataPartForModel });
  const active = listedTools(o.reg, o.host.mode(), { workspace: o.host.workspace, dataDir: o.host.dataDir, services: o.host.services }).map((t) => t.name);
  const compaction = await keeper.compact(all, 'manual', active, o.focus);
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
