import type { AgentHost, ChildHost, RecordedAnswer } from '../../lib/agent/host';
import type { ApprovalInfo, ClampMessage } from '../../lib/contract/protocol';
import type { PermissionMode } from '../../lib/contract/types';

/** What one memory session holds: its pending calls, the answers given, the ones used. */
function sessionState() {
  return { pending: new Map<string, { info: ApprovalInfo; input: unknown }>(), answers: new Map<string, RecordedAnswer>(), consumed: new Set<string>() };
}

/**
 * An AgentHost kept in memory, for loop tests. `person`: someone answers in the page (ask_user and
 * children's approvals wait). Children get their own session (children[], with their saved messages).
 */
export function memoryHost(workspace: string, dataDir: string, mode: PermissionMode = 'default', o: { person?: boolean } = {}) {
  const allowRules: string[] = [];
  const state = { mode };
  const children: { sessionId: string; type: string; description: string; parentCallId: string; messages: ClampMessage[]; pending: Map<string, { info: ApprovalInfo; input: unknown }>; answers: Map<string, RecordedAnswer> }[] = [];
  const make = (sessionId: string): { host: AgentHost; s: ReturnType<typeof sessionState> } => {
    const s = sessionState();
    const host: AgentHost = {
      sessionId,
      workspace,
      dataDir,
      services: {},
      mode: () => state.mode,
      ruleVerdict: (tool) => (allowRules.includes(tool.name) ? 'allow' : undefined),
      recordPending: (info, input) => s.pending.set(info.toolCallId, { info, input }),
      answerFor: (id) => {
        const a = s.consumed.has(id) ? undefined : s.answers.get(id);
        const decision = s.pending.get(id)?.info.decision;
        return a && { ...(decision ? { decision } : {}), ...a };
      },
      markConsumed: (id) => s.consumed.add(id),
      dropPending: (id) => s.pending.delete(id),
      ...(o.person ? { person: true } : {}),
      spawnChild: (init): ChildHost => {
        const child = make(`child-${children.length + 1}`);
        const rec = { sessionId: child.host.sessionId, ...init, messages: [] as ClampMessage[], pending: child.s.pending, answers: child.s.answers };
        children.push(rec);
        return { host: child.host, save: (m) => (rec.messages = m) };
      },
    };
    return { host, s };
  };
  const root = make('s1');
  return { host: root.host, pending: root.s.pending, answers: root.s.answers, consumed: root.s.consumed, allowRules, state, children };
}
