import path from 'node:path';
import { budgetTable, type Budget } from '../contract/budget';
import type { HookCall, HookEvent, HookNote, HookService } from '../contract/hooks';
import type { ToolResult } from '../contract/types';
import { clampResult } from '../contract/clamp';
import { byteLength, headBytes } from '../contract/text';
import { parseSandboxLevel, sandboxStatus, type SandboxSpec } from '../exec/sandbox';
import type { Db } from '../store/db';
import { getSandboxSettings } from '../store/settings';
import { matcherSelects, type HookEntry } from './config';
import { readHookSources } from './sources';
import { runHook, type HookRunOptions } from './run';
import { plainNotes, postToolAnswer, preToolAnswer, promptAnswer, stopAnswer, type Ran } from './answers';

export interface HookServiceOptions {
  db: Db;
  workspace: string;
  dataDir: string;
  /** the workspace whose approvals count (a worktree's repository); default: workspace */
  home?: string;
  budget?: Budget;
  env?: NodeJS.ProcessEnv;
}

/**
 * Where a workspace's hook runs: in the sandbox (workspace-write, or read-only when the sandbox's level is; the
 * network only when the sandbox's setting allows it), unconfined only when the sandbox is turned off; when the
 * sandbox cannot start it does not run (undefined with the reason).
 */
function workspaceSandbox(o: HookServiceOptions): { spec?: SandboxSpec; problem?: string } {
  const env = o.env ?? process.env;
  const settings = getSandboxSettings(o.db);
  let level: string | undefined;
  try {
    level = parseSandboxLevel(env.CLAMP_SANDBOX) ?? settings.level;
  } catch {
    level = 'by-mode';
  }
  if (level === 'off') return {};
  const st = sandboxStatus(env);
  if (!st.available) return { problem: `it is the workspace's hook, which runs only inside the sandbox, and ${st.problem}` };
  const netEnv = env.CLAMP_SANDBOX_NETWORK;
  const network = netEnv !== undefined && netEnv !== '' ? netEnv === '1' || netEnv === 'true' : settings.network === true;
  return {
    spec: { level: level === 'read-only' ? 'read-only' : 'workspace-write', workspace: o.workspace, dataDir: o.dataDir, scratchDir: path.join(o.dataDir, 'scratch'), network },
  };
}

/** Run an event's matching active hooks at once (the person's on the host, an approved workspace's in the sandbox) with Claude Code's JSON on stdin. */
async function fireHooks(o: HookServiceOptions, budget: Budget, f: { event: HookEvent; sessionId: string | undefined; extra: Record<string, unknown>; signal: AbortSignal; names?: readonly string[] }): Promise<Ran[]> {
  let entries: HookEntry[];
  try {
    entries = readHookSources(o.db, o.workspace, o.dataDir, o.env, o.home).active.filter((e) => e.event === f.event && (!f.names || matcherSelects(e.matcher, f.names)));
  } catch {
    return [];
  }
  if (!entries.length) return [];
  const input = { session_id: f.sessionId ?? null, transcript_path: null, cwd: o.workspace, hook_event_name: f.event, ...f.extra };
  const base: Omit<HookRunOptions, 'sandbox'> = { workspace: o.workspace, dataDir: o.dataDir, budget, signal: f.signal };
  return Promise.all(
    entries.map(async (entry): Promise<Ran> => {
      if (entry.source !== 'workspace') return { entry, run: await runHook(entry, input, base) };
      const box = workspaceSandbox(o);
      if (box.problem) return { entry, run: { kind: 'failed', why: box.problem } };
      return { entry, run: await runHook(entry, input, { ...base, sandbox: box.spec }) };
    }),
  );
}

/**
 * The hooks of one workspace as a HookService: each event reads the hook files afresh (an edit counts at once),
 * runs the matching active hooks at once (the person's on the host, an approved workspace's in the sandbox) with
 * Claude Code's JSON on stdin, and reads their answers. Never throws.
 */
export function createHookService(o: HookServiceOptions): HookService {
  const budget = o.budget ?? budgetTable();
  const clip = (s: string) => (byteLength(s) <= budget.HOOK_REASON_MAX_BYTES ? s : `${headBytes(s, budget.HOOK_REASON_MAX_BYTES - 3)}…`);
  // the text the model reads: cut with the exit clamp's note, the whole text spilled
  const forModel = (s: string | undefined, label: string) =>
    s === undefined ? undefined : clampResult({ status: 'ok', output: s, truncation: null }, budget.HOOK_OUTPUT_MAX_BYTES, o.dataDir, label).output;

  const fire = (event: HookEvent, sessionId: string | undefined, extra: Record<string, unknown>, signal: AbortSignal, names?: readonly string[]) => fireHooks(o, budget, { event, sessionId, extra, signal, names });

  const toolFields = (c: HookCall) => ({ tool_name: c.hookName, tool_input: c.hookInput, tool_use_id: c.toolCallId ?? null, clamp_tool_name: c.toolName });
  const never = () => new AbortController().signal;

  return {
    async preToolUse(c, signal) {
      const a = preToolAnswer(await fire('PreToolUse', c.sessionId, toolFields(c), signal, [c.toolName, c.hookName]), clip);
      return { ...a, reason: a.reason && forModel(a.reason, 'hook-reason'), context: forModel(a.context, 'hook-context') };
    },
    async postToolUse(c, result: ToolResult, signal) {
      const response = { status: result.status, output: result.output, ...(result.meta ? { meta: result.meta } : {}) };
      const a = postToolAnswer(await fire('PostToolUse', c.sessionId, { ...toolFields(c), tool_response: response }, signal, [c.toolName, c.hookName]), clip);
      return { ...a, failed: forModel(a.failed, 'hook-reason'), context: forModel(a.context, 'hook-context') };
    },
    async userPromptSubmit(sessionId, prompt, signal) {
      const a = promptAnswer('UserPromptSubmit', await fire('UserPromptSubmit', sessionId, { prompt }, signal), clip);
      return { ...a, block: a.block && clip(a.block), context: forModel(a.context, 'hook-context') };
    },
    async sessionStart(sessionId, source) {
      const a = promptAnswer('SessionStart', await fire('SessionStart', sessionId, { source }, never()), clip);
      return { ...a, context: forModel(a.context, 'hook-context') };
    },
    async stop(sessionId, active, signal) {
      const a = stopAnswer(await fire('Stop', sessionId, { stop_hook_active: active }, signal), clip);
      return { ...a, continueWith: forModel(a.continueWith, 'hook-reason') };
    },
    async subagentStop(sessionId, child, active, signal) {
      const a = stopAnswer(await fire('SubagentStop', sessionId, { stop_hook_active: active, agent_session_id: child.sessionId, agent_type: child.type }, signal), clip, 'SubagentStop');
      return { ...a, continueWith: forModel(a.continueWith, 'hook-reason') };
    },
    async sessionEnd(sessionId, reason): Promise<HookNote[]> {
      // Claude Code's reasons are clear, logout, prompt_input_exit and other: Clamp's are "other", named in clamp_reason
      return plainNotes('SessionEnd', await fire('SessionEnd', sessionId, { reason: 'other', clamp_reason: reason }, never()), clip);
    },
    async preCompact(sessionId, trigger, instructions): Promise<HookNote[]> {
      return plainNotes('PreCompact', await fire('PreCompact', sessionId, { trigger, custom_instructions: instructions ?? '' }, never()), clip);
    },
    notification(sessionId, message) {
      void fire('Notification', sessionId, { message, notification_type: 'permission_prompt' }, never()).catch(() => {});
    },
  };
}
