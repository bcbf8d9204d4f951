/**
 * The one vocabulary between the server and the page: chat message types, data parts,
 * and the JSON shapes of the REST endpoints. Imported by both sides.
 */
import type { UIMessage } from 'ai';
import type { PermissionMode, PolicyDecision, TodoItem, ToolResult, Truncation } from './types';
import type { TaskEvent, TaskInfo, TaskStatus, TaskStream } from './tasks';
import type { ClampUITools } from './tool-types';
import type { SecretName } from './providers';
import type { ApprovalAnswer, ApprovalAnswerBody, CompactBody, ModelCheckRequest, Provider, SettingsUpdate, StatusAnswer } from './rest';
import type { AskQuestion, LiveWait, SubagentView, WaitOrigin } from './subagents';
import type { DiagnosticsDataParts } from './diagnostics';
import type { HookContextPart } from './hooks';

export type { PermissionMode, PolicyDecision, TodoItem, ToolResult, Truncation };
export type { ApprovalAnswer, ApprovalAnswerBody, CompactBody, ModelCheckRequest, SettingsUpdate, StatusAnswer };
export type { ModelCheck } from './rest';
export type { FilePage } from './viewer';

/** Data parts the server streams into a chat message. */
export type ClampDataParts = {
  /** live output of a running tool (transient: delivered to onData, not stored in the message) */
  'tool-progress': { toolCallId: string; stream: 'stdout' | 'stderr'; text: string };
  /** what a pending approval is about: computed by the server's policy, shown in the approval bar */
  'approval-info': ApprovalInfo;
  /** what the person's UserPromptSubmit or SessionStart hooks added to a user message (the model reads its text) */
  'hook-context': HookContextPart;
  /** context use before each step's request (estimated) and after it (the provider's count) */
  context: ContextInfo;
  /** what one model call cost (one per step, stored with the assistant message) */
  ledger: LedgerStep;
  /** tool results replaced by a one-line stub in what the model is sent from this step on (never in the store) */
  pruned: PrunedInfo;
  /** older messages summarised: what the model is sent from here on starts with the summary */
  compaction: CompactionInfo;
  /** the per-step budget cut a result further than its own caps */
  'turn-budget': TurnCut;
  /**
   * a call in one line, from its tool's summary(): sent when the input is known and again with the result;
   * open: its tool's traits open its card (the page guesses the card's height by it)
   */
  'tool-summary': { toolCallId: string; summary: string; open?: true };
  /** a provider failure or other notice, with the next step */
  notice: { level: 'error' | 'warning' | 'info'; message: string; next?: string };
  /** the todo list the model keeps (todo_write) */
  todos: { items: TodoItem[] };
  /** a child of an `agent` call: its calls, live, and how it ended */
  subagent: SubagentView;
  /** a call waiting for the person while the turn runs (a child's approval, ask_user's question) */
  wait: LiveWait;
  /** a rewind happened here: alone in a user message after the conversation; the model's next request reads it as text */
  rewind: RewindNote;
  /** a call the server was running when it died (its tool part is output-error "Interrupted by a restart …") */
  interrupted: InterruptedNote;
  /** a file attached to a user message (an @-mention read through read_file, or a text file dropped on the composer): what the model sees */
  attachment: AttachmentInfo;
  /** a user message sent as /<skill> [args]: the model is asked to load that skill */
  'skill-request': { name: string; args: string };
  /** the session's model changed: from this step on the next one answers */
  'model-switch': { from: string; to: string };
} & DiagnosticsDataParts & import('./command-text').CommandDataParts;

/** data-attachment: one file attached to a user message, exactly as the model reads it. */
export interface AttachmentInfo {
  /** 'mention': @path read with read_file on the server; 'file': a text file the person attached */
  kind: 'mention' | 'file';
  /** the workspace path (mentions) or the file's name (attached files) */
  path: string;
  /** the lines asked for with #L10-40 */
  lines?: { start: number; end?: number };
  /** 'error': the read failed and text is its error, which the model reads */
  status: 'ok' | 'error';
  /** what the model is sent for this attachment */
  text: string;
  truncation: Truncation | null;
}

/** data-rewind: what a rewind restored, and what it could not undo (the loop tells the model). */
export interface RewindNote {
  /** the user message rewound to (the conversation now continues from before it, when conversation is true) */
  messageId: string | null;
  code: boolean;
  conversation: boolean;
  /** files restored to their earlier state (earlier reads of them are stale) */
  restored: string[];
  /** the branch the later messages moved to */
  branchId: string | null;
  /** the checkpoint of the workspace just before the restore (rewinding to it undoes this one) */
  undoCheckpointId: string | null;
  cannotUndo: string[];
  createdAt: number;
}

/** data-interrupted: a call that was running when the server died, and the checkpoint taken before it. */
export interface InterruptedNote {
  toolCallId: string;
  toolName: string;
  /** the user message of that turn (rewinding to it restores the checkpoint) */
  userMessageId: string | null;
  checkpointId: string | null;
  /** the command's combined log, when it had one */
  logPath: string | null;
}

/** A result the per-step budget cut further than its own caps. */
export interface TurnCut {
  toolCallId: string;
  /** exactly what the model now sees for this call */
  modelText: string;
  truncation: Truncation;
  budgetBytes: number;
}

/** Where a context window's size came from: the settings override, the server's own answer, the model catalogue, or the fallback. */
export interface ContextWindowSource {
  kind: 'settings' | 'server' | 'catalogue' | 'default';
  /** in words, for the page: "settings override", "vLLM /v1/models max_model_len", "models.dev catalogue (anthropic/claude-sonnet-4-5)" … */
  detail: string;
}

/** The context a request uses, split by kind, in tokens. */
export interface ContextBreakdown {
  /** the system prompt (without project docs) and the tool definitions */
  systemAndTools: number;
  /** AGENTS.md / CLAUDE.md in the system prompt */
  projectDocs: number;
  /** user and assistant text, tool calls, the compaction summary */
  conversation: number;
  /** tool results (stubs of pruned ones included) */
  toolResults: number;
}

/** data-context: the session's context use at a step, in tokens. */
export interface ContextInfo {
  usedTokens: number;
  windowTokens: number;
  windowSource: ContextWindowSource;
  /** the session's step number (counted over every turn) */
  step: number;
  /** usedTokens is Clamp's estimate before sending (true) or the provider's count after the call (false) */
  estimated: boolean;
  breakdown: ContextBreakdown;
  /** usedTokens is below the last count because Clamp pruned results or compacted turns before this step: from what */
  lowered?: { by: 'pruning' | 'compaction'; fromTokens: number };
}

/** data-ledger: one model call (one step). Steps are numbered over the whole session. */
export interface LedgerStep {
  step: number;
  /** input tokens as the provider counted them: not cached, read from its cache, written to its cache */
  inputTokens: { fresh: number; cacheRead: number; cacheWrite: number };
  outputTokens: number;
  /** Clamp's estimate of the request before sending it (the next estimate is corrected by inputTokens / this) */
  estimatedInputTokens: number;
  /** UTF-8 bytes the tool results in this step's request held in full (as stored) */
  toolBytesProduced: number;
  /** UTF-8 bytes of tool output this step's request actually carried (after cuts, pruning and compaction) */
  toolBytesShown: number;
  /** in US dollars where the catalogue has the model's prices, else null */
  costUsd: number | null;
  model: string | null;
}

/** One tool result pruned from what the model is sent. */
export interface PrunedItem {
  toolCallId: string;
  toolName: string;
  /** UTF-8 bytes of the result that the stub replaces */
  bytes: number;
  /** exactly what the model is sent instead */
  stub: string;
  /** where the full text lies (a file in the data dir), when it could be written */
  spillPath: string | null;
}

/** data-pruned: the results first pruned at a step; once pruned a result stays pruned. */
export interface PrunedInfo {
  step: number;
  items: PrunedItem[];
}

/** data-compaction: the steps before firstKeptStep are sent as the summary from here on (the store keeps them all). */
export interface CompactionInfo {
  id: string;
  step: number;
  beforeTokens: number;
  afterTokens: number;
  /** the structured summary the model wrote (or, on fallback, the note saying none could be written) */
  summary: string;
  trigger: 'auto' | 'manual' | 'overflow';
  /** the message holding the first step sent verbatim after the summary */
  firstKeptMessageId: string;
  /** the first step (session step number) sent verbatim after the summary */
  firstKeptStep: number;
  /** 'fallback-pruning': the summary failed (error, empty, over budget) and older results were pruned harder instead */
  outcome: 'summary' | 'fallback-pruning';
  /** how long the compaction took */
  durationMs: number;
  /** what the PreCompact hooks did and printed (the divider shows it; the model is not told) */
  hooks?: import('./hooks').HookNote[];
}

/** GET /api/sessions/[id]/ledger: every step of the session, oldest first, and the totals. */
export interface SessionLedger {
  steps: (LedgerStep & { messageId: string })[];
  totals: LedgerTotals;
  /** the session's and today's spending against their limits (the route adds it) */
  limits?: import('./limits').LimitUse[];
}

export interface LedgerTotals {
  steps: number;
  inputTokens: { fresh: number; cacheRead: number; cacheWrite: number };
  outputTokens: number;
  toolBytesProduced: number;
  toolBytesShown: number;
  /** null when no step had a price */
  costUsd: number | null;
  compactions: number;
  pruned: number;
}

export interface ApprovalInfo {
  toolCallId: string;
  approvalId?: string;
  toolName: string;
  /** what needs approval, in one line (the full command for run_command) */
  summary: string;
  /** every sub-command, for commands */
  subcommands?: string[];
  /** the tool runs a shell command (its `command` trait): a rule saved for it is a command prefix, and "allow network" applies */
  command?: true;
  cwd?: string;
  decision: PolicyDecision;
  /** the change a file write would make, as a unified diff */
  diff?: string;
  /** ask_user: the question (the bar shows it with its choices and a free-text answer) */
  question?: AskQuestion;
  /** a child's call: which child asks (the bar labels it) */
  from?: WaitOrigin;
}

export interface MessageMetadata {
  model?: string;
  createdAt?: number;
}

/** A chat message: its tool parts know every registered tool's input and output (see tool-types.ts). */
export type ClampMessage = UIMessage<MessageMetadata, ClampDataParts, ClampUITools>;

export interface SessionSummary {
  id: string;
  title: string;
  mode: PermissionMode;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  pendingApprovals: number;
  /** a subagent's session: the session whose `agent` call started it (its transcript is read-only) */
  parentId?: string | null;
  /** the session's own model (`provider:model`), when one was picked; else the default model answers */
  model?: string;
}

export interface SavedRule {
  id: string;
  workspace: string;
  tool: string;
  /** the command prefix (ruleKey) or '*' for every call of the tool */
  pattern: string;
  action: 'allow' | 'deny' | 'ask';
  createdAt: number;
}

export interface ModelSettings {
  provider: Provider | null;
  model: string | null;
  baseUrl: string | null;
  contextWindow: number | null;
  defaultMode: PermissionMode;
  /** whether the model takes images: 'auto' (the catalogue, else known vision families), or the person's 'yes' / 'no' */
  imageInput?: 'auto' | 'yes' | 'no';
}

export interface ModelStatus {
  configured: boolean;
  provider: string | null;
  model: string | null;
  label: string;
  windowTokens: number;
  /** where windowTokens came from */
  windowSource: ContextWindowSource;
  /** the catalogue's prices, in US dollars per million tokens, when it has them */
  prices?: ModelPrices | null;
  /** when not configured: exactly how to configure one */
  help?: string;
  scripted: boolean;
  /** whether the model takes images as file parts, and how that was decided (see lib/agent/vision.ts) */
  imageInput?: ImageInput;
}

/** Whether a model takes images, and why Clamp thinks so. */
export interface ImageInput {
  accepted: boolean;
  /** in words: "models.dev catalogue: input text, image", "CLAMP_IMAGE_INPUT=1", "not a known vision model" … */
  source: string;
}

export interface ModelPrices {
  inputPerMTokUsd: number;
  outputPerMTokUsd: number;
  cacheReadPerMTokUsd?: number;
  cacheWritePerMTokUsd?: number;
}

/** A background task as the page sees it (the task manager's own shape). */
/** The command sandbox as GET /api/status reports it (and the launcher prints it). */
export interface SandboxView {
  /** what CLAMP_SANDBOX asks for: 'by-mode' (debug read-only, the others workspace-write), 'read-only' or 'off' */
  level: 'by-mode' | 'read-only' | 'off';
  /** bubblewrap can confine commands here */
  available: boolean;
  /** why it cannot, with the fix; present only when it is wanted and unavailable */
  problem?: string;
  /** commands reach the network without asking (CLAMP_SANDBOX_NETWORK) */
  network: boolean;
  /** the sandbox's own network (a session's namespace: the proxy to allowed hosts, forwarded ports); absent where it does not apply (sandbox off, network open) */
  net?: { available: boolean; problem?: string };
}

export type TaskSummary = TaskInfo;
export type { TaskStatus, TaskStream };

/** One event on GET /api/tasks/events: the manager's event plus the task's summary after it. */
export type TaskStreamEvent = TaskEvent & { task: TaskSummary };

/** An approval request as stored in the data dir (lib/store/approvals.ts); survives restarts. */
export interface StoredApproval {
  approvalId: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  info: ApprovalInfo | null;
  status: 'pending' | 'answered' | 'consumed';
  answer: ApprovalAnswer | null;
  /** the command as the person edited it ('edit' answers only) */
  editedCommand: string | null;
  /** why it was denied ('deny' answers only) */
  reason: string | null;
  /** the person allowed the network for this one call */
  network: boolean;
  createdAt: number;
  answeredAt: number | null;
  /** ask_user: the person's answer ('once' answers) */
  reply?: string | null;
}

/** GET /api/sessions/[id]: the session, its whole conversation and what still waits for an answer. */
export interface SessionDetail {
  session: SessionSummary;
  messages: ClampMessage[];
  pendingApprovals: StoredApproval[];
}

export type { SecretName };

/**
 * The sandbox as the settings page sets it: a level ('by-mode', the default: plan and debug read-only,
 * the others workspace-write) and whether commands may reach the network. CLAMP_SANDBOX /
 * CLAMP_SANDBOX_NETWORK, when set, win over these (see README, "Sandbox").
 */
export interface SandboxSettings {
  level: 'by-mode' | 'read-only' | 'workspace-write' | 'off';
  network: boolean;
  /** environment variables passed to sandboxed commands beyond the allowlist (with CLAMP_SANDBOX_ENV's) */
  passEnv: string[];
  /** more paths hidden from sandboxed commands, absolute or `~/…` (with CLAMP_SANDBOX_HIDE's) */
  hide: string[];
  /** more paths under HOME shown read-only to sandboxed commands (with CLAMP_SANDBOX_SHOW's) */
  show: string[];
  /** hosts sandboxed commands may reach through the sandbox's proxy (with CLAMP_SANDBOX_ALLOW_HOSTS'); patterns of lib/contract/hosts.ts */
  allowHosts: string[];
}

/** GET and PUT /api/settings: the model settings and which keys are set (never the keys themselves). */
export interface SettingsView {
  settings: ModelSettings;
  /** the saved sandbox settings */
  sandbox: SandboxSettings;
  /** what the environment sets: the level and network win over the saved settings (CLAMP_SANDBOX, CLAMP_SANDBOX_NETWORK); the lists add to them (CLAMP_SANDBOX_ENV, _HIDE, _SHOW, _ALLOW_HOSTS) */
  sandboxEnv: { level?: string; network?: boolean; passEnv?: string[]; hide?: string[]; show?: string[]; allowHosts?: string[] };
  /** a key is stored in the data dir */
  keys: Record<SecretName, boolean>;
  /** a key is set in the server's environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, CLAMP_API_KEY) */
  envKeys: Record<SecretName, boolean>;
  /** the 0600 file in the data dir where a key typed on the page is stored */
  secretsFile: string;
}
