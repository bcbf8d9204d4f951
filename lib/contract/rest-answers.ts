/**
 * The main REST answers as zod schemas, for the OpenAPI document (lib/server/openapi.ts). Each is
 * checked at compile time against the type the route answers with (rest.ts, protocol.ts), so the
 * document cannot describe a field the route does not send, or miss one.
 */
import { z } from 'zod';
import { PERMISSION_MODES, type PermissionMode } from './types';
import type { DeletedAnswer, RuleListAnswer, SessionAnswer, SessionListAnswer, StopAnswer, TaskAnswer, TaskListAnswer } from './rest';
import type { FilePage, SavedRule, SessionDetail, SessionSummary, StoredApproval, TaskSummary } from './protocol';
import type { LogSearchAnswer } from './viewer';
import { APPROVAL_ANSWERS } from './rest';

/** true when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** true when every A is a B and both have the same keys (for a schema that leaves a nested field open). */
type Covers<A, B> = [A] extends [B] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false;
const check = <T extends true>(): T => true as T;

const mode = z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]);
const ms = z.number().describe('milliseconds since the epoch');

/** Every 4xx/5xx answer of a JSON route. */
export const errorAnswerSchema = z.object({ error: z.string().describe('what went wrong and what to do') });

export const sessionSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  mode,
  createdAt: ms,
  updatedAt: ms,
  messageCount: z.number(),
  pendingApprovals: z.number(),
  /** the session's own model (provider:model), when one was picked */
  model: z.string().optional(),
  parentId: z.string().nullable().optional().describe("a subagent's session: the session whose agent call started it (read-only)"),
});
export const sessionListAnswerSchema = z.object({ sessions: z.array(sessionSummarySchema) });
export const sessionAnswerSchema = z.object({ session: sessionSummarySchema });
export const deletedAnswerSchema = z.object({ deleted: z.string() });
export const deletedMemoryAnswerSchema = z.object({ deleted: z.number() });
export const stopAnswerSchema = z.object({ stopped: z.boolean().describe('false: no turn was running') });

export const savedRuleSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  tool: z.string(),
  pattern: z.string().describe("a command prefix (a rule key), =exact, or '*' for every call of the tool"),
  action: z.enum(['allow', 'deny', 'ask']),
  createdAt: ms,
});
export const ruleListAnswerSchema = z.object({ rules: z.array(savedRuleSchema) });

const perStream = z.object({ stdout: z.number(), stderr: z.number() });
export const taskSummarySchema = z.object({
  id: z.string(),
  command: z.string(),
  cwd: z.string(),
  sessionId: z.string().optional(),
  pid: z.number().optional(),
  status: z.enum(['running', 'exited', 'killed', 'timed out', 'failed']),
  statusText: z.string(),
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
  startedAt: ms,
  durationMs: z.number(),
  unreadBytes: perStream,
  totalBytes: perStream,
  logPaths: z.object({ stdout: z.string(), stderr: z.string() }),
  combinedLogPath: z.string(),
  ports: z
    .array(z.object({ port: z.number(), hostAddress: z.string(), hostPort: z.number(), url: z.string() }))
    .optional()
    .describe("the ports a running sandboxed task listens on, each forwarded to this machine's 127.0.0.1 (url is what to open)"),
});
export const taskListAnswerSchema = z.object({ tasks: z.array(taskSummarySchema) });
export const taskAnswerSchema = z.object({ task: taskSummarySchema });

export const storedApprovalSchema = z.object({
  approvalId: z.string(),
  sessionId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown().describe("the call's arguments"),
  info: z.unknown().describe('null, or an ApprovalInfo object (lib/contract/protocol.ts): summary, sub-commands, the verdict, a diff'),
  status: z.enum(['pending', 'answered', 'consumed']),
  answer: z.enum(APPROVAL_ANSWERS).nullable(),
  editedCommand: z.string().nullable(),
  reason: z.string().nullable(),
  network: z.boolean(),
  createdAt: ms,
  answeredAt: ms.nullable(),
  reply: z.string().nullable().optional().describe("ask_user: the person's answer"),
});
export const approvalAnswerResultSchema = z.object({ approval: storedApprovalSchema });

export const sessionDetailSchema = z.object({
  session: sessionSummarySchema,
  messages: z.array(z.unknown()).describe("the conversation as the AI SDK's UI messages (ClampMessage, lib/contract/protocol.ts): id, role, parts"),
  pendingApprovals: z.array(storedApprovalSchema),
});

export const filePageSchema = z.object({
  path: z.string(),
  text: z.string(),
  offset: z.number().describe('byte offset where text starts'),
  nextOffset: z.number().describe('byte offset to ask for next'),
  totalBytes: z.number(),
  eof: z.boolean(),
  firstLine: z.number().nullable().describe("the page's first line's number; null while a huge file is still being counted"),
  totalLines: z.number().nullable().describe('the lines of the file when read; null while still being counted'),
});

export const logSearchAnswerSchema = z.object({
  query: z.string(),
  matches: z.array(z.object({ offset: z.number().describe("byte offset of the match's line"), line: z.number(), column: z.number(), length: z.number() })).describe('the first matches in file order'),
  total: z.number().describe('every match in the bytes searched'),
  searchedBytes: z.number(),
  totalBytes: z.number(),
  stoppedBy: z.enum(['bytes', 'time']).nullable().describe('null when the whole file was searched'),
});

// drift fails the typecheck: each schema is the type its route answers with
export const ANSWERS_CHECKED = [
  check<Same<z.infer<typeof sessionSummarySchema>, SessionSummary>>(),
  check<Same<z.infer<typeof sessionListAnswerSchema>, SessionListAnswer>>(),
  check<Same<z.infer<typeof sessionAnswerSchema>, SessionAnswer>>(),
  check<Same<z.infer<typeof deletedAnswerSchema>, DeletedAnswer>>(),
  check<Same<z.infer<typeof deletedMemoryAnswerSchema>, DeletedAnswer<number>>>(),
  check<Same<z.infer<typeof stopAnswerSchema>, StopAnswer>>(),
  check<Same<z.infer<typeof savedRuleSchema>, SavedRule>>(),
  check<Same<z.infer<typeof ruleListAnswerSchema>, RuleListAnswer>>(),
  check<Same<z.infer<typeof taskSummarySchema>, TaskSummary>>(),
  check<Same<z.infer<typeof taskListAnswerSchema>, TaskListAnswer>>(),
  check<Same<z.infer<typeof taskAnswerSchema>, TaskAnswer>>(),
  check<Covers<StoredApproval, z.infer<typeof storedApprovalSchema>>>(),
  check<Covers<SessionDetail, z.infer<typeof sessionDetailSchema>>>(),
  check<Same<z.infer<typeof filePageSchema>, FilePage>>(),
  check<Same<z.infer<typeof logSearchAnswerSchema>, LogSearchAnswer>>(),
] as const;
