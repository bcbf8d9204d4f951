import type { AgentHost, RecordedAnswer } from '../../lib/agent/host';
import type { ApprovalInfo } from '../../lib/contract/protocol';
import type { PermissionMode } from '../../lib/contract/types';

/** An AgentHost kept in memory, for loop tests. */
export function memoryHost(workspace: string, dataDir: string, mode: PermissionMode = 'default') {
  const pending = new Map<string, { info: ApprovalInfo; input: unknown }>();
  const answers = new Map<string, RecordedAnswer>();
  const consumed = new Set<string>();
  const allowRules: string[] = [];
  const state = { mode };
  const host: AgentHost = {
    sessionId: 's1',
    workspace,
    dataDir,
    services: {},
    mode: () => state.mode,
    ruleVerdict: (tool) => (allowRules.includes(tool.name) ? 'allow' : undefined),
    recordPending: (info, input) => pending.set(info.toolCallId, { info, input }),
    answerFor: (id) => {
      const a = consumed.has(id) ? undefined : answers.get(id);
      const decision = pending.get(id)?.info.decision;
      return a && { ...(decision ? { decision } : {}), ...a };
    },
    markConsumed: (id) => consumed.add(id),
  };
  return { host, pending, answers, consumed, allowRules, state };
}
