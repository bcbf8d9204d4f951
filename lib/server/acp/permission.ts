import type { PermissionOption, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { ApprovalAnswer } from '../../contract/protocol';
import { rulePatterns } from '../../contract/rule-patterns';
import type { Registry } from '../../dispatch/registry';
import type { PendingCall } from './relay';
import { callView, diffContent } from './tool-view';

/**
 * A call that would ask on the page, as `session/request_permission`: allow once, always allow (only where the
 * page offers "Always": the rule it saves is the one shown), reject. The answer goes through the approvals'
 * route logic (answerToolCall), so "always" saves the same rule the page saves.
 */

const OPTION_ANSWER: Record<string, ApprovalAnswer> = { allow_once: 'once', allow_always: 'always', reject_once: 'deny' };

/** The options for a waiting call; "always" names the rule it would save. */
export function permissionOptions(call: PendingCall): PermissionOption[] {
  const patterns = rulePatterns(call.info);
  const rule = patterns ? (patterns.includes('*') ? `every ${call.toolName} call` : `${call.toolName}: ${patterns.join(', ')}`) : undefined;
  return [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    ...(rule ? [{ optionId: 'allow_always', name: `Always allow (${rule}), saved for this workspace`, kind: 'allow_always' as const }] : []),
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  ];
}

/** The request for one waiting call: the call as its card shows it, the policy's reason and the change's diff. */
export function permissionRequest(sessionId: string, call: PendingCall, reg: Registry, workspace: string): RequestPermissionRequest {
  const view = callView(reg, workspace, call.toolName, call.input);
  const reason = call.info?.decision.reason;
  // the approval bar's line: the tool's name and its summary (or the preview's)
  const title = call.info?.summary ?? view.title;
  return {
    sessionId,
    toolCall: {
      toolCallId: call.toolCallId,
      title,
      kind: view.kind,
      status: 'pending',
      locations: view.locations,
      rawInput: call.input,
      content: [
        ...(reason ? [{ type: 'content' as const, content: { type: 'text' as const, text: `Clamp asks because ${reason}` } }] : []),
        ...(call.info?.diff ? diffContent(call.info.diff, workspace) : []),
      ],
    },
    options: permissionOptions(call),
  };
}

/** The page's answer for the option the editor picked; undefined for an option Clamp did not offer. */
export function answerOf(optionId: string): ApprovalAnswer | undefined {
  return Object.hasOwn(OPTION_ANSWER, optionId) ? OPTION_ANSWER[optionId] : undefined;
}
