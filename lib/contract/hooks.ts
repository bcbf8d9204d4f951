import type { ToolResult } from './types';

/**
 * Hooks: commands the person (or, once approved, the workspace) configured in Claude Code's format, run at
 * dispatch for every call and at the turn's edges. This is the seam: lib/hooks implements it, the server puts
 * it in a call's services under HOOKS_SERVICE, and dispatch and the loop call it.
 */

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SessionStart', 'SessionEnd', 'PreCompact', 'Notification'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The services key of the hook service (ctx.services.hooks). */
export const HOOKS_SERVICE = 'hooks';

/** What one hook did about one call or event, for the call's card ("blocked by hook check-secrets: …"). */
export interface HookNote {
  event: HookEvent;
  /** the hook's name: its own `name`, else its script's name */
  hook: string;
  outcome: 'allowed' | 'denied' | 'asked' | 'rewrote' | 'context' | 'failed-result' | 'blocked' | 'continued' | 'failed' | 'ran';
  /** its reason or the failure, cut to HOOK_REASON_MAX_BYTES */
  reason?: string;
}

/** A call as PreToolUse and PostToolUse hooks see it: Clamp's tool and input (dispatch adds Claude Code's names). */
export interface HookCall {
  toolName: string;
  /** the tool as Claude Code's hooks name it (Bash, Write …), or its own name */
  hookName: string;
  /** Clamp's validated input with Claude Code's field names beside its own */
  hookInput: Record<string, unknown>;
  toolCallId?: string;
  sessionId?: string;
}

/** What PreToolUse decided about a call, carried in its verdict (and so with a pending approval) to its run. */
export interface HookVerdict {
  notes: HookNote[];
  /** the input a hook rewrote (Clamp's field names), validated and confined when the call runs */
  updatedInput?: Record<string, unknown>;
  /** text the model reads with the result */
  context?: string;
}

/** PreToolUse's answer: the strongest decision of the matching hooks (deny > ask > allow), a rewritten input, context. */
export interface PreToolAnswer {
  decision?: 'allow' | 'deny' | 'ask';
  /** who decided and why, in one line: "blocked by hook check-secrets: …" */
  reason?: string;
  /** the input as a hook rewrote it (Claude Code's or Clamp's field names) */
  updatedInput?: Record<string, unknown>;
  /** text the model reads with the result */
  context?: string;
  notes: HookNote[];
}

/** PostToolUse's answer: text the model reads with the result, and whether a hook marked the result failed. */
export interface PostToolAnswer {
  context?: string;
  /** a hook marked the result failed (decision "block", or exit code 2), with its reason */
  failed?: string;
  notes: HookNote[];
}

/** UserPromptSubmit's and SessionStart's answer: context for the model, or (a prompt) a block with its reason. */
export interface PromptAnswer {
  block?: string;
  context?: string;
  notes: HookNote[];
}

/** Stop's answer: a reason to go on (the model reads it), when a hook asked to continue. */
export interface StopAnswer {
  continueWith?: string;
  notes: HookNote[];
}

/** The context prompt hooks added to a user message, and what each hook did. */
export interface HookContextPart {
  event: 'UserPromptSubmit' | 'SessionStart';
  text: string;
  notes: HookNote[];
}

/** The hooks of one workspace, as the server gives them to a turn. Every method never throws: a hook's failure is an answer. */
export interface HookService {
  preToolUse(call: HookCall, signal: AbortSignal): Promise<PreToolAnswer>;
  postToolUse(call: HookCall, result: ToolResult, signal: AbortSignal): Promise<PostToolAnswer>;
  userPromptSubmit(sessionId: string, prompt: string, signal: AbortSignal): Promise<PromptAnswer>;
  sessionStart(sessionId: string, source: 'startup' | 'resume'): Promise<PromptAnswer>;
  stop(sessionId: string, active: boolean, signal: AbortSignal): Promise<StopAnswer>;
  /** a subagent ended by itself (`sessionId`: the parent's): a block makes the child go on with the reason, as Stop does the turn */
  subagentStop(sessionId: string, child: { sessionId: string; type: string }, active: boolean, signal: AbortSignal): Promise<StopAnswer>;
  /** a session ended (deleted, or the server that ran it stopped): nothing can be blocked */
  sessionEnd(sessionId: string, reason: 'deleted' | 'shutdown'): Promise<HookNote[]>;
  /** before a compaction; `instructions`: what the person asked it to focus on (/compact <focus>), Claude Code's custom_instructions */
  preCompact(sessionId: string, trigger: 'manual' | 'auto', instructions?: string): Promise<HookNote[]>;
  /** a call waits for the person (fire and forget) */
  notification(sessionId: string, message: string): void;
}

/** The hook service in a call's services, if the host gave one. */
export function hookServiceOf(services: Record<string, unknown> | undefined): HookService | undefined {
  const s = services?.[HOOKS_SERVICE];
  return s && typeof s === 'object' && 'preToolUse' in s ? (s as HookService) : undefined;
}

/** One line per note, as the card and the model read them. */
export function hookNoteLine(n: HookNote): string {
  const what: Record<HookNote['outcome'], string> = {
    allowed: 'allowed by hook',
    denied: 'blocked by hook',
    asked: 'asked by hook',
    rewrote: 'input rewritten by hook',
    context: 'context from hook',
    'failed-result': 'result marked failed by hook',
    blocked: 'blocked by hook',
    continued: 'continued by hook',
    failed: 'hook failed:',
    ran: 'ran hook',
  };
  return `${what[n.outcome]} ${n.hook}${n.reason ? `: ${n.reason}` : ''}`;
}
