import type { AgentHost } from '../agent/host';
import type { Db } from '../store/db';
import { getSession } from '../store/sessions';
import { getByToolCallId, markConsumed, recordPending } from '../store/approvals';
import { ruleVerdict } from '../store/rules';
import { getSandboxSettings } from '../store/settings';
import type { ToolServices } from '../contract/types';
import { dropPending } from '../store/approvals';
import { createChildSession } from '../store/children';
import { saveMessages } from '../store/messages';

/** The approval id Clamp's store uses for a tool call of a session (the page answers by tool call id). */
export function approvalKey(sessionId: string, toolCallId: string): string {
  return `${sessionId}/${toolCallId}`;
}

/**
 * An AgentHost backed by the session store: mode, rules and approvals are read at call time.
 * `person`: someone follows the turn in the page (ask_user waits for them); a headless run leaves it out.
 * A subagent's host (`child`) has its own session for its messages and approvals, and the parent's
 * mode and rules (`rulesOf`: the session whose mode and session rules apply).
 */
export function storeHost(db: Db, o: { sessionId: string; workspace: string; dataDir: string; services?: ToolServices; person?: boolean; rulesOf?: string }): AgentHost {
  const rulesOf = o.rulesOf ?? o.sessionId;
  return {
    sessionId: o.sessionId,
    workspace: o.workspace,
    dataDir: o.dataDir,
    // the sandbox settings are read at each call, so saving them changes the next command
    services: { sandboxSettings: () => getSandboxSettings(db), ...(o.services ?? {}) },
    mode: () => getSession(db, rulesOf)?.mode ?? 'default',
    ruleVerdict: (tool, _input, d) => {
      const keys = tool.effect === 'system' && d.subRuleKeys ? d.subRuleKeys : tool.name === 'run_command' ? [] : null;
      return ruleVerdict(db, o.workspace, rulesOf, tool.name, keys, !!d.opaque);
    },
    recordPending: (info, input) => {
      recordPending(db, { approvalId: approvalKey(o.sessionId, info.toolCallId), sessionId: o.sessionId, toolCallId: info.toolCallId, toolName: info.toolName, input, info });
    },
    answerFor: (toolCallId) => {
      const a = getByToolCallId(db, o.sessionId, toolCallId);
      if (!a || a.status !== 'answered' || !a.answer) return undefined;
      return { answer: a.answer, editedCommand: a.editedCommand, reason: a.reason, network: a.network, reply: a.reply ?? null, ...(a.info ? { decision: a.info.decision } : {}) };
    },
    markConsumed: (toolCallId) => {
      const a = getByToolCallId(db, o.sessionId, toolCallId);
      if (a && a.status === 'answered') markConsumed(db, a.approvalId);
    },
    ...(o.person ? { person: true } : {}),
    dropPending: (toolCallId) => dropPending(db, o.sessionId, toolCallId),
    spawnChild: (init) => {
      const child = createChildSession(db, { parentId: o.sessionId, ...init });
      const host = storeHost(db, { ...o, sessionId: child.id, rulesOf });
      return { host, save: (messages) => saveMessages(db, child.id, messages) };
    },
  };
}
