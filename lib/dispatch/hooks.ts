import type { PolicyDecision, ToolContext, ToolDefinition, ToolResult } from '../contract/types';
import { traitsOf } from '../contract/types';
import type { ResolvedPath } from '../contract/paths';
import { hookServiceOf, type HookCall, type HookVerdict } from '../contract/hooks';

/**
 * Dispatch's hook point: PreToolUse before the verdict is final (its deny, ask and allow folded into it, its
 * rewritten input validated and confined like the model's), PostToolUse after the tool ran (its context and its
 * "failed" added to the result). Runs only when the call's services carry a hook service (the server's do, for
 * the page's turns, subagents, headless runs and @-mention reads).
 */

/** The verdict's hook part, if any. */
export function hookVerdictOf(d: PolicyDecision | undefined): HookVerdict | undefined {
  const h = d?.hook;
  return h && Array.isArray(h.notes) ? h : undefined;
}

/** The call as Claude Code's hooks see it: its name there, and its input with their field names beside Clamp's (paths absolute). */
export function hookCall(tool: ToolDefinition, input: unknown, paths: ReadonlyMap<string, ResolvedPath>, ctx: ToolContext): HookCall {
  const own = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const as = traitsOf(tool).hookAs;
  const hookInput: Record<string, unknown> = { ...own };
  for (const [theirs, ours] of Object.entries(as?.fields ?? {})) {
    const v = own[ours];
    if (v === undefined) continue;
    hookInput[theirs] = typeof v === 'string' && paths.has(v) ? paths.get(v)!.abs : v;
  }
  return { toolName: tool.name, hookName: as?.name ?? tool.name, hookInput, toolCallId: ctx.callId, sessionId: ctx.sessionId };
}

/** A hook's rewritten input in Clamp's field names, over the call's input (only fields the tool has). */
function rewritten(tool: ToolDefinition, input: unknown, updated: Record<string, unknown>): Record<string, unknown> {
  const own = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const fields = traitsOf(tool).hookAs?.fields ?? {};
  const mapped: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(updated)) mapped[Object.hasOwn(fields, k) ? fields[k] : k] = v;
  const shape = (tool.schema as { shape?: Record<string, unknown> }).shape;
  const out: Record<string, unknown> = { ...own };
  for (const [k, v] of Object.entries(mapped)) if (!shape || Object.hasOwn(shape, k)) out[k] = v;
  return out;
}

/**
 * Run the PreToolUse hooks of a prepared call. Returns undefined when no hook service is there; else the hook
 * verdict and, when a hook rewrote the input, the rewritten input (to prepare again). Never throws.
 */
export async function preToolHooks(tool: ToolDefinition, input: unknown, paths: ReadonlyMap<string, ResolvedPath>, ctx: ToolContext): Promise<{ decision?: 'allow' | 'ask' | 'deny'; reason?: string; verdict: HookVerdict } | undefined> {
  const hooks = hookServiceOf(ctx.services);
  if (!hooks) return undefined;
  try {
    const a = await hooks.preToolUse(hookCall(tool, input, paths, ctx), ctx.signal);
    if (!a.notes.length) return undefined;
    const verdict: HookVerdict = { notes: a.notes, ...(a.context ? { context: a.context } : {}) };
    if (a.updatedInput) verdict.updatedInput = rewritten(tool, input, a.updatedInput);
    return { decision: a.decision, reason: a.reason, verdict };
  } catch (err) {
    // the service never throws; were it to, the call asks rather than running unchecked
    const reason = `hooks could not run (${err instanceof Error ? err.message : String(err)})`;
    return { decision: 'ask', reason, verdict: { notes: [{ event: 'PreToolUse', hook: 'hooks', outcome: 'failed', reason }] } };
  }
}

/** Fold PreToolUse's decision into the policy verdict: deny wins, ask turns an allow into a question, allow answers an ask (never a block). */
export function foldHookDecision(d: PolicyDecision, hook: { decision?: 'allow' | 'ask' | 'deny'; reason?: string; verdict: HookVerdict }): PolicyDecision {
  const withHook: PolicyDecision = { ...d, hook: hook.verdict };
  const reason = hook.reason ?? 'a hook decided';
  if (hook.decision === 'deny' && d.action !== 'deny') return { ...withHook, action: 'deny', reason, ruleKey: undefined };
  if (hook.decision === 'ask' && d.action === 'allow') return { ...withHook, action: 'ask', reason, ruleKey: undefined };
  if (hook.decision === 'ask' && d.action === 'ask') return { ...withHook, reason: `${d.reason}; ${reason}` };
  if (hook.decision === 'allow' && d.action === 'ask' && d.tier !== 1) return { ...withHook, action: 'allow', reason: `${reason} (${d.reason})` };
  return withHook;
}

/**
 * After the tool ran: PostToolUse hooks (on a result that is not an error), then every hook's note in the result's
 * meta (the card shows them) and their context in the text the model reads. Never throws.
 */
export async function postToolHooks(r: ToolResult, tool: ToolDefinition, input: unknown, paths: ReadonlyMap<string, ResolvedPath>, ctx: ToolContext, pre: HookVerdict | undefined): Promise<ToolResult> {
  const notes = [...(pre?.notes ?? [])];
  let out = r;
  if (pre?.context) out = { ...out, output: `${out.output}\n\n[Context from a PreToolUse hook]\n${pre.context}` };
  const hooks = hookServiceOf(ctx.services);
  if (hooks && r.status === 'ok') {
    try {
      const a = await hooks.postToolUse(hookCall(tool, input, paths, ctx), r, ctx.signal);
      notes.push(...a.notes);
      if (a.context) out = { ...out, output: `${out.output}\n\n[Context from a PostToolUse hook]\n${a.context}` };
      if (a.failed) out = { ...out, status: 'error', output: `${out.output}\n\nA PostToolUse hook marked this result failed:\n${a.failed}` };
    } catch {
      // the service never throws
    }
  }
  return notes.length ? { ...out, meta: { ...out.meta, hooks: notes } } : out;
}
