import type { Budget } from '../../contract/budget';
import type { PrunedItem } from '../../contract/protocol';
import { spillText } from '../../contract/spill';
import { byteLength, formatCount, headBytes } from '../../contract/text';
import { traitsOf } from '../../contract/types';
import { lookupTool, type Registry } from '../../dispatch/registry';
import { resultText } from './estimate';
import { callInputs, toolResults, type View } from './view';

const STUB_WHAT_MAX_BYTES = 160;

/** In a few words, what a call asked for: `src/app.ts lines 1–400`, the command, the pattern. */
export function describeCall(toolName: string, input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  let what: string;
  if (typeof i.command === 'string') what = i.command;
  else if (typeof i.path === 'string') {
    const offset = typeof i.offset === 'number' ? i.offset : undefined;
    const limit = typeof i.limit === 'number' ? i.limit : undefined;
    const lines = offset !== undefined || limit !== undefined ? ` lines ${offset ?? 1}–${limit !== undefined ? (offset ?? 1) + limit - 1 : 'end'}` : '';
    what = `${i.path}${typeof i.pattern === 'string' ? ` ${JSON.stringify(i.pattern)}` : ''}${lines}`;
  } else if (typeof i.pattern === 'string') what = JSON.stringify(i.pattern);
  else if (typeof i.url === 'string') what = i.url;
  else if (typeof i.query === 'string') what = JSON.stringify(i.query);
  else what = JSON.stringify(input ?? {});
  what = what.replace(/\s+/g, ' ').trim();
  return `${toolName}${what ? ` ${headBytes(what, STUB_WHAT_MAX_BYTES)}${byteLength(what) > STUB_WHAT_MAX_BYTES ? '…' : ''}` : ''}`;
}

/** The one line the model is sent instead of a pruned result: what was there, its size, and where the full text is. */
export function stubText(what: string, step: number, bytes: number, spillPath: string | undefined): string {
  const where = spillPath ? `full output at ${spillPath} — read it with read_file (offset/limit) if you need it` : 'the full output could not be saved; run the call again if you need it';
  return `[${what}, step ${step}: ${formatCount(bytes)} bytes elided to save context; ${where}]`;
}

export interface PruneOptions {
  /** the step whose results the model has not seen yet (never pruned) */
  latestStep: number;
  /** results of steps after latestStep - keepSteps are kept */
  keepSteps: number;
  budget: Budget;
  dataDir: string;
  /** where a result's full text already lies (its own truncation's spill file), by call id */
  spillPaths: ReadonlyMap<string, string>;
  /** the full text of a result as stored (before this turn's cuts), by call id, when known */
  fullText: (toolCallId: string) => string | undefined;
  /** the turn's tools, whose traits say which results are never pruned */
  registry: Registry;
}

/** Whether a tool's traits let its results be pruned (a tool the registry does not know: yes). */
function prunable(reg: Registry, toolName: string): boolean {
  const tool = lookupTool(reg, toolName);
  return !tool || traitsOf(tool).prune !== 'never';
}

/**
 * Choose the results to prune in a view: those of steps at or before latestStep - keepSteps that are
 * larger than CONTEXT_PRUNE_MIN_RESULT_BYTES and whose tool's traits do not say 'never', oldest first. Each gets a stub and,
 * when its full text has no file yet, a spill file. Returns only new items; the caller adds them to
 * the pruned set, which never shrinks.
 */
export function choosePrunes(view: View, pruned: ReadonlyMap<string, PrunedItem>, o: PruneOptions): PrunedItem[] {
  const inputs = callInputs(view.messages);
  const out: PrunedItem[] = [];
  const last = Math.min(o.latestStep - 1, o.latestStep - o.keepSteps);
  for (const { part, step } of toolResults(view.messages, view.steps)) {
    if (step > last || step < 1 || pruned.has(part.toolCallId) || !prunable(o.registry, part.toolName)) continue;
    const shown = resultText(part.output);
    const full = o.fullText(part.toolCallId) ?? shown;
    const bytes = byteLength(full);
    if (byteLength(shown) < o.budget.CONTEXT_PRUNE_MIN_RESULT_BYTES) continue;
    const spillPath = o.spillPaths.get(part.toolCallId) ?? spillText(o.dataDir, full, `pruned-${part.toolName}`);
    out.push({
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      bytes,
      stub: stubText(describeCall(part.toolName, inputs.get(part.toolCallId)), step, bytes, spillPath),
      spillPath: spillPath ?? null,
    });
  }
  return out;
}
