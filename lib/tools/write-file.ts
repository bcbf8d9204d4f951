/**
 * write_file: create a file or replace all of it. An existing file keeps its CRLF line endings and
 * byte-order mark (models write LF and no BOM; silently flipping a Windows file's endings would
 * turn every line into a diff). A created file gets only a summary back, not its own content
 * echoed as a diff: the model has just written it (the page still gets the full diff in meta).
 */
import { z } from 'zod';
import { defineTool } from '../contract/types';
import { ToolError, type ToolContext, type ToolOutput, type ToolResult } from '../contract/types';
import type { Budget } from '../contract/budget';
import { confinedPath, type ResolvedPath } from '../contract/paths';
import { readConfined } from '../policy/confined-io';
import { blockingAncestor, commitPlannedWrite, decodeText, encodeText, notAFileError, statPath, tooLargeError, type TextLayout } from './common/file-io';
import { diffFiles, diffForModel, diffSummary, type FileDiff } from './common/diff';
import { previewOf } from './edit-file/edit-file';
import { byteLength, countLines, formatBytes, formatCount } from '../contract/text';
import path from 'node:path';

const BOM = '\uFEFF';

const schema = z.strictObject({
  path: z.string().describe('File to write, relative to the workspace root. Missing parent folders are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

type Input = z.infer<typeof schema>;

function describe(b: Budget): string {
  return [
    'Write a whole file: creates it (with any missing parent folders) or replaces everything in it with content.',
    'Returns whether the file was created or overwritten with a line-diff summary (+added −removed lines);',
    `for an overwrite also the unified diff (cut to ${formatBytes(b.DIFF_MAX_BYTES)} for you).`,
    'An existing file keeps its CRLF line endings and its byte-order mark.',
    `Content up to ${formatBytes(b.EDIT_MAX_FILE_BYTES)}; an existing file larger than that is not replaced.`,
    'To change part of an existing file use edit_file (or apply_patch for several changes at once) instead of rewriting it whole.',
  ].join('\n');
}

/** The existing file as write_file sees it (read through the checked file): text and layout when it is text, else just its bytes. */
function previous(target: ResolvedPath, b: Budget): { text?: string; layout?: TextLayout; raw: Buffer } {
  const r = readConfined(target);
  if (!r) throw new ToolError(`${target.rel} was removed while write_file read it.`, 'Check the path with list_dir and try again.');
  if (r.kind !== 'file') throw notAFileError(target.rel, r.kind === 'dir' ? 'dir' : 'other', 'write_file');
  const raw = r.data;
  try {
    const d = decodeText(raw, target.rel, b.BINARY_SNIFF_BYTES, 'write_file');
    return { text: d.text, layout: { bom: d.bom, eol: d.eol }, raw };
  } catch {
    return { raw }; // binary or not UTF-8: it is replaced whole, without a line diff
  }
}

/** What a write_file call would do: the bytes to write (none when unchanged), the diff and the result. */
interface WritePlan {
  target: ResolvedPath;
  rel: string;
  write?: { data: Buffer | string; mode?: number };
  diff: FileDiff;
  /** what the approval bar says when a line diff does not describe the change */
  summary?: string;
  result: ToolOutput<WriteFileMeta>;
}

/** Check the target and compute the new bytes and the diff; writes nothing. Throws the ToolErrors run() reports. */
function plan(input: Input, ctx: ToolContext): WritePlan {
  const b = ctx.budget;
  const target = confinedPath(ctx, input.path);
  const size = byteLength(input.content);
  if (size > b.EDIT_MAX_FILE_BYTES) {
    throw new ToolError(
      `content is ${formatBytes(size)}, over the ${formatBytes(b.EDIT_MAX_FILE_BYTES)} limit of write_file; nothing was written.`,
      'Split the content into smaller files.',
    );
  }
  const st = statPath(target);
  if (st.kind === 'dir' || st.kind === 'other') throw notAFileError(target.rel, st.kind, 'write_file');
  if (st.kind === 'missing') return planCreate(target, input.content, size, ctx);
  if (st.size > b.EDIT_MAX_FILE_BYTES) throw tooLargeError(target.rel, st.size, b.EDIT_MAX_FILE_BYTES, 'write_file');
  return planReplace(target, input.content, st.mode, b);
}

/** A new file (its missing folders are made when it is written); a file or link where a folder should be fails. */
function planCreate(target: ResolvedPath, content: string, size: number, ctx: ToolContext): WritePlan {
  const { abs, rel } = target;
  const blocker = blockingAncestor(abs);
  if (blocker) {
    const b2 = path.relative(ctx.workspace, blocker.path).split(path.sep).join('/');
    throw new ToolError(`Cannot create ${rel}: ${b2} is ${blocker.what}, not a folder.`, 'Choose a path whose folders are folders (list_dir shows them).');
  }
  const d = diffFiles(rel, rel, '', content, ctx.budget.DIFF_COMPUTE_MAX_MS);
  return {
    target,
    rel,
    write: { data: content },
    diff: d,
    summary: `write_file ${rel} (new file, ${diffSummary(d.added, 0)}, ${formatBytes(size)})`,
    result: {
      output: `Created ${rel} (${diffSummary(d.added, 0)}, ${formatBytes(size)}).`,
      meta: { path: rel, diff: d.diff, added: d.added, removed: 0, created: true },
    },
  };
}

/** The content in the existing text file's layout: its byte-order mark and CRLF endings kept, with a note for each the content lacked. */
function inLayoutOf(prev: TextLayout | undefined, content: string): { text: string; layout: TextLayout; notes: string[] } {
  const notes: string[] = [];
  let text = content;
  let layout: TextLayout = { bom: false, eol: 'mixed' }; // 'mixed' writes the text exactly as given
  if (prev?.bom) {
    if (!text.startsWith(BOM)) notes.push('Kept the file\'s UTF-8 byte-order mark.');
    text = text.startsWith(BOM) ? text.slice(1) : text;
    layout = { ...layout, bom: true };
  }
  if (prev?.eol === 'crlf') {
    if (text.includes('\n') && !text.includes('\r\n')) notes.push('Kept the file\'s CRLF line endings.');
    text = text.replace(/\r\n/g, '\n');
    layout = { ...layout, eol: 'crlf' };
  }
  return { text, layout, notes };
}

const NO_DIFF: FileDiff = { diff: '', added: 0, removed: 0, exact: true };

/** Replacing an existing file: unchanged, replacing binary data (no line diff), or a text change with its diff. */
function planReplace(target: ResolvedPath, content: string, mode: number, b: Budget): WritePlan {
  const { rel } = target;
  const prev = previous(target, b);
  const { text, layout, notes } = inLayoutOf(prev.layout, content);
  const encoded = encodeText(text, layout);
  if (encoded.equals(prev.raw)) {
    return {
      target,
      rel,
      diff: { ...NO_DIFF },
      result: {
        output: `${rel} is unchanged: content is identical to what the file already holds.`,
        meta: { path: rel, diff: '', added: 0, removed: 0, created: false },
      },
    };
  }
  const write = { data: encoded, mode };
  if (prev.text === undefined) return planOverBinary(target, text, write, prev.raw.length);
  const d = diffFiles(rel, rel, prev.text, text, b.DIFF_COMPUTE_MAX_MS);
  const shown = diffForModel(d.diff, b.DIFF_MAX_BYTES);
  return {
    target,
    rel,
    write,
    diff: d,
    result: {
      output: [`Overwrote ${rel} (${diffSummary(d.added, d.removed)}).`, ...notes, shown.text.trimEnd()].filter(Boolean).join('\n'),
      truncation: shown.truncation,
      ...(shown.truncation ? { hint: `The diff was cut; read_file ${rel} to see the result.` } : {}),
      meta: { path: rel, diff: d.diff, added: d.added, removed: d.removed, created: false },
    },
  };
}

/** Text over a file that held binary or non-UTF-8 data: no line diff describes it, so the summary counts lines and bytes. */
function planOverBinary(target: ResolvedPath, text: string, write: { data: Buffer; mode: number }, oldBytes: number): WritePlan {
  const { rel } = target;
  const added = countLines(text);
  const lines = `${formatCount(added)} line${added === 1 ? '' : 's'} (${formatBytes(write.data.length)})`;
  return {
    target,
    rel,
    write,
    diff: { ...NO_DIFF, added },
    summary: `write_file ${rel} (replaces ${formatCount(oldBytes)} bytes of binary or non-UTF-8 data with ${lines})`,
    result: {
      output: `Overwrote ${rel}, which held ${formatCount(oldBytes)} bytes of binary or non-UTF-8 data (no line diff), with ${lines}.`,
      meta: { path: rel, diff: '', added, removed: 0, created: false, replacedBinary: true },
    },
  };
}

/** What write_file tells the page: the change as a diff. */
export interface WriteFileMeta {
  path: string;
  /** the whole change as a unified diff ('' when nothing changed or the old file was binary) */
  diff: string;
  added: number;
  removed: number;
  created: boolean;
  /** the file held binary data before (no line diff describes the change) */
  replacedBinary?: boolean;
}

async function run(input: Input, ctx: ToolContext): Promise<ToolOutput<WriteFileMeta>> {
  return commitPlannedWrite('write_file', plan(input, ctx), ctx.signal);
}

/** The approval bar's view of a call: the diff it would make, or why it would fail. Never throws, never writes. */
async function preview(input: Input, ctx: ToolContext): Promise<{ summary: string; diff?: string }> {
  return previewOf('write_file', input.path, () => plan(input, ctx));
}

export const writeFileTool = defineTool({
  name: 'write_file',
  effect: 'write',
  traits: { cardOpen: true, hookAs: { name: 'Write', fields: { file_path: 'path' } } },
  schema,
  describe,
  nonEmpty: ['path'],
  paths: (input) => [{ path: input.path, access: 'write', field: 'path' }],
  summary: (input, r?: ToolResult<WriteFileMeta>) =>
    r?.meta?.added !== undefined && r.meta.removed !== undefined && !r.meta.replacedBinary
      ? `${input.path} (${r.meta.created ? 'new, ' : ''}${diffSummary(r.meta.added, r.meta.removed)})`
      : input.path,
  run,
  preview,
});
