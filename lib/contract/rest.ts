/**
 * The REST routes' bodies, each declared once: the zod schema the route parses with and the type
 * the page sends (inferred from it), and the shape each route answers. Route handlers and the page
 * both import from here; every route has one request shape and one answer shape.
 */
import { z } from 'zod';
import { BUDGET } from './budget';
import { PERMISSION_MODES, type PermissionMode } from './types';
import type { ImageInput, ModelStatus, SandboxView, SavedRule, SessionSummary, StoredApproval, TaskSummary } from './protocol';

const mode = z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]);
const title = z.string().trim().min(1).max(BUDGET.SESSION_TITLE_MAX_CHARS);

/** POST /api/sessions */
export const sessionCreateBody = z.strictObject({ title: title.optional(), mode: mode.optional() });
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
      .refine((m) => (PROVIDERS as readonly string[]).includes(m.slice(0, m.indexOf(':'))), { message: `names an unknown provider; use one of: anthropic, openai, openai-compatible, ollama, scripted` })
      .nullable()
      .optional(),
  })
  .refine((b) => b.title !== undefined || b.mode !== undefined || b.model !== undefined, { message: 'send a title, a mode, a model, or several' });
export type SessionPatchBody = z.infer<typeof sessionPatchBody>;

/** POST /api/sessions/[id]/compact: what the summary should keep in particular (`/compact <focus>`). */
export const compactBody = z.strictObject({ focus: z.string().trim().max(BUDGET.COMPACTION_FOCUS_MAX_BYTES).optional() });
export type CompactBody = z.infer<typeof compactBody>;

/** The model providers Clamp knows. */
export const PROVIDERS = ['anthropic', 'openai', 'openai-compatible', 'ollama', 'scripted'] as const;
export type Provider = (typeof PROVIDERS)[number];

const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((s) => /^https?:\/\/[^\s/]+/i.test(s) && URL.canParse(s), { message: 'must be an http:// or https:// URL' });

const apiKey = z.string().trim().min(1, 'must not be empty; send null to remove the key').max(1000).nullable().optional();

/** PUT /api/settings: any subset of the model settings, plus API keys to store (null removes one). */
/** The sandbox levels the settings page offers ('by-mode': the mode picks it). */
export const SANDBOX_SETTING_LEVELS = ['by-mode', 'read-only', 'workspace-write', 'off'] as const;

export const settingsUpdateBody = z
  .object({
    provider: z.enum(PROVIDERS).nullable(),
    model: z.string().trim().min(1).max(200).nullable(),
    baseUrl: httpUrl.nullable(),
    contextWindow: z.int().min(1024).max(100_000_000).nullable(),
    defaultMode: mode,
    keys: z.strictObject({ anthropic: apiKey, openai: apiKey, 'openai-compatible': apiKey }).optional(),
    sandbox: z.strictObject({ level: z.enum(SANDBOX_SETTING_LEVELS), network: z.boolean() }).partial().optional(),
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
/** Its 409, when the call was already answered: the approval with the earlier answer. */
export interface ApprovalConflictAnswer extends ApprovalAnswerResult {
  error: string;
}
/** POST /api/sessions/[id]/stop */
export interface StopAnswer {
  stopped: boolean;
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
/** GET /api/skills */
export interface SkillListAnswer {
  skills: { name: string; description: string }[];
}
/** GET /api/models?spec=provider:model: the model's label and whether it takes images (ok: it can be used as configured). */
export interface ModelCapabilityAnswer {
  spec: string;
  ok: boolean;
  label: string;
  imageInput: ImageInput;
}
