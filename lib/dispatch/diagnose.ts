/**
 * Diagnostics after edits, in dispatch's flow: before a write tool runs, the text of each file it will
 * change that a language server covers; after it ran, the new errors the change made, appended to its
 * result (before the one exit clamp, so the result still keeps the cap) and carried in its meta.
 */
import type { ToolContext, ToolDefinition, ToolResult } from '../contract/types';
import { diagnosticsServiceOf, type FileBefore } from '../contract/diagnostics';
import { expectLate } from './late-diagnostics';
import type { ResolvedPath } from '../contract/paths';
import { readConfined } from '../policy/confined-io';

/** The file's text through the file opened and checked inside its root (a link swapped in is not read out). */
function readText(p: ResolvedPath, maxBytes: number): string | null {
  try {
    const got = readConfined(p, maxBytes);
    if (got?.kind !== 'file') return null;
    return new TextDecoder('utf-8', { fatal: true }).decode(got.data);
  } catch {
    return null; // missing (about to be created), unreadable or not text: no baseline
  }
}

/** A read of a covered file warms its language server (the edit that usually follows then waits less). Never throws. */
export function warmFor(tool: ToolDefinition, input: unknown, ctx: ToolContext): void {
  if (tool.effect !== 'read' || !tool.paths || !ctx.paths) return;
  const service = diagnosticsServiceOf(ctx.services);
  if (!service?.warm) return;
  try {
    for (const p of tool.paths(input as never)) {
      const resolved = ctx.paths.get(p.path);
      if (resolved && service.covers(resolved.abs)) service.warm(resolved.abs);
    }
  } catch {
    // warming is a courtesy; the read goes on
  }
}

/** The covered files a write call may change, with their text now; undefined when there is nothing to check. */
export function filesBefore(tool: ToolDefinition, input: unknown, ctx: ToolContext): FileBefore[] | undefined {
  if (tool.effect !== 'write' || !tool.paths || !ctx.paths) return undefined;
  const service = diagnosticsServiceOf(ctx.services);
  if (!service) return undefined;
  const out: FileBefore[] = [];
  const seen = new Set<string>();
  try {
    for (const p of tool.paths(input as never)) {
      const resolved = ctx.paths.get(p.path);
      if (p.access !== 'write' || !resolved || seen.has(resolved.abs) || !service.covers(resolved.abs)) continue;
      seen.add(resolved.abs);
      out.push({ abs: resolved.abs, rel: resolved.rel, before: readText(resolved, ctx.budget.DIAGNOSTICS_FILE_MAX_BYTES) });
    }
  } catch {
    return undefined; // diagnostics never make a call fail
  }
  return out.length ? out : undefined;
}

/**
 * The result with the change's new errors appended and in meta.diagnostics; the result as it was when there
 * is nothing to say. A check that outlives DIAGNOSTICS_WAIT_MS leaves the result "pending" and is followed
 * (late-diagnostics.ts). Never throws.
 */
export async function withDiagnostics(r: ToolResult, files: FileBefore[] | undefined, tool: ToolDefinition, ctx: ToolContext): Promise<ToolResult> {
  if (!files || r.status !== 'ok') return r;
  const service = diagnosticsServiceOf(ctx.services);
  if (!service) return r;
  try {
    const report = await service.check(files, ctx.signal);
    if (!report) return r;
    if (report.late) expectLate(ctx, tool.name, files.map((f) => f.rel), report);
    return { ...r, output: report.text ? `${r.output.trimEnd()}\n\n${report.text}` : r.output, meta: { ...r.meta, diagnostics: report.meta } };
  } catch {
    return r;
  }
}
