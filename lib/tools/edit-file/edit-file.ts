/**
 * edit_file: replace one exact (or, failing that, loosely matched) piece of a file. The match
 * cascade lives in matchers.ts; this module does the I/O, the guards and the messages.
 *
 * An empty old_string creates a file that does not exist yet (or fills an empty one); on a file
 * with content it is an error that points to write_file. This is decided here, not by dispatch's
 * empty-string guard, because only the file system knows whether the file exists.
 */
import { z } from 'zod';
import { defineTool } from '../../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { confinedPath, type ResolvedPath } from '../../contract/paths';
import { notFoundError } from '../common/near-names';
import { commitPlannedWrite, encodeText, readTextFile, statPath, toWorkingEol, type TextFile } from '../common/file-io';
import { diffFiles, diffForModel, diffSummary, type FileDiff } from '../common/diff';
import {
  applyCandidates,
  closestRegion,
  findMatches,
  lineNumbersAt,
  MATCHER_LABELS,
  type MatcherName,
  type MatchLimits,
  type MatchOutcome,
  type Oversized,
} from './matchers';
import { byteLength, clipLine, countLines, formatBytes, formatCount } from '../../contract/text';

const schema = z.strictObject({
  path: z.string().describe('File relative to the workspace root.'),
  old_string: z.string().describe('Text to replace; empty only to create a file.'),
  new_string: z.string().describe('Replacement, inserted literally.'),
  replace_all: z.boolean().optional().describe('Replace every match (default: exactly one must match).'),
});

type Input = z.infer<typeof schema>;

function describe(b: Budget): string {
  return [
    `Replace old_string with new_string in one file. Returns the unified diff (cut to ${formatBytes(b.DIFF_MAX_BYTES)} for you; the user sees all of it).`,
    'Copy old_string exactly from read_file output without the line-number prefix, with enough surrounding lines to match one place; several matches are an error listing their lines, unless replace_all.',
    'Without an exact match, looser matchers forgive trailing whitespace, indentation (new_string is re-indented), tabs vs spaces, runs of spaces inside lines, literal \\n \\" \\$, blank lines, and a similar middle between matching first/last lines;',
    `the result names the matcher: check the diff. A loose match over ${b.EDIT_LOOSE_SPAN_MAX_RATIO}× the lines or bytes of old_string is refused.`,
    `An empty old_string creates a missing (or empty) file. Line endings and byte-order mark are kept. Files up to ${formatBytes(b.EDIT_MAX_FILE_BYTES)}.`,
    'To replace a whole file use write_file. To make several changes in one or more files at once use apply_patch.'
  ].join('\n');
}

/** findMatches' answer when old_string was found. */
type Matched = Extract<MatchOutcome, { kind: 'match' }>;

const limitsOf = (b: Budget): MatchLimits => ({
  spanMaxRatio: b.EDIT_LOOSE_SPAN_MAX_RATIO,
  slackLines: b.EDIT_LOOSE_SPAN_SLACK_LINES,
  slackBytes: b.EDIT_LOOSE_SPAN_SLACK_BYTES,
  anchorMinSimilarity: b.EDIT_ANCHOR_MIN_SIMILARITY_RATIO,
});

/** "matched with indentation drift (loose matcher: indentation)" */
export function matcherNote(m: MatcherName): string {
  return `matched with ${MATCHER_LABELS[m]} (loose matcher: ${m})`;
}

/** Numbered lines as read_file shows them, each cut to maxLineBytes. */
export function numberedLines(lines: string[], firstLine: number, maxLineBytes: number): string {
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((l, i) => `${String(firstLine + i).padStart(width)}\t${clipLine(l, maxLineBytes)}`).join('\n');
}

function identicalError(): ToolError {
  return new ToolError(
    'old_string and new_string are identical; there is nothing to change.',
    'Put the new text in new_string. If the file already says what you want, no edit is needed.',
  );
}

function notFound(rel: string, text: string, old: string, b: Budget): ToolError {
  const tried =
    'tried an exact match, then trailing whitespace, indentation, tabs/spaces, escaped characters, blank lines and first/last-line anchors';
  const region = closestRegion(text, old, b.EDIT_CLOSEST_REGION_MAX_LINES);
  const step = 'read_file the region and copy old_string exactly (every space and line break), then call edit_file again.';
  if (!region) {
    return new ToolError(
      `old_string was not found in ${rel} (${tried}). Nothing in the file looks like it.\n${step}`,
      `read_file ${rel} to find the text, then copy old_string exactly.`,
    );
  }
  const shown = numberedLines(region.lines, region.startLine, b.EDIT_CLOSEST_REGION_MAX_LINE_BYTES);
  return new ToolError(
    `old_string was not found in ${rel} (${tried}).\nThe closest region is lines ${region.startLine}–${region.endLine}:\n${shown}\n${step}`,
    `read_file ${rel} with offset=${region.startLine}, then copy old_string exactly.`,
    { closestRegion: { startLine: region.startLine, endLine: region.endLine } },
  );
}

function disproportionate(rel: string, r: Oversized, b: Budget): ToolError {
  const allowedLines = Math.floor(r.oldLines * b.EDIT_LOOSE_SPAN_MAX_RATIO) + b.EDIT_LOOSE_SPAN_SLACK_LINES;
  const size =
    r.spanLines > allowedLines
      ? `${formatCount(r.spanLines)} lines against old_string's ${formatCount(r.oldLines)}`
      : `${formatCount(r.spanBytes)} bytes of text against old_string's ${formatCount(r.oldBytes)}`;
  return new ToolError(
    `Refused a loose match in ${rel}: old_string ${matcherNote(r.matcher)} lines ${r.startLine}–${r.endLine}, ` +
      `a span much larger than old_string (${size}; the limit is ${b.EDIT_LOOSE_SPAN_MAX_RATIO}× plus a little slack). ` +
      'Replacing it could overwrite text you did not mean to change, so nothing was written.\n' +
      `read_file lines ${r.startLine}–${r.endLine} and give old_string exactly as the file has it (or a smaller piece copied exactly).`,
    `read_file ${rel} with offset=${r.startLine}, then copy old_string exactly.`,
    { refusedSpan: r },
  );
}

function listLines(lines: number[], max: number): string {
  const shown = lines.slice(0, max).join(', ');
  return lines.length > max ? `${shown} and ${formatCount(lines.length - max)} more` : shown;
}

/**
 * What an edit_file call would do, computed without touching the disk: the bytes to write (none
 * when the file would not change), the diff and the result to return once written.
 */
interface EditPlan {
  target: ResolvedPath;
  rel: string;
  /** bytes to write and the mode to keep; undefined when the file already says new_string */
  write?: { data: Buffer | string; mode?: number };
  diff: FileDiff;
  result: ToolOutput<EditFileMeta>;
}

/** Plan creating a missing file (or filling an empty one) from new_string. */
function planCreate(target: ResolvedPath, content: string, existed: boolean, b: Budget): EditPlan {
  const { rel } = target;
  const size = byteLength(content);
  if (size > b.EDIT_MAX_FILE_BYTES) {
    throw new ToolError(
      `new_string is ${formatBytes(size)}, over the ${formatBytes(b.EDIT_MAX_FILE_BYTES)} limit of edit_file; nothing was written.`,
      'Write smaller files.',
    );
  }
  const d = diffFiles(rel, rel, '', content, b.DIFF_COMPUTE_MAX_MS);
  const verb = existed ? 'Filled the empty file' : 'Created';
  return {
    target,
    rel,
    write: { data: content },
    diff: d,
    result: {
      output: `${verb} ${rel} with new_string (${diffSummary(d.added, 0)}, ${formatBytes(size)}).`,
      meta: { path: rel, diff: d.diff, added: d.added, removed: 0, created: !existed, matcher: null, matches: 0 },
    },
  };
}

/** Read, match and compute the new text and its diff; writes nothing. Throws the ToolErrors run() reports. */
function plan(input: Input, ctx: ToolContext): EditPlan {
  const b = ctx.budget;
  if (input.old_string === input.new_string) throw identicalError();
  const target = confinedPath(ctx, input.path);
  if (statPath(target).kind === 'missing') return planMissing(target, input, ctx);
  const file = readTextFile(target, { maxBytes: b.EDIT_MAX_FILE_BYTES, sniffBytes: b.BINARY_SNIFF_BYTES, tool: 'edit_file' });
  if (input.old_string === '') return planIntoEmpty(target, file.text, input.new_string, b);
  return planReplace(target, file, input, b);
}

/** A missing file: an empty old_string creates it; any other is not found (with the names near it). */
function planMissing(target: ResolvedPath, input: Input, ctx: ToolContext): EditPlan {
  if (input.old_string === '') return planCreate(target, input.new_string, false, ctx.budget);
  const nf = notFoundError(ctx.workspace, target.rel);
  throw new ToolError(
    `${nf.message} To create a new file use write_file (or edit_file with an empty old_string).`,
    nf.hint ?? 'Check the path, or create the file with write_file.',
    nf.meta,
  );
}

/** An empty old_string on an existing file: fills it when it is empty, else points to write_file. */
function planIntoEmpty(target: ResolvedPath, text: string, content: string, b: Budget): EditPlan {
  if (text === '') return planCreate(target, content, true, b);
  throw new ToolError(
    `old_string is empty but ${target.rel} already exists (${formatCount(countLines(text))} lines). ` +
      'To replace the whole file use write_file; to change part of it, give old_string copied exactly from read_file.',
    'Use write_file to replace the whole file, or give old_string.',
  );
}

/** Find old_string (exactly, else by the looser matchers); one match, or every match with replace_all. */
function planReplace(target: ResolvedPath, file: TextFile, input: Input, b: Budget): EditPlan {
  const { rel } = target;
  const old = toWorkingEol(input.old_string, file.eol);
  const neu = toWorkingEol(input.new_string, file.eol);
  if (old === neu) throw identicalError();
  const outcome = findMatches(file.text, old, neu, limitsOf(b));
  if (outcome.kind === 'not-found') throw notFound(rel, file.text, old, b);
  if (outcome.kind === 'disproportionate') throw disproportionate(rel, outcome.refused, b);
  const lines = lineNumbersAt(file.text, outcome.candidates.map((c) => c.start));
  if (outcome.candidates.length > 1 && !input.replace_all) {
    const how = outcome.matcher === 'exact' ? '' : `, ${matcherNote(outcome.matcher)}`;
    const n = outcome.candidates.length;
    throw new ToolError(
      `old_string matches ${n} places in ${rel} (lines ${listLines(lines, b.EDIT_MATCH_LINES_MAX_LISTED)}${how}); it must match exactly one.\n` +
        `Add surrounding lines to old_string so it matches one place, or set replace_all=true to replace all ${n}.`,
      'Give more context in old_string, or set replace_all=true.',
      { matches: n, lines },
    );
  }
  return planMatched(target, file, outcome, neu, lines, b);
}

/** The file with the matches replaced: unchanged, or the bytes to write with the diff and a note on any loose matcher. */
function planMatched(target: ResolvedPath, file: TextFile, match: Matched, neu: string, lines: number[], b: Budget): EditPlan {
  const { rel } = target;
  const { matcher, candidates } = match;
  const after = applyCandidates(file.text, candidates);
  const notes: string[] = [];
  if (matcher !== 'exact') {
    const reindented = candidates.some((c) => c.replacement !== neu) && matcher !== 'escapes';
    notes.push(`Note: ${matcherNote(matcher)}${reindented ? '; new_string was re-indented to fit' : ''}${match.notes.map((n) => `; ${n}`).join('')}. Check the diff.`);
  }
  const d = diffFiles(rel, rel, file.text, after, b.DIFF_COMPUTE_MAX_MS);
  const meta = { path: rel, diff: d.diff, added: d.added, removed: d.removed, created: false, matcher, matches: candidates.length, lines };
  const at = `line${lines.length === 1 ? '' : 's'} ${listLines(lines, b.EDIT_MATCH_LINES_MAX_LISTED)}`;
  const where = `${candidates.length === 1 ? '1 match' : `${candidates.length} matches`} at ${at}`;
  if (after === file.text) {
    return { target, rel, diff: d, result: { output: [`${rel} is unchanged: the text matched at ${at} already equals new_string.`, ...notes].join('\n'), meta } };
  }
  const encoded = encodeText(after, file);
  if (encoded.length > b.EDIT_MAX_FILE_BYTES) throw tooLargeAfter(rel, encoded.length, b);

  const shown = diffForModel(d.diff, b.DIFF_MAX_BYTES);
  return {
    target,
    rel,
    write: { data: encoded, mode: file.mode },
    diff: d,
    result: {
      output: [`Edited ${rel}: replaced ${where} (${diffSummary(d.added, d.removed)}).`, ...notes, shown.text.trimEnd()].join('\n'),
      truncation: shown.truncation,
      ...(shown.truncation ? { hint: `The diff was cut; read_file ${rel} to see the result.` } : {}),
      meta,
    },
  };
}

/** What edit_file tells the page: the change as a diff, and how old_string was found. */
export interface EditFileMeta {
  path: string;
  /** the whole change as a unified diff (the model may see a cut one) */
  diff: string;
  added: number;
  removed: number;
  /** the file did not exist (or was empty) and new_string became its content */
  created: boolean;
  /** which matcher found old_string (null when the file was created) */
  matcher: MatcherName | null;
  /** how many places matched (also on the "matches several places" error) */
  matches: number;
  /** the 1-based lines of the matches */
  lines?: number[];
}

async function run(input: Input, ctx: ToolContext): Promise<ToolOutput<EditFileMeta>> {
  return commitPlannedWrite('edit_file', plan(input, ctx), ctx.signal);
}

/** The approval bar's view of a call: the diff it would make, or why it would fail. Never throws, never writes. */
async function preview(input: Input, ctx: ToolContext): Promise<{ summary: string; diff?: string }> {
  return previewOf('edit_file', input.path, () => plan(input, ctx));
}

/**
 * Shared by the write tools' previews: "<tool> <path> (+3 −1 lines)" and the full diff, or
 * "<tool> <path> — would fail: <error>" with no diff. Never throws.
 */
export function previewOf(
  tool: string,
  label: string,
  planned: () => { rel: string; diff: FileDiff; write?: unknown; summary?: string },
): { summary: string; diff?: string } {
  try {
    const p = planned();
    if (!p.write) return { summary: `${tool} ${p.rel} (no change: the file already holds this text)` };
    return { summary: p.summary ?? `${tool} ${p.rel} (${diffSummary(p.diff.added, p.diff.removed)})`, diff: p.diff.diff || undefined };
  } catch (err) {
    return { summary: `${tool} ${label} — would fail: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function tooLargeAfter(rel: string, size: number, b: Budget): ToolError {
  return new ToolError(
    `The edit would make ${rel} ${formatBytes(size)}, over the ${formatBytes(b.EDIT_MAX_FILE_BYTES)} limit of edit_file; nothing was written.`,
    'Make a smaller change, or split the file.',
  );
}

export const editFileTool = defineTool({
  name: 'edit_file',
  effect: 'write',
  traits: { cardOpen: true, hookAs: { name: 'Edit', fields: { file_path: 'path' } } },
  schema,
  describe,
  nonEmpty: ['path'],
  paths: (input) => [{ path: input.path, access: 'write', field: 'path' }],
  summary: (input, r?: ToolResult<EditFileMeta>) =>
    r?.meta?.added !== undefined && r.meta.removed !== undefined ? `${input.path} (${diffSummary(r.meta.added, r.meta.removed)})` : input.path,
  run,
  preview,
});
