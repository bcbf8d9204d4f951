import { z } from 'zod';
import { BUDGET } from '../contract/budget';
import { approvalAnswerBody, commitChangesBody, compactBody, modelCheckBody, revertBody, rewindBody, sessionCreateBody, sessionPatchBody, settingsUpdateBody } from '../contract/rest';
import { mcpPatchBody, mcpServerBody } from '../contract/mcp-rest';
import { hooksBody } from '../contract/hooks-rest';
import { fileRulesBody } from '../contract/permission-rest';
import { sessionExportSchema } from '../contract/session-export';
import { diagnosticsSettingsBody } from '../contract/diagnostics';
import { worktreeFinishBody, worktreeSettingsBody } from '../contract/worktree';
import { notifySettingsBody } from '../contract/notify';
import { retentionBody } from '../contract/storage';
import { chatBodySchema, limitSettingsBody, promptBody, workspaceOpenBody } from '../contract/request-bodies';
import * as A from '../contract/rest-answers';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What an operation answers with: a declared schema, a stream, or a shape described in words (named by its type). */
type Answer = { schema: string; status?: number } | { stream: string } | { described: string; status?: number };

interface Operation {
  summary: string;
  tag: string;
  /** the zod schema the route parses its JSON body with, by its component name */
  body?: string;
  bodyMaxBytes?: number;
  /** what the body's schema cannot say (a refinement) */
  bodyNote?: string;
  query?: Array<{ name: string; description: string; type?: 'string' | 'integer' }>;
  answer: Answer;
  /** the error statuses worth knowing beyond 400/401/403 */
  errors?: Record<number, string>;
}

/** Request bodies, by component name: exactly the schemas the routes parse with. */
export const REQUEST_SCHEMAS: Record<string, z.ZodType> = {
  ChatBody: chatBodySchema,
  SessionCreateBody: sessionCreateBody,
  SessionPatchBody: sessionPatchBody,
  ApprovalAnswerBody: approvalAnswerBody,
  CompactBody: compactBody,
  WorktreeFinishBody: worktreeFinishBody,
  WorktreeSettingsBody: worktreeSettingsBody,
  LimitSettingsBody: limitSettingsBody,
  NotifySettingsBody: notifySettingsBody,
  RetentionBody: retentionBody,
  SettingsUpdate: settingsUpdateBody,
  ModelCheckRequest: modelCheckBody,
  McpServerBody: mcpServerBody,
  McpPatchBody: mcpPatchBody,
  HooksBody: hooksBody,
  FileRulesBody: fileRulesBody,
  PromptBody: promptBody,
  CommitChangesBody: commitChangesBody,
  RevertBody: revertBody,
  RewindBody: rewindBody,
  SessionExport: sessionExportSchema,
  DiagnosticsSettingsBody: diagnosticsSettingsBody,
  WorkspaceOpenBody: workspaceOpenBody,
};

/** Answers with a declared schema (lib/contract/rest-answers.ts, checked against the routes' types). */
const ANSWER_SCHEMAS: Record<string, z.ZodType> = {
  Error: A.errorAnswerSchema,
  SessionSummary: A.sessionSummarySchema,
  SessionListAnswer: A.sessionListAnswerSchema,
  SessionAnswer: A.sessionAnswerSchema,
  SessionDetail: A.sessionDetailSchema,
  DeletedAnswer: A.deletedAnswerSchema,
  DeletedMemoryAnswer: A.deletedMemoryAnswerSchema,
  StopAnswer: A.stopAnswerSchema,
  SavedRule: A.savedRuleSchema,
  RuleListAnswer: A.ruleListAnswerSchema,
  TaskSummary: A.taskSummarySchema,
  TaskListAnswer: A.taskListAnswerSchema,
  TaskAnswer: A.taskAnswerSchema,
  StoredApproval: A.storedApprovalSchema,
  ApprovalAnswerResult: A.approvalAnswerResultSchema,
  FilePage: A.filePageSchema,
  LogSearchAnswer: A.logSearchAnswerSchema,
};

const page = [
  { name: 'offset', description: 'byte offset to start at (default 0)', type: 'integer' as const },
  { name: 'limit', description: `most bytes to return (default ${BUDGET.FILE_PAGE_DEFAULT_BYTES}, at most ${BUDGET.FILE_PAGE_MAX_BYTES})`, type: 'integer' as const },
];
const busy = 'the session is working on a turn';

/**
 * Every route under app/api, by path and method (test/server/openapi.test.ts fails when a route file or
 * one of its methods has no entry here, or a body differs from the schema the route parses with).
 */
export const API_ROUTES: Record<string, Partial<Record<Method, Operation>>> = {
  '/api/sessions': {
    get: { tag: 'sessions', summary: "The workspace's sessions, newest first", answer: { schema: 'SessionListAnswer' } },
    post: { tag: 'sessions', summary: 'Create a session (in the mode given, else the default mode)', body: 'SessionCreateBody', answer: { schema: 'SessionAnswer', status: 201 } },
  },
  '/api/sessions/{id}': {
    get: { tag: 'sessions', summary: 'A session, its whole conversation and its pending approvals', answer: { schema: 'SessionDetail' }, errors: { 404: 'no such session' } },
    patch: { tag: 'sessions', summary: "Rename a session or switch its mode (the mode applies from the next tool call)", body: 'SessionPatchBody', bodyNote: 'a title, a mode, or both', answer: { schema: 'SessionAnswer' }, errors: { 404: 'no such session' } },
    delete: { tag: 'sessions', summary: 'Delete a session and its messages', answer: { schema: 'DeletedAnswer' }, errors: { 404: 'no such session', 409: busy } },
  },
  '/api/chat': {
    post: {
      tag: 'chat',
      summary: 'Run a turn: send a user message, or continue after answering approvals',
      body: 'ChatBody',
      bodyMaxBytes: BUDGET.CHAT_BODY_MAX_BYTES,
      bodyNote: `a message with images may be up to ${BUDGET.CHAT_BODY_WITH_IMAGES_MAX_BYTES} bytes; send either "message" ({ id, text }: a user message; the id is yours, unique in the session) or "continue" ({ messageId }: the latest assistant message, once its approvals are answered), not both`,
      answer: {
        stream:
          "The AI SDK's UI message stream as server-sent events: `data: <chunk JSON>` lines (start, text-delta, tool-input-available, tool-output-available with the whole ToolResult, data-* parts, finish or abort), then `data: [DONE]`. A call that needs approval ends the stream with its tool part in state approval-requested: answer it at /api/sessions/{id}/approvals/{toolCallId}, then POST a continuation.",
      },
      errors: { 404: 'no such session', 409: `no model is configured, ${busy}, or the message was already sent`, 413: `the body is over ${BUDGET.CHAT_BODY_MAX_BYTES} bytes` },
    },
  },
  '/api/sessions/{id}/approvals/{toolCallId}': {
    post: {
      tag: 'approvals',
      summary: "Answer a pending call: once, this session, always (saves a rule), edit (a command), or deny with a reason the model reads",
      body: 'ApprovalAnswerBody',
      bodyMaxBytes: BUDGET.APPROVAL_BODY_MAX_BYTES,
      answer: { schema: 'ApprovalAnswerResult' },
      errors: { 404: 'no such pending call', 409: 'the call no longer waits (answered before, or taken out by a rewind): the body is { error, approval } as it stands; the answer is not applied to any call' },
    },
  },
  '/api/sessions/{id}/continue': {
    post: { tag: 'chat', summary: "Resume, on the server, a turn that stopped for approvals once every one is answered (the inbox's answer for a session not on screen)", answer: { described: 'ContinueAnswer (lib/contract/board.ts): { started, waiting }' }, errors: { 404: 'no such session', 409: 'a turn runs, or nothing waits to be continued' } },
  },
  '/api/board': {
    get: { tag: 'sessions', summary: 'Every session of the workspace as it stands (working, waiting, done, failed), and every call waiting for the person in any of them', answer: { described: 'BoardAnswer (lib/contract/board.ts): { sessions, inbox }' } },
  },
  '/api/board/events': {
    get: { tag: 'sessions', summary: 'The board, live', answer: { stream: 'Server-sent events: `data: <BoardAnswer JSON>` (lib/contract/board.ts) at once and whenever the board changes.' } },
  },
  '/api/sessions/{id}/stop': {
    post: { tag: 'chat', summary: "Stop the session's running turn and every command it runs", answer: { schema: 'StopAnswer' } },
  },
  '/api/sessions/{id}/compact': {
    post: { tag: 'sessions', summary: 'Compact the conversation now (what the model is sent; the store keeps every message)', body: 'CompactBody', answer: { described: 'CompactionInfo (lib/contract/protocol.ts)' }, errors: { 404: 'no such session', 409: busy } },
  },
  '/api/sessions/{id}/worktree': {
    get: { tag: 'sessions', summary: "The session's own git worktree (branch, base, folder, state), or null", answer: { described: 'WorktreeAnswer (lib/contract/worktree.ts)' }, errors: { 404: 'no such session' } },
    post: { tag: 'sessions', summary: 'Finish the worktree: merge into its base branch, keep the branch, or discard it (confirm to drop uncommitted changes)', body: 'WorktreeFinishBody', answer: { described: 'WorktreeFinishAnswer (lib/contract/worktree.ts)' }, errors: { 404: 'no such session', 409: `${busy}, or no worktree to finish` } },
  },
  '/api/sessions/{id}/ledger': {
    get: { tag: 'sessions', summary: "Each step's tokens and tool bytes, and the session's totals", answer: { described: 'SessionLedger (lib/contract/protocol.ts)' }, errors: { 404: 'no such session' } },
  },
  '/api/sessions/{id}/diagnostics': {
    get: { tag: 'sessions', summary: "Diagnostics of the session's changes that arrived after their results, and the checks still going on", answer: { described: 'LateDiagnosticsAnswer (lib/contract/diagnostics.ts)' }, errors: { 404: 'no such session' } },
  },
  '/api/tasks': {
    get: { tag: 'tasks', summary: 'Background tasks', answer: { schema: 'TaskListAnswer' } },
  },
  '/api/tasks/{id}': {
    get: { tag: 'tasks', summary: 'One background task', answer: { schema: 'TaskAnswer' }, errors: { 404: 'no such task' } },
    delete: { tag: 'tasks', summary: 'Kill a background task (its whole process group)', answer: { schema: 'TaskAnswer' }, errors: { 404: 'no such task' } },
  },
  '/api/tasks/{id}/log': {
    get: {
      tag: 'tasks',
      summary: "A page of a task's log",
      query: [{ name: 'stream', description: 'combined (the default when it exists), stdout or stderr' }, ...page],
      answer: { schema: 'FilePage' },
      errors: { 404: 'no such task, or no such log' },
    },
  },
  '/api/tasks/{id}/log/search': {
    get: {
      tag: 'tasks',
      summary: "Where a text occurs in a task's whole log on disk (case ignored; bounded in bytes and time)",
      query: [{ name: 'q', description: 'the text' }, { name: 'stream', description: 'combined (the default when it exists), stdout or stderr' }],
      answer: { schema: 'LogSearchAnswer' },
      errors: { 400: 'no text, or one too long', 404: 'no such task, or no such log' },
    },
  },
  '/api/tasks/events': {
    get: { tag: 'tasks', summary: "Live task events (start, output, exit) for the tasks panel", answer: { stream: 'Server-sent events: `data: <TaskStreamEvent JSON>` (lib/contract/protocol.ts) for each task start, output and exit.' } },
  },
  '/api/rules': {
    get: { tag: 'rules', summary: "The workspace's saved (\"always\") rules", answer: { schema: 'RuleListAnswer' } },
  },
  '/api/rules/files': {
    get: { tag: 'rules', summary: "The settings files' permission rules (Claude Code's permissions.allow/ask/deny), each with its file and state, and whether Clamp reads them", answer: { described: 'FileRulesView (lib/contract/permission-rest.ts)' } },
    put: { tag: 'rules', summary: "Turn reading the settings files' permission rules on or off, or approve a workspace allow rule by its hash", body: 'FileRulesBody', answer: { described: 'FileRulesView (lib/contract/permission-rest.ts)' }, errors: { 404: 'no allow rule of the workspace has that hash' } },
  },
  '/api/rules/{id}': {
    delete: { tag: 'rules', summary: 'Delete a saved rule', answer: { schema: 'DeletedAnswer' }, errors: { 404: 'no such rule' } },
  },
  '/api/memories': {
    get: { tag: 'memories', summary: 'Saved memories, newest first (best first with q)', query: [{ name: 'q', description: 'search text' }], answer: { described: 'MemoryListAnswer (lib/contract/rest.ts): { memories: { id, content, createdAt }[], total }' } },
  },
  '/api/memories/{id}': {
    delete: { tag: 'memories', summary: 'Delete a memory', answer: { schema: 'DeletedMemoryAnswer' }, errors: { 404: 'no such memory' } },
  },
  '/api/files': {
    get: { tag: 'files', summary: 'A page of a spilled output or log file in the data dir (the full-output viewer)', query: [{ name: 'path', description: 'the file, as a result named it' }, ...page], answer: { schema: 'FilePage' }, errors: { 404: 'no such file in the data dir' } },
  },
  '/api/files/search': {
    get: {
      tag: 'files',
      summary: 'Where a text occurs in a whole spilled output or log in the data dir (case ignored; bounded in bytes and time)',
      query: [{ name: 'path', description: 'the file, as a result named it' }, { name: 'q', description: 'the text' }],
      answer: { schema: 'LogSearchAnswer' },
      errors: { 400: 'no text, or one too long', 404: 'no such file in the data dir' },
    },
  },
  '/api/settings': {
    get: { tag: 'settings', summary: 'The model settings, the sandbox settings and which keys are stored', answer: { described: 'SettingsView (lib/contract/protocol.ts)' } },
    put: { tag: 'settings', summary: 'Change any subset of the settings; keys go to the 0600 secrets file', body: 'SettingsUpdate', answer: { described: 'SettingsView (lib/contract/protocol.ts)' } },
  },
  '/api/settings/check': {
    post: { tag: 'settings', summary: "Reach a provider with these settings and list its models", body: 'ModelCheckRequest', answer: { described: 'ModelCheck (lib/contract/protocol.ts)' } },
  },
  '/api/status': {
    get: { tag: 'status', summary: 'The workspace, data dir, model, default mode and sandbox', answer: { described: 'StatusAnswer (lib/contract/rest.ts)' } },
  },
  '/api/sessions/{id}/steer': {
    post: { tag: 'chat', summary: '"Send now": the running turn ends at the next safe point, so a queued message can be sent', answer: { described: 'SteerAnswer (lib/contract/rest.ts): { steering }' } },
  },
  '/api/sessions/{id}/export': {
    get: {
      tag: 'sessions',
      summary: 'Export a session as a download',
      query: [{ name: 'format', description: 'json (the default: every stored message, importable) or md (Markdown, for people)' }],
      answer: { schema: 'SessionExport' },
    },
  },
  '/api/sessions/import': {
    post: { tag: 'sessions', summary: 'Import a JSON export as a new session', body: 'SessionExport', bodyMaxBytes: BUDGET.SESSION_IMPORT_MAX_BYTES, answer: { schema: 'SessionAnswer', status: 201 } },
  },
  '/api/sessions/{id}/checkpoints': {
    get: { tag: 'checkpoints', summary: "The session's checkpoints, oldest first", answer: { described: 'CheckpointListAnswer (lib/contract/rest.ts)' }, errors: { 404: 'no such session' } },
  },
  '/api/sessions/{id}/rewind': {
    get: { tag: 'checkpoints', summary: 'What a rewind to before a user message would change', query: [{ name: 'messageId', description: 'the user message' }], answer: { described: 'RewindPreview (lib/contract/rest.ts)' }, errors: { 404: 'no such session or message' } },
    post: { tag: 'checkpoints', summary: 'Rewind the code, the conversation or both (later messages are kept as a branch)', body: 'RewindBody', answer: { described: 'RewindAnswer (lib/contract/rest.ts)' }, errors: { 409: `${busy}, or a background task runs (the body lists them; send stopTasks)` } },
  },
  '/api/sessions/{id}/branches': {
    get: { tag: 'checkpoints', summary: 'The branches rewinds kept, newest first', answer: { described: 'BranchListAnswer (lib/contract/rest.ts)' } },
  },
  '/api/sessions/{id}/branches/{branchId}': {
    get: { tag: 'checkpoints', summary: 'One branch with its messages (read-only)', answer: { described: 'BranchAnswer (lib/contract/rest.ts)' }, errors: { 404: 'no such branch' } },
  },
  '/api/sessions/{id}/changes': {
    get: { tag: 'checkpoints', summary: "Every file that differs from the session's start, with its diff", answer: { described: 'ChangesAnswer (lib/contract/rest.ts)' } },
  },
  '/api/sessions/{id}/changes/revert': {
    post: { tag: 'checkpoints', summary: "One file back to its state at the session's start", body: 'RevertBody', answer: { described: 'RevertAnswer (lib/contract/rest.ts)' } },
  },
  '/api/sessions/{id}/changes/commit': {
    post: { tag: 'checkpoints', summary: 'git_commit these paths through dispatch (the request approves it)', body: 'CommitChangesBody', answer: { described: 'CommitChangesAnswer (lib/contract/rest.ts): { ok, text }' } },
  },
  '/api/workspaces': {
    get: { tag: 'settings', summary: "The launcher's workspace and the recently opened ones with their session counts. Other routes work in the workspace the x-clamp-workspace header (or ?workspace=) names, once opened; a session's routes in that session's own", answer: { described: 'WorkspacesAnswer (lib/contract/workspace.ts)' } },
    post: { tag: 'settings', summary: 'Open another folder on this server (it must exist, be a readable folder, not / nor the data dir)', body: 'WorkspaceOpenBody', answer: { described: 'WorkspaceOpenAnswer (lib/contract/workspace.ts)' } },
  },
  '/api/settings/limits': {
    get: { tag: 'settings', summary: "The spending limits (per session and per day, tokens and US dollars) and today's spending", answer: { described: 'LimitSettingsView (lib/contract/limits.ts)' } },
    put: { tag: 'settings', summary: 'Change any spending limit (null removes one)', body: 'LimitSettingsBody', answer: { described: 'LimitSettingsView (lib/contract/limits.ts)' } },
  },
  '/api/settings/notifications': {
    get: { tag: 'settings', summary: 'Whether the page shows browser notifications (on unless turned off; the same in every browser)', answer: { described: 'NotifySettings (lib/contract/notify.ts)' } },
    put: { tag: 'settings', summary: 'Turn browser notifications on or off', body: 'NotifySettingsBody', answer: { described: 'NotifySettings (lib/contract/notify.ts)' } },
  },
  '/api/settings/worktrees': {
    get: { tag: 'settings', summary: 'Where new worktrees go and the files copied into them', answer: { described: 'WorktreeSettings (lib/contract/worktree.ts)' } },
    put: { tag: 'settings', summary: 'Change the worktree folder or the files copied', body: 'WorktreeSettingsBody', answer: { described: 'WorktreeSettings (lib/contract/worktree.ts)' } },
  },
  '/api/settings/storage': {
    get: { tag: 'settings', summary: "The data dir's size by kind (logs, spills, checkpoints, database, worktrees, other), the retention settings and the latest clean-up", answer: { described: 'StorageAnswer (lib/contract/storage.ts)' } },
    put: { tag: 'settings', summary: 'Change how long logs and spills are kept (days) and their size budget (MiB)', body: 'RetentionBody', answer: { described: 'StorageAnswer (lib/contract/storage.ts)' } },
  },
  '/api/settings/storage/cleanup': {
    post: { tag: 'settings', summary: 'Clean up now: logs and spills past the period or the budget (never one a command still writes), checkpoint repositories collected; answers what it freed', answer: { described: 'CleanupAnswer (lib/contract/storage.ts)' } },
  },
  '/api/mcp': {
    get: { tag: 'mcp', summary: 'Every configured MCP server with its status, tools and their cost (starts nothing)', answer: { described: 'McpView (lib/contract/mcp-rest.ts)' } },
    post: { tag: 'mcp', summary: "Add or replace one of the person's MCP servers (env values and headers go to the secrets file)", body: 'McpServerBody', answer: { described: 'McpView (lib/contract/mcp-rest.ts)' } },
  },
  '/api/hooks': {
    get: { tag: 'settings', summary: "The person's hooks file, whether Claude Code's user hooks run, and every hook by source with the workspace's approvals (runs nothing)", answer: { described: 'HooksView (lib/contract/hooks-rest.ts)' } },
    put: { tag: 'settings', summary: "Save the person's hooks file (checked first), turn Claude Code's user hooks on or off, or approve a workspace hook by its definition's hash", body: 'HooksBody', answer: { described: 'HooksView (lib/contract/hooks-rest.ts)' }, errors: { 400: 'the hooks file does not parse (the message says where)', 404: 'no workspace hook has that definition' } },
  },
  '/api/mcp/{name}': {
    patch: { tag: 'mcp', summary: 'Enable or disable a server, approve a workspace server, restart it, or change one tool', body: 'McpPatchBody', answer: { described: 'McpView (lib/contract/mcp-rest.ts)' }, errors: { 404: 'no such server' } },
    delete: { tag: 'mcp', summary: "Remove one of the person's servers (a file's server is removed from its file)", answer: { described: 'McpView (lib/contract/mcp-rest.ts)' }, errors: { 404: 'no such server' } },
  },
  '/api/settings/diagnostics': {
    get: { tag: 'settings', summary: 'The diagnostics settings (language servers after edits)', answer: { described: 'DiagnosticsSettingsView (lib/contract/diagnostics.ts)' } },
    put: { tag: 'settings', summary: 'Change the diagnostics settings', body: 'DiagnosticsSettingsBody', answer: { described: 'DiagnosticsSettingsView (lib/contract/diagnostics.ts)' } },
  },
  '/api/models': {
    get: { tag: 'settings', summary: "The models the header's picker offers: the default and each configured provider's list", answer: { described: 'ModelChoicesAnswer (lib/contract/rest.ts)' } },
  },
  '/api/paths': {
    get: {
      tag: 'files',
      summary: 'Completions for an @-mention, or whether a path names a workspace file',
      query: [
        { name: 'q', description: 'the text after @: completions (PathCompletionAnswer)' },
        { name: 'check', description: 'a path: whether it names a workspace file (MentionCheckAnswer)' },
      ],
      answer: { described: 'PathCompletionAnswer or MentionCheckAnswer (lib/contract/rest.ts)' },
    },
  },
  '/api/prompts': {
    get: { tag: 'status', summary: "The MCP servers' prompts (the composer's /mcp__<server>__<prompt> commands)", answer: { described: '{ prompts: McpPromptCommand[] } (lib/contract/command-text.ts)' } },
    post: { tag: 'status', summary: "The text a prompt's command sends: its arguments (positional or name=value) filled in by the server", body: 'PromptBody', answer: { described: '{ text }' } },
  },
  '/api/skills': {
    get: { tag: 'status', summary: "The workspace's and the data dir's skills (the composer's /<skill-name> commands)", answer: { described: 'SkillListAnswer (lib/contract/rest.ts): { skills: { name, description }[], commands: FileCommand[] }' } },
  },
  '/api/openapi.json': {
    get: { tag: 'status', summary: 'This document', answer: { described: 'an OpenAPI 3.1 document' } },
  },
};

/** A zod schema as the JSON Schema the document holds (the request side for bodies: what a client may send). */
export function documentedSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (name: string) => ({ 'application/json': { schema: ref(name) } });

function operationObject(path: string, method: Method, op: Operation): Record<string, unknown> {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  for (const q of op.query ?? []) params.push({ name: q.name, in: 'query', required: false, schema: { type: q.type ?? 'string' }, description: q.description } as never);
  const a = op.answer;
  const ok: Record<string, unknown> =
    'schema' in a
      ? { description: a.schema, content: jsonContent(a.schema) }
      : 'stream' in a
        ? { description: a.stream, content: { 'text/event-stream': { schema: { type: 'string' } } } }
        : { description: a.described, content: { 'application/json': { schema: { type: 'object' } } } };
  const status = String(('status' in a && a.status) || 200);
  const errors: Record<string, unknown> = {
    400: { description: 'a malformed or invalid request (the message names the field)', content: jsonContent('Error') },
    401: { description: 'no token: send the launch token (Authorization: Bearer, or the cookie)' },
    403: { description: 'a foreign Host, or a state-changing request without a same-origin Origin' },
  };
  for (const [code, why] of Object.entries(op.errors ?? {})) errors[code] = { description: why, content: jsonContent('Error') };
  return {
    operationId: `${method}${path.replace(/\/api/, '').replace(/\{(\w+)\}/g, 'By-$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: op.summary,
    tags: [op.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(op.body
      ? { requestBody: { required: true, description: `${op.bodyNote ? `${op.bodyNote}; ` : ''}at most ${op.bodyMaxBytes ?? BUDGET.API_BODY_MAX_BYTES} bytes`, content: jsonContent(op.body) } }
      : {}),
    responses: { [status]: ok, ...errors },
  };
}

/** The OpenAPI 3.1 document of Clamp's HTTP API (GET /api/openapi.json), built from the routes' schemas. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [p, ops] of Object.entries(API_ROUTES)) {
    paths[p] = {};
    for (const [m, op] of Object.entries(ops) as Array<[Method, Operation]>) paths[p][m] = operationObject(p, m, op);
  }
  const schemas: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(REQUEST_SCHEMAS)) schemas[name] = documentedSchema(s, 'input');
  for (const [name, s] of Object.entries(ANSWER_SCHEMAS)) schemas[name] = documentedSchema(s, 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Clamp',
      version: '1',
      description:
        'The HTTP API of a local Clamp server (the page uses the same routes). Every request needs the launch token: `Authorization: Bearer <CLAMP_TOKEN>`, or the `clamp_token` cookie the page gets from `?token=`. The Host must be 127.0.0.1, localhost or [::1] with the port; a POST, PUT, PATCH or DELETE must send `Origin: http://127.0.0.1:<port>` (or the Host it used), and a body with a Content-Length.',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'CLAMP_HOST and CLAMP_PORT; the launcher prints the URL' }],
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'the launch token (CLAMP_TOKEN, or the one the launcher printed)' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'clamp_token' },
      },
    },
  };
}
