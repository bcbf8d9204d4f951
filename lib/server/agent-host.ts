import type { AgentHost } from '../agent/host';
import type { Db } from '../store/db';
import { getSession } from '../store/sessions';
import { getByToolCallId, markConsumed, recordPending } from '../store/approvals';
import { ruleVerdict } from '../store/rules';
import { getSandboxSettings } from '../store/settings';
import type { PolicyDecision, ToolDefinition, ToolServices } from '../contract/types';
import { writeAheadHooks } from './write-ahead';

/** The approval id Clamp's store uses for a tool call of a session (the page answers by tool call id). */
export function approvalKey(sessionId: string, toolCallId: string): string {
  return `${sessionId}/${toolCallId}`;
}

/** The keys rules match a call by: each sub-command's for a command, none for a command without, null (only '*' matches) for other tools. */
export function ruleKeysOf(tool: Pick<ToolDefinition, 'name' | 'effect'>, d: PolicyDecision): readonly string[] | null {
  return tool.effect === 'system' && d.subRuleKeys ? d.subRuleKeys : tool.name === 'run_command' ? [] : null;
}

/** An AgentHost backed by the session store: mode, rules and approvals are read at call time. */
export function storeHost(db: Db, o: { sessionId: string; workspace: string; dataDir: string; services?: ToolServices }): AgentHost {
  return {
    sessionId: o.sessionId,
    workspace: o.workspace,
    dataDir: o.dataDir,
    // the sandbox settings are read at each call, so saving them changes the next command
    services: { sandboxSettings: () => getSandboxSettings(db), ...(o.services ?? {}) },
    mode: () => getSession(db, o.sessionId)?.mode ?? 'default',
    ruleVerdict: (tool, _input, d) => ruleVerdict(db, o.workspace, o.sessionId, tool.name, ruleKeysOf(tool, d), !!d.opaque),
    recordPending: (info, input) => {
      recordPending(db, { approvalId: approvalKey(o.sessionId, info.toolCallId), sessionId: o.sessionId, toolCallId: info.toolCallId, toolName: info.toolName, input, info });
    },
    answerFor: (toolCallId) => {
      const a = getByToolCallId(db, o.sessionId, toolCallId);
      if (!a || a.status !== 'answered' || !a.answer) return undefined;
      return { answer: a.answer, editedCommand: a.editedCommand, reason: a.reason, network: a.network, ...(a.info ? { decision: a.info.decision } : {}) };
    },
    markConsumed: (toolCallId) => {
      const a = getByToolCallId(db, o.sessionId, toolCallId);
      if (a && a.status === 'answered') markConsumed(db, a.approvalId);
    },
    // write-ahead journal and the checkpoint before a turn's first change
    ...writeAheadHooks(db, o),
  };
}
