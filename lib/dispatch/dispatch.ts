import type { PolicyDecision, ToolContext, ToolDefinition, ToolResult } from '../contract/types';
import { annotate, contentAttr, inSpan } from '../contract/trace';
import { ToolError } from '../contract/types';
import type { Registry } from './registry';
import { lookupTool } from './registry';
import { formatZodIssues, describeThrown } from '../contract/errors';
import { clampResult } from '../contract/clamp';
import { outputRoots, resolveInWorkspace, PathPolicyError } from '../policy/workspace';
import type { ResolvedPath } from '../contract/paths';
import { combineDecisions, modeDecision, modeAllowsEffect } from '../policy/modes';
import { filesBefore, warmFor, withDiagnostics } from './diagnose';
import { withLateNotes } from './late-diagnostics';
import { foldHookDecision, hookVerdictOf, postToolHooks, preToolHooks } from './hooks';

/** A rule's verdict: its action, or its action and which rule it is ("the rule Bash(git push:*) in …/settings.json"). */
export type RuleAnswer = 'allow' | 'deny' | 'ask' | { action: 'allow' | 'deny' | 'ask'; by: string } | undefined;

/** How a host answers "may this call run?" beyond the mode and the tool's own policy. */
export interface Approver {
  /** a saved or session rule's verdict for this decision, if any (checked deny → ask → allow); paths: the call's, confined */
  rule?: (tool: ToolDefinition, input: unknown, decision: PolicyDecision, paths?: ReadonlyMap<string, ResolvedPath>) => RuleAnswer;
  /** true when a person has approved this very call */
  approved?: boolean;
}

export interface DispatchOptions {
  approver?: Approver;
  /**
   * The verdict already made for this very call (when it asked for approval, or just before the loop
   * ran it): used as it is, never recomputed. Policy is decided once per call.
   */
  verdict?: PolicyDecision;
  /**
   * The person edited the command before approving it: the edited command runs instead. It is another
   * call, so it is judged afresh (a recorded verdict does not apply to it; a catastrophic edit is still
   * blocked), and its result starts with a note telling the model what ran.
   */
  editedCommand?: string;
}

/** The verdict for a validated call, before it runs (the loop uses it to ask for approval). */
export interface Verdict {
  decision: PolicyDecision;
  tool: ToolDefinition;
  input: unknown;
  /** the call's path arguments, resolved and confined (the tool reads them from ctx.paths) */
  paths: ReadonlyMap<string, ResolvedPath>;
}

function result(status: ToolResult['status'], output: string, extra: Partial<ToolResult> = {}): ToolResult {
  return { status, output, truncation: null, ...extra };
}

/** Empty-string guards: named fields that must hold something (checked before any I/O). */
function emptyFieldError(tool: ToolDefinition, input: unknown): string | undefined {
  if (!tool.nonEmpty || typeof input !== 'object' || input === null) return undefined;
  for (const field of tool.nonEmpty) {
    const v = (input as Record<string, unknown>)[field];
    if (typeof v === 'string' && v.trim() === '') {
      return `Invalid arguments for ${tool.name}:\n- \`${field}\`: must not be empty.\nPass a non-empty ${field} and call ${tool.name} again.`;
    }
  }
  return undefined;
}

type Prepared =
  | { ok: true; tool: ToolDefinition; input: unknown; paths: ReadonlyMap<string, ResolvedPath> }
  | { ok: false; result: ToolResult };

/** Look-up, validation, empty guards and path confinement (each path resolved once): everything before policy, no I/O but realpath. */
export function prepareCall(reg: Registry, name: string, args: unknown, ctx: ToolContext): Prepared {
  const tool = lookupTool(reg, name);
  if (!tool) {
    const names = Object.keys(reg).filter((n) => modeAllowsEffect(ctx.mode, reg[n].effect));
    return { ok: false, result: result('error', `Unknown tool \`${String(name)}\`. Available: ${names.join(', ')}.`) };
  }
  if (!modeAllowsEffect(ctx.mode, tool.effect)) {
    const d = modeDecision(ctx.mode, tool.effect);
    return { ok: false, result: result('denied', denialText(tool.name, { by: 'mode', decision: d }), { meta: { policy: d } }) };
  }
  let raw = args;
  if (typeof raw === 'string') {
    try {
      raw = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, result: result('error', `Invalid arguments for ${tool.name}: they are not valid JSON. Send a JSON object matching the tool's schema.`) };
    }
  }
  if (raw === undefined || raw === null) raw = {};
  const parsed = tool.schema.safeParse(raw);
  if (!parsed.success) return { ok: false, result: result('error', formatZodIssues(tool.name, parsed.error, raw)) };
  const empty = emptyFieldError(tool, parsed.data);
  if (empty) return { ok: false, result: result('error', empty) };
  const paths = new Map<string, ResolvedPath>();
  if (tool.paths) {
    try {
      const declared = tool.paths(parsed.data);
      // one argument named twice (a patch that moves a file where it adds one) is confined for writing
      const writes = new Set(declared.filter((p) => p.access === 'write').map((p) => p.path));
      for (const p of declared) {
        const access = writes.has(p.path) ? 'write' : p.access;
        paths.set(p.path, resolveInWorkspace(ctx.workspace, p.path, access, outputRoots(ctx.dataDir)));
      }
    } catch (err) {
      if (err instanceof PathPolicyError || err instanceof ToolError) {
        return { ok: false, result: result('denied', err.message, { meta: { policy: { action: 'deny', reason: err.message } } }) };
      }
      return { ok: false, result: result('error', describeThrown(tool.name, err)) };
    }
  }
  return { ok: true, tool, input: parsed.data, paths };
}

/** The policy verdict for a prepared call: mode, tool policy (command safety), then rules. */
export async function decide(tool: ToolDefinition, input: unknown, ctx: ToolContext, approver?: Approver): Promise<PolicyDecision> {
  const byMode = modeDecision(ctx.mode, tool.effect);
  let byTool: PolicyDecision | undefined;
  if (tool.policy && byMode.action !== 'deny') {
    try {
      byTool = await tool.policy(input as never, ctx);
    } catch (err) {
      // fail closed: a policy that cannot judge asks (or denies in auto mode)
      byTool = { action: 'ask', reason: `could not be judged (${err instanceof Error ? err.message : String(err)})`, opaque: true };
    }
  }
  let d = combineDecisions(ctx.mode, byMode, byTool);
  if (d.tier === 1) return d;
  const answer = approver?.rule?.(tool, input, d, ctx.paths);
  const rule = typeof answer === 'object' ? answer.action : answer;
  const by = typeof answer === 'object' ? answer.by : 'a saved rule';
  if (rule === 'deny') d = { ...d, action: 'deny', reason: `${by} denies it (${d.reason})` };
  else if (rule === 'ask' && d.action === 'allow') d = { ...d, action: 'ask', ...(typeof answer === 'object' ? { reason: `${by} asks for it (${d.reason})` } : {}) };
  else if (rule === 'allow' && d.action !== 'deny' && !d.opaque) d = { ...d, action: 'allow', reason: `allowed by ${by} (${d.reason})` };
  else if (rule === 'allow' && d.action === 'deny' && ctx.mode === 'auto' && d.tier === 2) d = { ...d, action: 'allow', reason: `allowed by ${by} (${d.reason})` };
  return d;
}

/**
 * Judge a call without running it: the prepared call and its policy verdict, or the result that
 * ends it early (unknown tool, invalid input, a path outside the workspace). Never throws.
 */
export async function judge(
  reg: Registry,
  name: string,
  args: unknown,
  ctx: ToolContext,
  approver?: Approver,
): Promise<({ ok: true } & Verdict) | { ok: false; result: ToolResult }> {
  try {
    const prep = prepareCall(reg, name, args, ctx);
    if (!prep.ok) return prep;
    return await decideWithHooks(reg, name, prep, ctx, approver);
  } catch (err) {
    return { ok: false, result: result('error', describeThrown(String(name), err)) };
  }
}

/**
 * A prepared call's verdict with its PreToolUse hooks: a hook's rewritten input is prepared again (validated and
 * confined like the model's) and judged, and the hooks' decision folded into the policy's.
 */
async function decideWithHooks(reg: Registry, name: string, prep: Extract<Prepared, { ok: true }>, ctx: ToolContext, approver?: Approver): Promise<({ ok: true } & Verdict) | { ok: false; result: ToolResult }> {
  const hook = await preToolHooks(prep.tool, prep.input, prep.paths, { ...ctx, paths: prep.paths });
  let p = prep;
  if (hook?.verdict.updatedInput) {
    const again = prepareCall(reg, name, hook.verdict.updatedInput, ctx);
    if (!again.ok) return { ok: false, result: { ...again.result, output: `A PreToolUse hook rewrote the input of this call, and the rewrite cannot run: ${again.result.output}`, meta: { hooks: hook.verdict.notes } } };
    p = again;
  }
  const d = await decide(p.tool, p.input, { ...ctx, paths: p.paths }, approver);
  return { ok: true, tool: p.tool, input: p.input, paths: p.paths, decision: hook ? foldHookDecision(d, hook) : d };
}

/** Who refused a call: the mode, a policy (command safety, a saved rule), or the person. */
export type Refusal = { by: 'mode' | 'policy'; decision: PolicyDecision } | { by: 'user'; reason?: string | null };

/**
 * The one text the model reads when a call is refused, whoever refused it. dispatch uses it for the
 * mode and policy; the loop uses it for a person's denial (the SDK's denied approval carries it).
 */
export function denialText(toolName: string, r: Refusal): string {
  if (r.by === 'user') {
    const why = r.reason && r.reason.trim() ? r.reason.trim() : 'no reason given';
    return `The user denied this call: ${why}. Do not retry it; ask the user what to do instead.`;
  }
  const d = r.decision;
  if (r.by === 'mode') return `${toolName} is not available: ${d.reason}. Do not retry it; use the read-only tools, or ask the user to switch modes.`;
  if (d.tier === 1) {
    return `Blocked by Clamp's safety policy: ${d.reason}. This is never allowed. Do not retry it or work around it; if it is really needed, ask the user to run it themselves.`;
  }
  return `${toolName} was refused: ${d.reason}. Do not retry it; ask the user what to do instead.`;
}

/** The note an edited command's result starts with: what ran, and what the model had proposed. */
export function editedCommandNote(edited: string, proposed: string | undefined): string {
  return `The user edited the command before approving it. What ran: ${edited}\n(You proposed: ${proposed ?? '(no command)'})\n\n`;
}

/**
 * Run a prepared, allowed call. Never throws: failures come back as results (not yet clamped:
 * dispatch clamps once, after every note is added).
 */
async function execute(tool: ToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  if (ctx.signal.aborted) return result('error', `${tool.name} was not run: the turn was stopped by the user.`);
  let r: ToolResult;
  const changing = filesBefore(tool, input, ctx);
  warmFor(tool, input, ctx);
  try {
    const out = await tool.run(input as never, ctx);
    r = {
      status: out.status ?? 'ok',
      output: out.output,
      truncation: out.truncation ?? null,
      ...(out.hint ? { hint: out.hint } : {}),
      ...(out.meta ? { meta: out.meta } : {}),
    };
  } catch (err) {
    if (err instanceof ToolError) {
      r = result('error', err.message, { ...(err.hint ? { hint: err.hint } : {}), ...(err.meta ? { meta: err.meta } : {}) });
    } else if (err instanceof PathPolicyError) {
      r = result('denied', err.message);
    } else if (ctx.signal.aborted) {
      r = result('error', `${tool.name} was stopped by the user before it finished.`);
    } else {
      r = result('error', describeThrown(tool.name, err));
    }
  }
  if (typeof r.output !== 'string') r = { ...r, output: String(r.output ?? '') };
  return withDiagnostics(r, changing, tool, ctx);
}

/** The call as it runs: the model's arguments, or the person's edited command in their place. */
function withEdit(args: unknown, editedCommand: string | undefined): { args: unknown; proposed?: string } {
  if (editedCommand === undefined) return { args };
  // only a call that asked can be edited, and only a call with valid arguments asks: args is an object
  const obj = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  return { args: { ...obj, command: editedCommand }, proposed: typeof obj.command === 'string' ? obj.command : undefined };
}

/** Look-up, validate, guard, confine, policy and execute, before the one exit clamp. */
async function run(reg: Registry, name: string, args: unknown, ctx: ToolContext, opts: DispatchOptions): Promise<ToolResult> {
  const call = await verdictFor(reg, name, args, ctx, opts);
  if (!call.ok) return call.result;
  const { tool, input, decision: d } = call;
  const hooks = hookVerdictOf(d)?.notes;
  if (d.action === 'deny') return result('denied', denialText(tool.name, { by: 'policy', decision: d }), { meta: { policy: d, ...(hooks ? { hooks } : {}) } });
  if (d.action === 'ask' && !opts.approver?.approved) {
    return result('approval-required', `${tool.name} needs the user's approval: ${d.reason}.`, { meta: { policy: d, ...(hooks ? { hooks } : {}) } });
  }
  const prepared = { ...ctx, paths: call.paths, verdict: d };
  return postToolHooks(await execute(tool, input, prepared), tool, input, call.paths, prepared, hookVerdictOf(d));
}

/** The call and its verdict: the one recorded for it (with the input a hook rewrote then), else judged now with its hooks. */
async function verdictFor(reg: Registry, name: string, args: unknown, ctx: ToolContext, opts: DispatchOptions): Promise<({ ok: true } & Verdict) | { ok: false; result: ToolResult }> {
  const prep = prepareCall(reg, name, args, ctx);
  if (!prep.ok) return prep;
  if (!opts.verdict || opts.editedCommand !== undefined) return decideWithHooks(reg, name, prep, ctx, opts.approver);
  const rewrite = hookVerdictOf(opts.verdict)?.updatedInput;
  const p = rewrite ? prepareCall(reg, name, rewrite, ctx) : prep;
  if (!p.ok) return p;
  return { ok: true, tool: p.tool, input: p.input, paths: p.paths, decision: opts.verdict };
}

/**
 * The one way from a caller to a tool: look-up, validate, guard, confine, policy, execute, notes,
 * then the one exit clamp (errors and refusals included), so no result exceeds the cap.
 * A call that needs a person and has no approval comes back as status "approval-required".
 * Never throws.
 */
export async function dispatch(reg: Registry, name: string, args: unknown, ctx: ToolContext, opts: DispatchOptions = {}): Promise<ToolResult> {
  const tool = lookupTool(reg, name);
  return inSpan(
    `execute_tool ${tool?.name ?? String(name)}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool?.name ?? String(name),
      'gen_ai.tool.call.id': ctx.callId,
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': ctx.sessionId,
      'clamp.tool.side_effect': tool?.effect,
      'clamp.mode': ctx.mode,
      'gen_ai.tool.call.arguments': contentAttr(() => safeJson(args)),
    },
    async (span) => {
      const r = await dispatchUntraced(reg, name, args, ctx, opts);
      annotate(span, {
        'clamp.tool.status': r.status,
        'clamp.tool.output_bytes': Buffer.byteLength(r.output),
        'clamp.tool.truncated_by': r.truncation?.by,
        'clamp.tool.spilled': r.truncation?.spillPath !== undefined,
        'gen_ai.tool.call.result': contentAttr(r.output),
      });
      return r;
    },
  );
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}

async function dispatchUntraced(reg: Registry, name: string, args: unknown, ctx: ToolContext, opts: DispatchOptions): Promise<ToolResult> {
  const edit = withEdit(args, opts.editedCommand);
  let r: ToolResult;
  try {
    r = await run(reg, name, edit.args, ctx, opts);
  } catch (err) {
    r = result('error', describeThrown(String(name), err));
  }
  if (opts.editedCommand !== undefined) {
    r = {
      ...r,
      output: editedCommandNote(opts.editedCommand, edit.proposed) + r.output,
      meta: { ...r.meta, editedCommand: opts.editedCommand, proposedCommand: edit.proposed },
    };
  }
  // diagnostics of the session's earlier changes that arrived since: the model reads them with this result
  r = withLateNotes(r, ctx);
  return clampResult(r, ctx.budget.TOOL_OUTPUT_MAX_BYTES, ctx.dataDir, lookupTool(reg, name)?.name ?? 'unknown-tool');
}
