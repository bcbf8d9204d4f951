/**
 * apply_patch: several file changes in one call, all or nothing. Every operation is checked
 * against the current files in memory first; only when all of them apply are the files written,
 * and a failed write rolls back the ones already written.
 */
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { confinedPath, type ResolvedPath } from '../../contract/paths';
import { removeConfined, removeMadeDir } from '../../policy/confined-io';
import { PathPolicyError } from '../../policy/workspace';
import { notFoundError } from '../common/near-names';
import { atomicWrite, blockingAncestor, encodeText, readTextFile, statPath, type TextLayout } from '../common/file-io';
import { diffFiles, diffForModel, diffSummary, similarTextRegion } from '../common/diff';
import { applyHunks, HunkError, parsePatch, PatchParseError, patchPaths, type PatchOp } from './parser';
import { numberedLines, matcherNote } from '../edit-file/edit-file';
import { clipLine, formatBytes, formatCount } from '../../contract/text';

const schema = z.strictObject({
  patch: z.string().describe('The whole patch, from "*** Begin Patch" to "*** End Patch".'),
});

type Input = z.infer<typeof schema>;

function describe(b: Budget): string {
  return [
    'Add, update, move and delete files in one call, all or nothing: every hunk is checked first; if one does not fit, nothing changes and the error names the file and hunk.',
    '*** Begin Patch',
    '*** Add File: src/new.ts',
    '+export const x = 1;',
    '*** Update File: src/old.ts',
    '*** Move to: src/renamed.ts',
    '@@ function foo() {',
    ' const a = 1;',
    '-const b = 2;',
    '+const b = 3;',
    '*** Delete File: src/gone.ts',
    '*** End Patch',
    'Add File: every line prefixed "+". Update File: hunks of context (" " then the line exactly as in the file; a blank line is empty context), "-" removed and "+" added lines;',
    'text after "@@" names a line above the change to narrow the search; "*** Move to:" (optional) renames; "*** End of File" pins a hunk to the end. Delete File: no lines.',
    "Give about 3 context lines around each change, a file's hunks in file order; context may differ from the file only in trailing whitespace. Each file in one operation only.",
    `Returns a line per file (+added −removed lines) and the unified diff (cut to ${formatBytes(b.DIFF_MAX_BYTES)} for you). Files up to ${formatBytes(b.EDIT_MAX_FILE_BYTES)}.`,
    'Prefer apply_patch for several changes in one file or changes across files; use edit_file for a single replacement (it forgives more drift), write_file to replace a whole file.'
  ].join('\n');
}

const NOTHING = 'nothing was written';

/** A file the patch touches: what is on disk now, and what it will hold (null = absent). */
interface Touched {
  target: ResolvedPath;
  abs: string;
  rel: string;
  before: { raw: Buffer; mode: number; text: string; layout: TextLayout } | null;
  after: string | null;
  layout: TextLayout;
}

interface Change {
  action: 'A' | 'M' | 'R' | 'D';
  rel: string;
  to?: string;
  before: string;
  after: string;
}

function opLabel(op: PatchOp): string {
  return op.kind === 'add' ? 'Add File' : op.kind === 'delete' ? 'Delete File' : 'Update File';
}

function fail(message: string, hint = `Fix the patch and send it again; ${NOTHING}.`, meta?: Record<string, unknown>): ToolError {
  return new ToolError(`apply_patch failed; ${NOTHING}.\n${message}`, hint, meta);
}

function load(ctx: ToolContext, p: string, op: PatchOp, b: Budget, seen: Map<string, string>): Touched {
  const target = confinedPath(ctx, p);
  const { abs, rel } = target;
  const other = seen.get(abs);
  if (other !== undefined) throw fail(`${p} is the same file as ${other}; put every change to one file under a single operation.`);
  seen.set(abs, p);
  const st = statPath(target);
  const fresh: TextLayout = { bom: false, eol: 'lf' };
  if (st.kind === 'missing') return { target, abs, rel, before: null, after: null, layout: fresh };
  let f;
  try {
    f = readTextFile(target, { maxBytes: b.EDIT_MAX_FILE_BYTES, sniffBytes: b.BINARY_SNIFF_BYTES, tool: 'apply_patch' });
  } catch (err) {
    if (err instanceof ToolError) throw fail(`${opLabel(op)} ${rel}: ${err.message}`, err.hint);
    throw err;
  }
  const layout = { bom: f.bom, eol: f.eol };
  return { target, abs, rel, before: { raw: f.raw, mode: f.mode, text: f.text, layout }, after: f.text, layout };
}

function missing(ws: string, op: PatchOp, rel: string): ToolError {
  const nf = notFoundError(ws, rel);
  return fail(`${opLabel(op)} ${rel}: ${nf.message}`, nf.hint ?? `Check the path with list_dir or glob; ${NOTHING}.`, nf.meta);
}

function hunkFailure(t: Touched, op: Extract<PatchOp, { kind: 'update' }>, e: HunkError, b: Budget): ToolError {
  const n = `${t.rel}, hunk ${e.index + 1} of ${op.hunks.length} (patch line ${op.hunks[e.index].patchLine})`;
  const max = b.EDIT_CLOSEST_REGION_MAX_LINES * 2;
  const clip = (l: string) => clipLine(l, b.EDIT_CLOSEST_REGION_MAX_LINE_BYTES);
  const shown = e.expected.slice(0, max).map(clip).join('\n') + (e.expected.length > max ? `\n… (${e.expected.length - max} more lines)` : '');
  const fileLines = (t.after ?? '').split('\n');
  let text: string;
  if (e.reason === 'anchor') {
    text = `${n}: the @@ anchor line was not found at or after line ${e.fromLine}:\n${shown}`;
  } else {
    text = `${n}: context not found at or after line ${e.fromLine} (compared exactly and ignoring trailing whitespace). Expected these lines:\n${shown}`;
    const region = similarTextRegion(fileLines, e.expected.map((l) => l.slice(1)), b.EDIT_CLOSEST_REGION_MAX_LINES);
    if (region) text += `\nThe closest region is lines ${region.startLine}–${region.endLine}:\n${numberedLines(region.lines, region.startLine, b.EDIT_CLOSEST_REGION_MAX_LINE_BYTES)}`;
  }
  const step = `read_file ${t.rel} around the change and rebuild hunk ${e.index + 1} from lines copied exactly (or make this change with edit_file), then send the whole patch again.`;
  return fail(`${text}\n${step}`, `Nothing was written. Fix hunk ${e.index + 1} of ${t.rel} and send the whole patch again.`, {
    file: t.rel,
    hunk: e.index + 1,
  });
}

/** Check every operation in memory; returns the files to write and what changed, or throws. */
function check(ctx: ToolContext, ops: PatchOp[], b: Budget): { touched: Touched[]; changes: Change[]; notes: string[] } {
  const ws = ctx.workspace;
  const seen = new Map<string, string>();
  const touched: Touched[] = [];
  const changes: Change[] = [];
  const notes: string[] = [];
  for (const op of ops) {
    const t = load(ctx, op.path, op, b, seen);
    touched.push(t);
    if (op.kind === 'add') {
      if (t.before) throw fail(`Add File ${t.rel}: the file already exists. Use "*** Update File:" to change it, or delete it first.`);
      const blocker = blockingAncestor(t.abs);
      if (blocker) throw fail(`Add File ${t.rel}: ${path.relative(ws, blocker.path).split(path.sep).join('/')} is ${blocker.what}, not a folder.`);
      t.after = op.contents;
      changes.push({ action: 'A', rel: t.rel, before: '', after: op.contents });
    } else if (op.kind === 'delete') {
      if (!t.before) throw missing(ws, op, t.rel);
      t.after = null;
      changes.push({ action: 'D', rel: t.rel, before: t.before.text, after: '' });
    } else {
      if (!t.before) throw missing(ws, op, t.rel);
      let next = t.before.text;
      try {
        const r = applyHunks(next, op.hunks);
        next = r.text;
        for (const i of r.loose) notes.push(`Note: ${t.rel} hunk ${i + 1} ${matcherNote('trailing-whitespace')}.`);
      } catch (e) {
        if (e instanceof HunkError) throw hunkFailure(t, op, e, b);
        throw e;
      }
      if (op.moveTo === undefined) {
        t.after = next;
        changes.push({ action: 'M', rel: t.rel, before: t.before.text, after: next });
      } else {
        const d = load(ctx, op.moveTo, op, b, seen);
        touched.push(d);
        if (d.before) throw fail(`Update File ${t.rel}: cannot move it to ${d.rel}, which already exists. Delete it first or choose another name.`);
        const blocker = blockingAncestor(d.abs);
        if (blocker) throw fail(`Update File ${t.rel}: cannot move it to ${d.rel}: ${path.relative(ws, blocker.path).split(path.sep).join('/')} is ${blocker.what}, not a folder.`);
        t.after = null;
        d.after = next;
        d.layout = t.layout;
        changes.push({ action: 'R', rel: t.rel, to: d.rel, before: t.before.text, after: next });
      }
    }
    const bytes = t.after === null ? 0 : encodeText(t.after, t.layout).length;
    if (bytes > b.EDIT_MAX_FILE_BYTES) throw fail(`${opLabel(op)} ${t.rel}: the result would be ${formatBytes(bytes)}, over the ${formatBytes(b.EDIT_MAX_FILE_BYTES)} limit.`);
  }
  return { touched, changes, notes };
}

/**
 * Write every planned file; on a failure restore what was already written and rethrow as a ToolError (a path
 * that now leads outside the workspace is refused as it was found, after the same rollback).
 */
function commit(ws: string, touched: Touched[]): void {
  const done: Touched[] = [];
  const madeDirs: string[] = [];
  for (const t of touched) {
    const same = t.before && t.after !== null && encodeText(t.after, t.layout).equals(t.before.raw);
    if (same || (!t.before && t.after === null)) continue;
    try {
      if (t.after === null) removeConfined(t.target);
      else madeDirs.push(...atomicWrite(t.target, encodeText(t.after, t.layout), t.before?.mode));
      done.push(t);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
      const unrestored = rollback(ws, done, madeDirs);
      if (err instanceof PathPolicyError) {
        const undone = unrestored.length ? ` Rolling back failed for ${unrestored.join(', ')}: check them with read_file.` : ' Nothing was changed.';
        throw new PathPolicyError(`apply_patch stopped: ${err.message}${undone}`);
      }
      const restored = unrestored.length
        ? `Rolling back failed for ${unrestored.join(', ')}: check them with read_file before anything else.`
        : `The ${done.length} file${done.length === 1 ? '' : 's'} already written ${done.length === 1 ? 'was' : 'were'} restored, so nothing changed.`;
      throw new ToolError(`apply_patch failed while writing ${t.rel} (${why}). ${restored}`, 'Check the paths and permissions, then send the patch again.', {
        file: t.rel,
        unrestored,
      });
    }
  }
}

/** Put files back as they were (through checked folders, like the writes); returns the paths that could not be restored. */
function rollback(ws: string, done: Touched[], madeDirs: string[]): string[] {
  const failed: string[] = [];
  for (const t of [...done].reverse()) {
    try {
      if (t.before) atomicWrite(t.target, t.before.raw, t.before.mode);
      else removeConfined(t.target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') failed.push(t.rel);
    }
  }
  // not empty or already gone: leaving a folder behind changes no file
  for (const d of [...madeDirs].reverse()) removeMadeDir(ws, d);
  return failed;
}

/** What an apply_patch call would do: the files to write, the combined diff and the result to return. */
interface PatchPlan {
  touched: Touched[];
  /** "A src/new.ts (+1 −0 lines)", one per changed file */
  lines: string[];
  added: number;
  removed: number;
  diff: string;
  result: ToolOutput<ApplyPatchMeta>;
}

/** Parse the patch, check every operation and compute the diffs; writes nothing. Throws the ToolErrors run() reports. */
function plan(input: Input, ctx: ToolContext): PatchPlan {
  const b = ctx.budget;
  let ops: PatchOp[];
  try {
    ops = parsePatch(input.patch);
  } catch (err) {
    if (err instanceof PatchParseError) {
      throw fail(`Invalid patch, ${err.message}.`, `Fix the patch format (see the apply_patch description) and send it again; ${NOTHING}.`);
    }
    throw err;
  }
  const { touched, changes, notes } = check(ctx, ops, b);

  let added = 0;
  let removed = 0;
  const lines: string[] = [];
  const diffs: string[] = [];
  const files = changes.map((c) => {
    const d = diffFiles(c.rel, c.to ?? c.rel, c.before, c.after, b.DIFF_COMPUTE_MAX_MS);
    added += d.added;
    removed += d.removed;
    if (d.diff) diffs.push(d.diff);
    lines.push(`${c.action} ${c.rel}${c.to ? ` → ${c.to}` : ''} (${diffSummary(d.added, d.removed)})`);
    return { action: c.action, path: c.rel, ...(c.to ? { moveTo: c.to } : {}), added: d.added, removed: d.removed };
  });
  const diff = diffs.join('');
  const shown = diffForModel(diff, b.DIFF_MAX_BYTES);
  const head = `Applied the patch: ${formatCount(changes.length)} file${changes.length === 1 ? '' : 's'} changed (${diffSummary(added, removed)}).`;
  return {
    touched,
    lines,
    added,
    removed,
    diff,
    result: {
      output: [head, ...lines, ...notes, shown.text.trimEnd()].filter(Boolean).join('\n'),
      truncation: shown.truncation,
      ...(shown.truncation ? { hint: 'The diff was cut; read_file the changed files to see the result.' } : {}),
      meta: { files, diff, added, removed },
    },
  };
}

/** What apply_patch tells the page: each file it changed and the combined diff. */
export interface ApplyPatchMeta {
  files: { action: 'A' | 'M' | 'R' | 'D'; path: string; moveTo?: string; added: number; removed: number }[];
  /** every file's change as one unified diff */
  diff: string;
  added: number;
  removed: number;
}

async function run(input: Input, ctx: ToolContext): Promise<ToolOutput<ApplyPatchMeta>> {
  const p = plan(input, ctx);
  if (ctx.signal.aborted) throw new ToolError(`apply_patch was stopped by the user before it wrote anything; ${NOTHING}.`);
  commit(ctx.workspace, p.touched);
  return p.result;
}

/**
 * The approval bar's view of a call: "apply_patch: A src/new.ts (+1 −0 lines), M src/a.ts (+2 −1 lines)"
 * and the combined diff, or why it would fail. Never throws, never writes.
 */
async function preview(input: Input, ctx: ToolContext): Promise<{ summary: string; diff?: string }> {
  try {
    const p = plan(input, ctx);
    return { summary: `apply_patch: ${p.lines.join(', ')}`, diff: p.diff || undefined };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    // every plan error starts "apply_patch failed; nothing was written." — the preview says "would fail" instead
    const why = msg.startsWith(`apply_patch failed; ${NOTHING}.\n`) ? msg.slice(`apply_patch failed; ${NOTHING}.\n`.length) : msg;
    return { summary: `apply_patch — would fail: ${why}` };
  }
}

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  effect: 'write',
  traits: { cardOpen: true },
  schema,
  describe,
  nonEmpty: ['patch'],
  paths: (input) => patchPaths(input.patch).map((p) => ({ path: p.path, access: 'write' as const, field: 'patch' })),
  summary: (input, r?: ToolResult<ApplyPatchMeta>) => {
    const files = r?.meta?.files?.map((f) => f.path) ?? patchPaths(input.patch).map((p) => p.path);
    const change = r?.meta?.added !== undefined && r.meta.removed !== undefined ? ` (${diffSummary(r.meta.added, r.meta.removed)})` : '';
    return `${[...new Set(files)].join(', ')}${change}`;
  },
  run,
  preview,
});
