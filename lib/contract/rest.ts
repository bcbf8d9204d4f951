/**
 * The REST routes' bodies, each declared once: the zod schema the route parses with and the type
 * the page sends (inferred from it), and the shape each route answers. Route handlers and the page
 * both import from here; every route has one request shape and one answer shape.
 */
import { z } from 'zod';
import { BUDGET } from './budget';
import { parseHostPattern } from './hosts';
import { PROVIDERS, SECRET_NAMES, type Provider, type SecretName } from './providers';
import { PERMISSION_MODES, type PermissionMode } from './types';
import { worktreeRequest } from './worktree';
import type { FileCommand } from './command-text';
import type { ClampMessage, ImageInput, ModelStatus, SandboxView, SavedRule, SessionSummary, StoredApproval, TaskSummary } from './protocol';

const mode = z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]);
const title = z.string().trim().min(1).max(BUDGET.SESSION_TITLE_MAX_CHARS);

/** POST /api/sessions; `worktree`: the session works in its own git worktree of the workspace (lib/contract/worktree.ts) */
export const sessionCreateBody = z.strictObject({ title: title.optional(), mode: mode.optional(), worktree: worktreeRequest.optional() });
export type SessionCreateBody = z.infer<typeof sessionCreateBody>;

/** PATCH /api/sessions/[id]: a title, a mode, the session's model, or several. */
export const sessionPatchBody = z
  .strictObject({
    title: title.optional(),
    mode: mode.optional(),
    /** the session's own model as provider:model (GET /api/models lists them); null goes back to the default */
    model: z
      .string()
      .trim()
      .regex(/^[a-z-]+:.+$/, 'must be provider:model, as GET /api/models lists them')
      .max(4200)
      .refine((m) => (PROVIDERS as readonly string[]).includes(m.slice(0, m.indexOf(':'))), { message: `names an unknown provider; use one of: ${PROVIDERS.join(', ')}` })
      .nullable()
      .optional(),
  })
  .refine((b) => b.title !== undefined || b.mode !== undefined || b.model !== undefined, { message: 'send a title, a mode, a model, or several' });
export type SessionPatchBody = z.infer<typeof sessionPatchBody>;

/** POST /api/sessions/[id]/compact: what the summary should keep in particular (`/compact <focus>`). */
export const compactBody = z.strictObject({ focus: z.string().trim().max(BUDGET.COMPACTION_FOCUS_MAX_BYTES).optional() });
export type CompactBody = z.infer<typeof compactBody>;

/** The model providers Clamp knows (the provider table's names). */
export { PROVIDERS, type Provider };

const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((s) => /^https?:\/\/[^\s/]+/i.test(s) && URL.canParse(s), { message: 'must be an http:// or https:// URL' });

const apiKey = z.string().trim().min(1, 'must not be empty; send null to remove the key').max(1000).nullable().optional();

/** PUT /api/settings: any subset of the model settings, plus API keys to store (null removes one). */
/** The sandbox levels the settings page offers ('by-mode': the mode picks it). */
export const SANDBOX_SETTING_LEVELS = ['by-mode', 'read-only', 'workspace-write', 'off'] as const;
/** A path the sandbox settings name: absolute, or under HOME as `~/…`. */
const sandboxPath = z.string().trim().max(4096).regex(/^(\/|~\/)/, 'must be an absolute path or start with ~/');

export const settingsUpdateBody = z
  .object({
    provider: z.enum(PROVIDERS).nullable(),
    model: z.string().trim().min(1).max(200).nullable(),
    baseUrl: httpUrl.nullable(),
    contextWindow: z.int().min(1024).max(100_000_000).nullable(),
    defaultMode: mode,
    keys: z.strictObject(Object.fromEntries(SECRET_NAMES.map((n) => [n, apiKey])) as Record<SecretName, typeof apiKey>).optional(),
    sandbox: z
      .strictObject({
        level: z.enum(SANDBOX_SETTING_LEVELS),
        network: z.boolean(),
        passEnv: z.array(z.string().trim().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).max(200),
        hide: z.array(sandboxPath).max(200),
        show: z.array(sandboxPath).max(200),
        allowHosts: z.array(z.string().trim().max(300).refine((h) => !('error' in parseHostPattern(h)), { error: (i) => `${JSON.stringify(i.input)} is not a host pattern: a host name (packages.example.org), *.name for every name below it, or an IP address, optionally with :port` })).max(500),
      })
      .partial()
      .optional(),
    /** whether the model takes images: 'auto' decides from the catalogue and known vision families */
    imageInput: z.enum(['auto', 'yes', 'no']),
  })
  .partial()
  .strict();
export type SettingsUpdate = z.infer<typeof settingsUpdateBody>;

/** POST /api/settings/check: the model settings as the dialog holds them, with a typed key not yet stored. */
export const modelCheckBody = z.strictObject({
  provider: z.enum(PROVIDERS).nullable(),
  model: z.string().trim().max(4000).nullable(),
  baseUrl: z.string().trim().max(2000).nullable(),
  /** an API key typed in the dialog; without it the stored key, then the environment's, is used */
  key: z.string().trim().max(1000).nullable().optional(),
});
export type ModelCheckRequest = z.infer<typeof modelCheckBody>;
/** POST /api/settings/check: whether a turn could start with these settings, and what the provider lists. */
export interface ModelCheck {
  ok: boolean;
  /** in the dialog's words: what is wrong and how to fix it, or what was reached */
  message: string;
  /** the model ids the provider lists (empty when it was not reached or lists none) */
  models: string[];
  /** the provider answered with a model list (a failure after it is about the model, not the connection) */
  reached: boolean;
  /** the listed id that is the model (its name, or the name with a suffix), or, with Model empty and no default, the only one listed: the dialog shows it chosen and fills an empty Model with it */
  pick: string | null;
}

/** The answers a person can give a pending call. */
export const APPROVAL_ANSWERS = ['once', 'session', 'always', 'edit', 'deny'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

/** POST /api/sessions/[id]/approvals/[toolCallId] */
export const approvalAnswerBody = z.object({
  answer: z.enum(APPROVAL_ANSWERS),
  /** for 'edit': the command as the person edited it */
  editedCommand: z.string().max(100_000).optional(),
  /** for 'deny': why, which reaches the model */
  reason: z.string().max(10_000).optional(),
  /** run_command only: run this one call with the network (the rest of the sandbox stays) */
  network: z.boolean().optional(),
  /** ask_user only: the person's answer to the question (with answer 'once') */
  reply: z.string().max(BUDGET.APPROVAL_BODY_MAX_BYTES).optional(),
});
export type ApprovalAnswerBody = z.infer<typeof approvalAnswerBody>;

/** GET /api/status: the workspace, the data dir, the model, the mode new sessions start in and the sandbox. */
export interface StatusAnswer {
  workspace: string;
  dataDir: string;
  model: ModelStatus;
  defaultMode: PermissionMode;
  sandbox: SandboxView;
}

/** GET /api/sessions */
export interface SessionListAnswer {
  sessions: SessionSummary[];
}
/** POST /api/sessions (201) and PATCH /api/sessions/[id] */
export interface SessionAnswer {
  session: SessionSummary;
}
/** DELETE /api/sessions/[id], /api/rules/[id] (string ids) and /api/memories/[id] (a number) */
export interface DeletedAnswer<Id extends string | number = string> {
  deleted: Id;
}
/** GET /api/rules */
export interface RuleListAnswer {
  rules: SavedRule[];
}
/** A saved memory as the page lists it. */
export interface MemoryView {
  id: number;
  content: string;
  createdAt: number;
}
/** GET /api/memories[?q=]: newest first (best first with q); total counts them all. */
export interface MemoryListAnswer {
  memories: MemoryView[];
  total: number;
}
/** GET /api/tasks */
export interface TaskListAnswer {
  tasks: TaskSummary[];
}
/** GET and DELETE /api/tasks/[id] */
export interface TaskAnswer {
  task: TaskSummary;
}
/** POST /api/sessions/[id]/approvals/[toolCallId] */
export interface ApprovalAnswerResult {
  approval: StoredApproval;
}
/** Its 409, when the call no longer waits (answered before, or withdrawn by a rewind): the approval as it stands. */
export interface ApprovalConflictAnswer extends ApprovalAnswerResult {
  error: string;
}
/** POST /api/sessions/[id]/stop */
export interface StopAnswer {
  stopped: boolean;
}

/* Checkpoints, rewind, branches and the changes view (issue 13). */

/** A file skipped by a checkpoint because it is over CHECKPOINT_FILE_MAX_BYTES. */
export interface SkippedFile {
  path: string;
  bytes: number;
}
/** One checkpoint: a snapshot of the workspace taken before a turn's first change (or before a rewind or a revert). */
export interface CheckpointView {
  id: string;
  /** the user message whose turn it was taken in (null: none was stored yet) */
  messageId: string | null;
  /** the tool call it was taken before (absent for one taken before a rewind or a revert) */
  toolCallId?: string;
  /** why it was taken: before a turn's first change, before a rewind restored code, before a per-file revert */
  kind: 'turn' | 'rewind' | 'revert';
  createdAt: number;
  /** files in the snapshot */
  fileCount: number;
  skipped: SkippedFile[];
}
/** GET /api/sessions/[id]/checkpoints: oldest first. */
export interface CheckpointListAnswer {
  checkpoints: CheckpointView[];
}
/** How a file differs: what restoring (or reverting) does to it. */
export type FileChangeKind = 'added' | 'modified' | 'deleted' | 'mode' | 'type';
/** One file of a rewind's preview: current workspace → the state before the message. */
export interface RewindFile {
  path: string;
  change: FileChangeKind;
  binary: boolean;
  /** unified diff (bounded, with a note when cut; '' for a binary file or a mode change) */
  diff: string;
}
/** A background task that keeps a rewind from running until it is stopped. */
export interface RunningTaskView {
  id: string;
  command: string;
}
/** GET /api/sessions/[id]/rewind?messageId=M: what a rewind to before M would do. */
export interface RewindPreview {
  messageId: string;
  /** the checkpoint holding the files as they were before M (null: Clamp changed nothing since, so there is nothing to restore) */
  checkpointId: string | null;
  files: RewindFile[];
  /** more files changed than are listed, or diffs were cut */
  truncated: boolean;
  /** what a rewind cannot undo, in plain sentences */
  cannotUndo: string[];
  runningTasks: RunningTaskView[];
  /** messages from M on, which a conversation rewind moves to a branch */
  laterMessages: number;
}
/**
 * POST /api/sessions/[id]/rewind: restore code, conversation or both to before a user message.
 * checkpointId instead of messageId restores the code of that checkpoint (undoing a rewind: the
 * checkpoint taken before it); conversation must then be false.
 */
export const rewindBody = z
  .strictObject({
    messageId: z.string().min(1).max(200).optional(),
    checkpointId: z.string().min(1).max(200).optional(),
    code: z.boolean(),
    conversation: z.boolean(),
    /** stop the session's running background tasks first (else a rewind refuses while they run) */
    stopTasks: z.boolean().optional(),
  })
  .refine((b) => (b.messageId === undefined) !== (b.checkpointId === undefined), { message: 'send either messageId or checkpointId' })
  .refine((b) => b.code || b.conversation, { message: 'restore code, conversation, or both: set code or conversation to true' })
  .refine((b) => b.checkpointId === undefined || !b.conversation, { message: 'a checkpointId restores code only; send messageId to rewind the conversation' });
export type RewindBody = z.infer<typeof rewindBody>;
/** The answer of POST …/rewind. */
export interface RewindAnswer {
  /** the paths whose files were restored */
  restored: string[];
  /** the branch holding the messages a conversation rewind took out (null: the conversation was not rewound) */
  branchId: string | null;
  /** the conversation as it is now */
  messages: ClampMessage[];
  /** the checkpoint taken of the workspace just before the restore (null when code was not restored): rewinding to it undoes the rewind */
  undoCheckpointId: string | null;
}
/** Its 409 while background tasks run and stopTasks is not true. */
export interface RewindTasksConflict {
  error: string;
  runningTasks: RunningTaskView[];
}
/** A stored branch: the messages a conversation rewind took out. */
export interface BranchView {
  id: string;
  createdAt: number;
  /** the user message the rewind went back to (the branch's first message) */
  fromMessageId: string;
  messageCount: number;
  /** the first user message's text, cut */
  preview: string;
}
/** GET /api/sessions/[id]/branches: newest first. */
export interface BranchListAnswer {
  branches: BranchView[];
}
/** GET /api/sessions/[id]/branches/[branchId]: read-only. */
export interface BranchAnswer {
  branch: BranchView;
  messages: ClampMessage[];
}
/** One file of the changes view: its state at the session's start → now. */
export interface ChangedFile {
  path: string;
  change: FileChangeKind;
  binary: boolean;
  additions: number;
  deletions: number;
  diff: string;
}
/** Where "commit these" would commit: the git repository the workspace is in, or why there is none. */
export type CommitTarget = { kind: 'git'; root: string } | { kind: 'none'; reason: string };
/** GET /api/sessions/[id]/changes: every file that differs from the session's first checkpoint (the baseline). */
export interface ChangesAnswer {
  /** null before the session's first change: nothing changed yet */
  baselineId: string | null;
  files: ChangedFile[];
  truncated: boolean;
  /** the panel offers a commit only into a repository */
  commit: CommitTarget;
}
const workspacePath = z.string().trim().min(1).max(4096);
/** POST /api/sessions/[id]/changes/revert: the file back to its state at the session's start (one the session created is removed). */
export const revertBody = z.strictObject({ path: workspacePath });
export type RevertBody = z.infer<typeof revertBody>;
export interface RevertAnswer {
  reverted: string;
}
/** POST /api/sessions/[id]/changes/commit: commit these paths through git_commit (the click is the approval; policy still applies). */
export const commitChangesBody = z.strictObject({
  paths: z.array(workspacePath).min(1).max(1000),
  message: z.string().trim().min(1).max(10_000),
});
export type CommitChangesBody = z.infer<typeof commitChangesBody>;
export interface CommitChangesAnswer {
  ok: boolean;
  /** git_commit's result text, or the refusal */
  text: string;
}

/** One provider's models in the per-session picker (GET /api/models). */
export interface ModelChoiceGroup {
  provider: Provider;
  models: string[];
  /** why the list is empty (the provider did not answer, or lists none) */
  error?: string;
}
/** GET /api/models: the default model (settings, else the environment) and what each configured provider offers. */
export interface ModelChoicesAnswer {
  default: { spec: string; label: string } | null;
  providers: ModelChoiceGroup[];
}

/** GET /api/paths?q=: workspace paths for an @-mention, best first (glob's ignore rules apply). */
export interface PathCompletionAnswer {
  items: { path: string; dir: boolean }[];
  /** more paths matched than are listed */
  more: boolean;
  /** the walk stopped at MENTION_SCAN_MAX_FILES entries: deeper paths may be missing */
  scanCapped: boolean;
}
/** GET /api/paths?check=: whether a mentioned path is a file inside the workspace. */
export interface MentionCheckAnswer {
  path: string;
  ok: boolean;
  /** what is wrong, when not ok */
  error?: string;
}

/** POST /api/sessions/[id]/steer: whether a running turn will end at its next safe point. */
export interface SteerAnswer {
  steering: boolean;
}
/** GET /api/skills: the skills, and the commands from files (`.claude/commands/*.md` …) with their text */
export interface SkillListAnswer {
  skills: { name: string; description: string }[];
  commands: FileCommand[];
  /** command and agent files that are not offered, with why (past a cap of the budget table, unreadable, a name taken …): /help lists them */
  skipped?: { path: string; reason: string }[];
}
/** GET /api/models?spec=provider:model: the model's label and whether it takes images (ok: it can be used as configured). */
export interface ModelCapabilityAnswer {
  spec: string;
  ok: boolean;
  label: string;
  imageInput: ImageInput;
}
