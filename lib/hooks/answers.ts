import type { HookEvent, HookNote, PostToolAnswer, PreToolAnswer, PromptAnswer, StopAnswer } from '../contract/hooks';
import { hookNoteLine } from '../contract/hooks';
import type { HookEntry } from './config';
import type { HookRun } from './run';

/**
 * What the runs of an event's hooks mean, read as Claude Code documents them: exit code 2 blocks with stderr; on
 * exit code 0 a JSON stdout answers (`decision`/`reason`, `continue`/`stopReason`, `hookSpecificOutput` with
 * `permissionDecision`, `permissionDecisionReason`, `updatedInput`, `additionalContext`); a crash or a timeout
 * does what the hook's `onFailure` says (default: PreToolUse asks the person; other events go on). Pure.
 */

export interface Ran {
  entry: HookEntry;
  run: HookRun;
}

/** Cut a reason for a note (the card, a notice). */
export type Clip = (s: string) => string;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function specific(json: Record<string, unknown> | undefined): Record<string, unknown> {
  const s = json?.hookSpecificOutput;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

function note(event: HookEvent, e: HookEntry, outcome: HookNote['outcome'], clip: Clip, reason?: string): HookNote {
  return { event, hook: e.name, outcome, ...(reason ? { reason: clip(reason) } : {}) };
}

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** One PreToolUse run's decision, reason, rewrite and context. */
function preOne(r: Ran): { decision?: 'allow' | 'ask' | 'deny'; reason?: string; updatedInput?: Record<string, unknown>; context?: string } {
  const { run, entry } = r;
  if (run.kind === 'block') return { decision: 'deny', reason: run.stderr };
  if (run.kind === 'failed') {
    const f = entry.onFailure ?? 'ask';
    const why = `the hook failed: ${run.why}`;
    return f === 'ask' ? { decision: 'ask', reason: why } : f === 'block' ? { decision: 'deny', reason: why } : { reason: why };
  }
  const j = run.json;
  const s = specific(j);
  const pd = s.permissionDecision ?? (j?.decision === 'approve' ? 'allow' : j?.decision === 'block' ? 'deny' : undefined);
  let decision: 'allow' | 'ask' | 'deny' | undefined = pd === 'allow' || pd === 'deny' || pd === 'ask' ? pd : undefined;
  let reason = str(s.permissionDecisionReason) ?? str(j?.reason);
  if (j?.continue === false) {
    decision = 'deny';
    reason = str(j.stopReason) ?? reason ?? 'the hook said not to continue';
  }
  const ui = s.updatedInput ?? j?.updatedInput;
  const updatedInput = ui && typeof ui === 'object' && !Array.isArray(ui) ? (ui as Record<string, unknown>) : undefined;
  return { decision, reason, updatedInput, context: str(s.additionalContext) };
}

const PRE_OUTCOME = { allow: 'allowed', ask: 'asked', deny: 'denied' } as const;

/** PreToolUse: the strongest decision (deny > ask > allow), named after its hook; rewrites merged in order; contexts joined. */
export function preToolAnswer(runs: readonly Ran[], clip: Clip): PreToolAnswer {
  const out: PreToolAnswer = { notes: [] };
  const contexts: string[] = [];
  for (const r of runs) {
    const one = preOne(r);
    if (one.decision && (!out.decision || RANK[one.decision] > RANK[out.decision])) {
      out.decision = one.decision;
      const n = note('PreToolUse', r.entry, PRE_OUTCOME[one.decision], clip, one.reason);
      out.reason = hookNoteLine(n);
    }
    if (one.updatedInput) out.updatedInput = { ...out.updatedInput, ...one.updatedInput };
    if (one.context) contexts.push(one.context);
    out.notes.push(
      r.run.kind === 'failed'
        ? note('PreToolUse', r.entry, 'failed', clip, one.reason?.replace(/^the hook failed: /, ''))
        : note('PreToolUse', r.entry, one.decision ? PRE_OUTCOME[one.decision] : one.updatedInput ? 'rewrote' : 'ran', clip, one.reason),
    );
    if (one.updatedInput && one.decision) out.notes.push(note('PreToolUse', r.entry, 'rewrote', clip));
  }
  if (contexts.length) out.context = contexts.join('\n');
  return out;
}

/** PostToolUse: a block (exit 2, decision "block", or a failure set to block) marks the result failed; contexts join. */
export function postToolAnswer(runs: readonly Ran[], clip: Clip): PostToolAnswer {
  const out: PostToolAnswer = { notes: [] };
  const contexts: string[] = [];
  const failed: string[] = [];
  for (const { entry, run } of runs) {
    if (run.kind === 'block') {
      failed.push(`${entry.name}: ${run.stderr}`);
      out.notes.push(note('PostToolUse', entry, 'failed-result', clip, run.stderr));
    } else if (run.kind === 'failed') {
      if (entry.onFailure === 'block') failed.push(`${entry.name} failed: ${run.why}`);
      out.notes.push(note('PostToolUse', entry, 'failed', clip, run.why));
    } else {
      const ctx = str(specific(run.json).additionalContext);
      if (run.json?.decision === 'block') {
        const why = str(run.json.reason) ?? 'no reason given';
        failed.push(`${entry.name}: ${why}`);
        out.notes.push(note('PostToolUse', entry, 'failed-result', clip, why));
      } else out.notes.push(note('PostToolUse', entry, ctx ? 'context' : 'ran', clip));
      if (ctx) contexts.push(ctx);
    }
  }
  if (contexts.length) out.context = contexts.join('\n');
  if (failed.length) out.failed = failed.join('\n');
  return out;
}

/** UserPromptSubmit and SessionStart: a block (the prompt only) or context (additionalContext, else plain stdout). */
export function promptAnswer(event: 'UserPromptSubmit' | 'SessionStart', runs: readonly Ran[], clip: Clip): PromptAnswer {
  const out: PromptAnswer = { notes: [] };
  const contexts: string[] = [];
  const blocks: string[] = [];
  const canBlock = event === 'UserPromptSubmit';
  for (const { entry, run } of runs) {
    if (run.kind === 'failed') {
      if (canBlock && entry.onFailure === 'block') blocks.push(`hook ${entry.name} failed: ${run.why}`);
      out.notes.push(note(event, entry, 'failed', clip, run.why));
      continue;
    }
    const j = run.kind === 'ok' ? run.json : undefined;
    const block = run.kind === 'block' ? run.stderr : j?.decision === 'block' ? (str(j.reason) ?? 'no reason given') : j?.continue === false ? (str(j.stopReason) ?? 'no reason given') : undefined;
    if (canBlock && block) {
      blocks.push(`blocked by hook ${entry.name}: ${block}`);
      out.notes.push(note(event, entry, 'blocked', clip, block));
      continue;
    }
    const ctx = run.kind === 'ok' ? (str(specific(j).additionalContext) ?? (j ? undefined : str(run.stdout))) : undefined;
    if (ctx) contexts.push(ctx);
    out.notes.push(note(event, entry, ctx ? 'context' : 'ran', clip));
  }
  if (blocks.length) out.block = blocks.join('\n');
  if (contexts.length) out.context = contexts.join('\n');
  return out;
}

/** Stop: a hook that blocks (exit 2, or decision "block" with a reason) makes the turn go on with its reason. */
export function stopAnswer(runs: readonly Ran[], clip: Clip, event: 'Stop' | 'SubagentStop' = 'Stop'): StopAnswer {
  const out: StopAnswer = { notes: [] };
  const reasons: string[] = [];
  for (const { entry, run } of runs) {
    if (run.kind === 'failed') {
      out.notes.push(note(event, entry, 'failed', clip, run.why));
      continue;
    }
    const j = run.kind === 'ok' ? run.json : undefined;
    const why = run.kind === 'block' ? run.stderr : j?.decision === 'block' ? (str(j.reason) ?? 'no reason given') : undefined;
    if (why) reasons.push(`${entry.name}: ${why}`);
    out.notes.push(note(event, entry, why ? 'continued' : 'ran', clip, why));
  }
  if (reasons.length) out.continueWith = reasons.join('\n');
  return out;
}

/**
 * Events whose answer is only what ran (PreCompact, SessionEnd, Notification): nothing is blocked; what a hook printed
 * (stdout, or exit 2's stderr) is kept in its note for the person, as Claude Code shows it to the user only.
 */
export function plainNotes(event: HookEvent, runs: readonly Ran[], clip: Clip): HookNote[] {
  return runs.map(({ entry, run }) =>
    run.kind === 'failed' ? note(event, entry, 'failed', clip, run.why) : note(event, entry, 'ran', clip, run.kind === 'block' ? run.stderr : run.stdout.trim() || undefined),
  );
}
