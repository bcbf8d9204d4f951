import path from 'node:path';
import { parsePatch } from 'diff';
import type { ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import { traitsOf, type ToolResult } from '../../contract/types';
import { lookupTool, type Registry } from '../../dispatch/registry';
import { callSummary } from '../../agent/tool-summaries';

/**
 * A tool call as an editor shows it over the Agent Client Protocol: its title (the tool's own summary), its
 * kind (the tool's `activity` trait, so no list of names), the files it touches (the tool's declared paths,
 * made absolute) and, with its result, its status and content (diffs for changes, the text the model read).
 */

/** The call's title, kind and locations, from its tool's definition. Never throws. */
export function callView(reg: Registry, workspace: string, toolName: string, input: unknown): { title: string; kind: ToolKind; locations: ToolCallLocation[] } {
  const tool = lookupTool(reg, toolName);
  const summary = callSummary(reg, toolName, input);
  return { title: summary ? `${toolName} ${summary}` : toolName, kind: tool ? traitsOf(tool).activity : 'other', locations: locationsOf(reg, workspace, toolName, input) };
}

/** The absolute paths a call names (its tool's `paths`); none when the input does not fit the schema. */
export function locationsOf(reg: Registry, workspace: string, toolName: string, input: unknown): ToolCallLocation[] {
  const tool = lookupTool(reg, toolName);
  const parsed = tool?.paths ? tool.schema.safeParse(input ?? {}) : undefined;
  if (!tool?.paths || !parsed?.success) return [];
  try {
    return tool.paths(parsed.data).map((p) => ({ path: path.resolve(workspace, p.path) }));
  } catch {
    return [];
  }
}

/** The paths a call writes (absolute): where an editor's buffers must follow the change. */
export function writtenPaths(reg: Registry, workspace: string, toolName: string, input: unknown): string[] {
  const tool = lookupTool(reg, toolName);
  const parsed = tool?.paths ? tool.schema.safeParse(input ?? {}) : undefined;
  if (!tool?.paths || !parsed?.success) return [];
  try {
    return tool.paths(parsed.data).filter((p) => p.access === 'write').map((p) => path.resolve(workspace, p.path));
  } catch {
    return [];
  }
}

/** A finished call's status: ok is completed; an error or a refusal failed. */
export function statusOf(r: Pick<ToolResult, 'status'>): ToolCallStatus {
  return r.status === 'ok' ? 'completed' : 'failed';
}

/**
 * A unified diff (the write tools' `meta.diff`, the approval's preview) as the protocol's diffs: one per hunk,
 * its context and removed lines as the old text, its context and added lines as the new. Never throws.
 */
export function diffContent(diff: string, workspace: string): ToolCallContent[] {
  let files: ReturnType<typeof parsePatch>;
  try {
    files = parsePatch(diff);
  } catch {
    return [];
  }
  const out: ToolCallContent[] = [];
  for (const f of files) {
    const name = (f.newFileName && f.newFileName !== '/dev/null' ? f.newFileName : f.oldFileName ?? '').replace(/^[ab]\//, '');
    if (!name) continue;
    const created = f.oldFileName === '/dev/null';
    for (const h of f.hunks) {
      const side = (keep: string) => h.lines.filter((l) => l[0] === ' ' || l[0] === keep).map((l) => l.slice(1)).join('\n');
      out.push({ type: 'diff', path: path.resolve(workspace, name), oldText: created ? null : side('-'), newText: side('+') });
    }
  }
  return out;
}

/** What a finished call shows: its diffs when it changed files, else (and for a failure) the text the model read. */
export function resultContent(r: ToolResult, workspace: string): ToolCallContent[] {
  const diff = typeof r.meta?.diff === 'string' ? r.meta.diff : '';
  const diffs = r.status === 'ok' && diff ? diffContent(diff, workspace) : [];
  if (diffs.length) return diffs;
  return r.output ? [{ type: 'content', content: { type: 'text', text: r.output } }] : [];
}

/** The result a call stopped with, when a stream or the store holds something that is not a ToolResult. */
export function asResult(output: unknown, fallbackText: string): ToolResult {
  const r = output as Partial<ToolResult> | undefined;
  if (r && typeof r === 'object' && typeof r.status === 'string' && typeof r.output === 'string') return r as ToolResult;
  return { status: 'error', output: fallbackText, truncation: null };
}

