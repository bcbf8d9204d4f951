import type { AgentHost } from '../agent/host';
import type { Db } from '../store/db';
import { getSessionMode } from '../store/sessions';
import { getByToolCallId, hasApprovalFor, markConsumed, recordPending } from '../store/approvals';
import { isJournaled } from '../store/tool-calls';
import { ruleVerdict } from '../store/rules';
import { getSandboxSettings } from '../store/settings';
import { SANDBOX_HOSTS } from '../tools/commands/net-join';
import { sandboxHostsOf } from './sandbox-hosts';
import { traitsOf, type PolicyDecision, type ToolDefinition, type ToolServices } from '../contract/types';
import { checkpointRefusal, writeAheadHooks } from './write-ahead';
import { failedForRoom } from '../contract/disk-full';
import { diagnosticsFor } from './diagnostics';
import { dropPending } from '../store/approvals';
import { createChildSession } from '../store/children';
import { loadMessages, saveMessages } from '../store/messages';
import { checkpointBeforeChange } from '../checkpoints/session';
import { sessionHome } from '../store/worktrees';
import { HOOKS_SERVICE } from '../contract/hooks';
import { hookServiceFor } from './hooks';
import { fileRuleVerdict, readGuardFor, strongerRule } from '../hooks/permission-verdict';
import { READ_GUARD_SERVICE, SANDBOX_RULES_SERVICE } from '../contract/permission-rest';
import { sandboxRulesFor } from '../hooks/sandbox-rules';

/** The approval id Clamp's store uses for a tool call of a session (the page answers by tool call id). */
export function approvalKey(sessionId: string, toolCallId: string): string {
  return `${sessionId}/${toolCallId}`;
}

/** The keys rules match a call by: each sub-command's for a command, none for a command without, null (only '*' matches) for other tools. */
export function ruleKeysOf(tool: Pick<ToolDefinition, 'effect' | 'traits'>, d: PolicyDecision): readonly string[] | null {
  return tool.effect === 'system' && d.subRuleKeys ? d.subRuleKeys : traitsOf(tool).command ? [] : null;
}

/**
 * An AgentHost backed by the session store: mode, rules and approvals are read at call time.
 * `person`: someone follows the turn in the page (ask_user waits for them); a headless run leaves it out.
 * A subagent's host has its own session for its messages and approvals, and the mode and rules of the
 * session the person works in (`rulesOf`); its changes are checkpointed with that session's turn.
 * `workspace` is the folder the session works in (its own worktree, when it has one); the rules and the
 * sandbox's allowed hosts are those of the workspace the session belongs to.
 */
export function storeHost(db: Db, o: { sessionId: string; workspace: string; dataDir: string; services?: ToolServices; person?: boolean; rulesOf?: string }): AgentHost {
  const rulesOf = o.rulesOf ?? o.sessionId;
  const home = sessionHome(db, rulesOf) ?? o.workspace;
  const place = { sessionId: o.sessionId, workspace: o.workspace, dataDir: o.dataDir };
  return {
    sessionId: o.sessionId,
    workspace: o.workspace,
    dataDir: o.dataDir,
    // the sandbox settings are read at each call, so saving them changes the next command
    services: {
      sandboxSettings: () => getSandboxSettings(db),
      // the hosts the person allowed the sandbox's proxy for this session (a subagent shares its parent's)
      [SANDBOX_HOSTS]: sandboxHostsOf(db, home, rulesOf),
      diagnostics: diagnosticsFor(db, o.workspace, o.dataDir),
      // the person's hooks, and the workspace's the person approved, at every call (a subagent's too)
      [HOOKS_SERVICE]: hookServiceFor(db, { workspace: o.workspace, dataDir: o.dataDir, sessionId: rulesOf }),
      // the settings files' Read deny and ask rules: what searches and listings withhold
      [READ_GUARD_SERVICE]: readGuardFor(db, { ...place, home }),
      // and in the sandbox: Read-denied paths hidden from commands and git, the rules' files read-only
      [SANDBOX_RULES_SERVICE]: sandboxRulesFor(db, { ...place, home }),
      ...(o.services ?? {}),
    },
    mode: () => getSessionMode(db, rulesOf) ?? 'default',
    // saved and session rules, and the settings files' permission rules (when the person turned them on): deny beats ask beats allow
    ruleVerdict: (tool, input, d, paths) =>
      strongerRule(ruleVerdict(db, home, rulesOf, tool.name, ruleKeysOf(tool, d), !!d.opaque), fileRuleVerdict(db, { ...place, home }, tool, input, d, paths)),
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
    // write-ahead journal and the checkpoint before a turn's first change; a child's changes are checkpointed with its parent's turn
    ...(o.rulesOf ? childCheckpoint(db, { ...place, sessionId: rulesOf }) : writeAheadHooks(db, place)),
    ...(o.person ? { person: true } : {}),
    dropPending: (toolCallId) => dropPending(db, o.sessionId, toolCallId),
    callIdUsed: (toolCallId) => hasApprovalFor(db, o.sessionId, toolCallId) || isJournaled(db, o.sessionId, toolCallId),
    spawnChild: (init) => {
      const child = createChildSession(db, { parentId: o.sessionId, ...init });
      const host = storeHost(db, { ...o, sessionId: child.id, rulesOf });
      return { host, save: (messages) => saveMessages(db, child.id, messages) };
    },
  };
}

/** A subagent's beforeRun: the checkpoint before the first change of its parent session's turn (its calls are not journaled; a full disk refuses the call). Never throws. */
function childCheckpoint(db: Db, parent: { sessionId: string; workspace: string; dataDir: string }): Pick<AgentHost, 'beforeRun'> {
  return {
    beforeRun: async (call) => {
      if (call.effect === 'read') return;
      try {
        const userMessageId = loadMessages(db, parent.sessionId).findLast((m) => m.role === 'user')?.id ?? null;
        await checkpointBeforeChange(db, parent, { sessionId: parent.sessionId, userMessageId, toolCallId: call.toolCallId, effect: call.effect, input: call.input });
      } catch (err) {
        if (failedForRoom(err, parent.dataDir)) return checkpointRefusal(call.toolName, parent.dataDir, err);
        console.error(`clamp: the checkpoint before a subagent's ${call.toolName} failed (the call runs anyway):`, err);
      }
    },
  };
}
