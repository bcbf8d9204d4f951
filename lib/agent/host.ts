import type { PermissionMode, PolicyDecision, SideEffect, ToolDefinition, ToolResult, ToolServices } from '../contract/types';
import type { ApprovalAnswer, ApprovalInfo, ClampMessage } from '../contract/protocol';
import type { SubagentType } from '../contract/subagents';
import type { ResolvedPath } from '../contract/paths';
import type { RuleAnswer } from '../dispatch/dispatch';

/** A recorded answer to an approval request. */
export interface RecordedAnswer {
  answer: ApprovalAnswer;
  editedCommand?: string | null;
  reason?: string | null;
  /** the person allowed the network for this one call */
  network?: boolean;
  /** the policy verdict made when the call asked for approval (it travels with the approval) */
  decision?: PolicyDecision;
  /** ask_user: the person's answer */
  reply?: string | null;
}

/** A subagent's own session: its host (its session id; the parent's mode and rules) and where its conversation is saved. */
export interface ChildHost {
  host: AgentHost;
  save(messages: ClampMessage[]): void;
}

/**
 * What the loop needs from its surroundings (the store in the server; memory in tests).
 * Read at call time, so a mode switched on the page takes effect from the next tool call.
 */
export interface AgentHost {
  sessionId: string;
  workspace: string;
  dataDir: string;
  services: ToolServices;
  mode(): PermissionMode;
  /** the verdict of saved and session rules (and the settings files' permission rules) for this call, if any; paths: its confined paths */
  ruleVerdict(tool: ToolDefinition, input: unknown, decision: PolicyDecision, paths?: ReadonlyMap<string, ResolvedPath>): RuleAnswer;
  /** a call needs a person: remember it with its verdict (info.decision); it must survive a restart */
  recordPending(info: ApprovalInfo, input: unknown): void;
  /** the person's answer for a call, if there is one */
  answerFor(toolCallId: string): RecordedAnswer | undefined;
  /** the approved call has run: its approval cannot be used again */
  markConsumed(toolCallId: string): void;
  /**
   * A person answers in the page while the turn runs: ask_user waits for them, and a subagent's call
   * that needs approval waits in the bar. Absent (a headless run): ask_user says nobody is there, and
   * such a child call is refused as needing approval.
   */
  person?: boolean;
  /** a call that waited for a person was stopped unanswered: forget its pending record */
  dropPending?(toolCallId: string): void;
  /**
   * Whether the session already stored a call by this id (an approval, the journal), in a message the
   * conversation no longer holds too (rewound): a new call the model names so gets an id of its own.
   */
  callIdUsed?(toolCallId: string): boolean;
  /** store a child session for a subagent; absent: the child's conversation is kept in memory only */
  spawnChild?(init: { parentCallId: string; type: SubagentType; description: string }): ChildHost;
  /**
   * a call is about to run: store it first (write-ahead) and take the turn's checkpoint before its first change;
   * never throws. A result it answers is the call's instead of running it (the checkpoint could not be written).
   */
  beforeRun?(call: RunningCall): Promise<ToolResult | void>;
  /** the call has ended, with its result */
  afterRun?(toolCallId: string, result: ToolResult): void;
  /**
   * Nobody is there to approve (a headless run): the verdict, allow or deny, for a call that needs
   * approval, made at once instead of waiting. Absent: the call waits for the person's answer.
   */
  unattended?(tool: ToolDefinition, decision: PolicyDecision): PolicyDecision;
}

/** A call about to run, with where it sits in the conversation. */
export interface RunningCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** the tool's side-effect class (absent for a name no tool has) */
  effect?: SideEffect;
  /** the assistant message the call belongs to */
  messageId: string;
  /** the user message whose turn it is */
  userMessageId: string | null;
  /** what the model wrote in this step before the call (step-start, text, reasoning parts) */
  stepParts: unknown[];
}
