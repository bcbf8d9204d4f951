/**
 * read_file: numbered lines of a text file, one window at a time, streamed so that paging a
 * 1 GB log costs a fixed buffer, not the file.
 *
 * Line counting: the footer's total N is exact when the scan reached the end of the file. After the
 * window, the rest is scanned at most READ_COUNT_MAX_BYTES further (bounded memory, linear time);
 * past that the footer says "of at least N". Reaching a window deep in the file needs a scan up to
 * it; the line index (line-index.ts) remembers where lines start along the way, so the next deep
 * window of the same file (unchanged, or only appended to) starts from the nearest checkpoint instead of byte 0. Reads are
 * kept on the same CHUNK_BYTES grid (window-scan.ts) from whichever checkpoint they start, so every output (the
 * counting cap's "at least N" included) is the same as a scan from the start would give.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../contract/types';
import { ToolError, type ToolContext } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { confinedPath } from '../../contract/paths';
import { REOPEN_FLAGS } from '../../policy/confined-fs';
import { pinConfined } from '../../policy/confined-io';
import { editorFilesOf } from '../../contract/editor-files';
import { byteLength, fitWithNote, formatBytes, formatCount } from '../../contract/text';
import { sniffBinary } from './binary';
import { notFoundError, pathArg } from '../common/near-names';
import { removedNote } from '../../store/retention-journal';
import { LineIndex } from './line-index';
import { digits, scanFile, type Scan } from './window-scan';

const schema = z.strictObject({
  path: z.string().describe('File relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('First line, 1-based (default 1).'),
  limit: z.number().int().min(1).optional().describe('Most lines (default: the maximum).'),
});

function describe(b: Budget): string {
  return [
    'Read a text file, one window at a time. Returns lines as "<number><TAB><text>" (the numbers are not in the file) and a footer "lines a–b of N" with the offset to continue from.',
    `A window is at most ${formatCount(b.READ_MAX_LINES)} lines (the default) and ${formatCount(b.READ_WINDOW_MAX_BYTES)} bytes. Lines longer than ${formatCount(b.READ_MAX_LINE_BYTES)} bytes are cut with a marker.`,
    `Files over ${formatBytes(b.READ_WHOLE_FILE_MAX_BYTES)} need offset/limit. Binary files are refused with their type and size.`,
    'To find text across files use grep; to list a folder use list_dir; to change part of a file use edit_file.'
  ].join('\n');
}

/** What read_file tells the page about a window it read. */
export interface ReadFileMeta {
  /** the file, relative to the workspace */
  path: string;
  /** the window's first and last line, 1-based */
  offset: number;
  lastLine: number;
  /** the file's lines (a lower bound when totalLinesExact is false) */
  totalLines: number;
  totalLinesExact: boolean;
  sizeBytes: number;
}

/** The file to scan: the disk's, or (when an editor serves the session) a private copy of the editor's text. */
interface Opened {
  fh: fs.promises.FileHandle;
  stat: fs.Stats;
  /** what the line index is keyed by */
  key: string;
}

/** Open the confined file (checked: it exists here and is a regular file); with an editor's files, its text as the editor has it. */
async function openTarget(ctx: ToolContext, target: ReturnType<typeof confinedPath>): Promise<Opened> {
  const { abs, rel } = target;
  // the file itself, opened without following a link and checked inside its root (a link may be in its way now)
  const held = pinConfined(target, 'read');
  if (!held) throw missingError(ctx, target);
  try {
    const stat = held.stat;
    if (stat.isDirectory()) {
      throw new ToolError(`${rel} is a directory, not a file. Use list_dir with path=${pathArg(rel)} to see what it contains.`);
    }
    if (!stat.isFile()) {
      throw new ToolError(`${rel} is not a regular file (a device, socket or pipe); read_file reads regular files only.`);
    }
    const text = await editorFilesOf(ctx.services)?.read(abs, ctx.signal).catch(() => undefined);
    if (text !== undefined) return await editorCopy(ctx, text);
    const fh = await fs.promises.open(held.via, REOPEN_FLAGS);
    return { fh, stat, key: abs };
  } finally {
    held.close();
  }
}

/** The editor's text (unsaved changes included) in a private file of the data dir, unlinked once open, so the same scan reads it. */
async function editorCopy(ctx: ToolContext, text: string): Promise<Opened> {
  const dir = path.join(ctx.dataDir, 'editor-reads');
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${process.pid}-${crypto.randomUUID()}`);
  await fs.promises.writeFile(file, text, { mode: 0o600, flag: 'wx' });
  try {
    const fh = await fs.promises.open(file, 'r');
    return { fh, stat: await fh.stat(), key: file };
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/** A path that is not there: an output retention removed says so (and when, and why); anything else gets "did you mean". */
function missingError(ctx: ToolContext, target: { abs: string; rel: string; root: string }): ToolError {
  const removed = target.root === ctx.workspace ? undefined : removedNote(ctx.dataDir, target.abs);
  return removed ? new ToolError(`${target.abs}: ${removed}`, 'Rerun the command to see its output again.') : notFoundError(ctx.workspace, target.rel);
}

async function run(input: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolOutput<ReadFileMeta>> {
  const b = ctx.budget;
  const target = confinedPath(ctx, input.path);
  const { abs, rel } = target;
  const { fh, stat, key } = await openTarget(ctx, target);
  try {
    const type = await sniffBinary(fh, path.basename(abs), b.BINARY_SNIFF_BYTES);
    if (type) {
      throw new ToolError(`${rel} is a binary file (${type}, ${formatCount(stat.size)} bytes); read_file shows text only.`);
    }
    // kept across appends (a growing log): see line-index.ts
    const index = await LineIndex.open(fh, { abs: key, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino }, b, ctx.signal);
    const noWindow = input.offset === undefined && input.limit === undefined;
    if (noWindow && stat.size > b.READ_WHOLE_FILE_MAX_BYTES) {
      let lines = '';
      if (stat.size <= b.READ_COUNT_MAX_BYTES) {
        const s = await scanFile(fh, stat.size, Number.MAX_SAFE_INTEGER, 1, b, ctx.signal, index);
        await index.seal(fh);
        lines = ` and ${formatCount(s.lines)} line${s.lines === 1 ? '' : 's'}`;
      }
      const exact = `${formatCount(stat.size)} bytes`;
      const sizeText = formatBytes(stat.size) === exact ? exact : `${formatBytes(stat.size)} (${exact})`;
      const step = `read_file with path=${pathArg(rel)} offset=1 limit=${b.READ_MAX_LINES}`;
      throw new ToolError(
        `${rel} is ${sizeText}${lines}, too large to read whole (the limit without a window is ${formatBytes(b.READ_WHOLE_FILE_MAX_BYTES)}). ` +
          `Read it in windows with offset and limit (at most ${b.READ_MAX_LINES} lines per call), starting with ${step}; to find text in it use grep.`,
        `Page it: ${step}, then continue from the offset the footer gives.`,
      );
    }
    const offset = input.offset ?? 1;
    const limit = Math.min(input.limit ?? b.READ_MAX_LINES, b.READ_MAX_LINES);
    // a lowered exit clamp (ctx.budget) may sit below the window: the window shrinks with it, and
    // render() drops lines from its end until the footer fits too
    const outMax = b.TOOL_OUTPUT_MAX_BYTES;
    const eff = { ...b, READ_WINDOW_MAX_BYTES: Math.min(b.READ_WINDOW_MAX_BYTES, outMax) };
    const s = await scanFile(fh, stat.size, offset, limit, eff, ctx.signal, index);
    await index.seal(fh);
    return render({ rel, input, offset, limit, size: stat.size, b: eff, outMax, lowered: outMax < b.READ_WINDOW_MAX_BYTES }, s);
  } finally {
    await fh.close();
  }
}

/** What render needs besides the scan: the call, its window, and the caps the output must fit. */
interface View {
  rel: string;
  input: z.infer<typeof schema>;
  offset: number;
  limit: number;
  size: number;
  b: Budget;
  outMax: number;
  /** an exit clamp below the window cap lowered outMax */
  lowered: boolean;
}

/** The answer when the window holds no line: an empty file, or an offset past the end (thrown). */
function emptyWindow({ rel, offset, limit }: View, s: Scan): ToolOutput<ReadFileMeta> {
  if (s.lines === 0) {
    if (offset > 1) throw new ToolError(`Offset ${offset} is past the end of ${rel}: the file is empty (0 lines).`);
    return { output: `(${rel} is empty: 0 lines)` };
  }
  const lastWindow = s.lines > limit ? ` (offset=${s.lines - limit + 1} shows the last ${limit})` : '';
  throw new ToolError(
    `Offset ${offset} is past the end of ${rel}: the file has ${s.lines} line${s.lines === 1 ? '' : 's'}. Use an offset from 1 to ${s.lines}${lastWindow}.`,
  );
}

/** The lines the window was asked for, as far as the file has them (at least the n shown). */
const askedLines = (v: View, s: Scan, n: number) => Math.min(v.limit, Math.max(s.lines - v.offset + 1, n));
/** Whether the file goes on after line `last` (or may: its count was cut short). */
const goesOn = (s: Scan, last: number) => last < s.lines || !s.complete;

/** The footer after n shown lines: where they lie in the file, what was lowered or cut, and where to go on. */
function footer(v: View, s: Scan, n: number, end: Scan['end']): string {
  const { b, offset } = v;
  const total = s.complete ? String(s.lines) : `at least ${s.lines} (counted in the first ${formatBytes(s.scanned)} of ${formatBytes(v.size)})`;
  const last = offset + n - 1;
  const notes: string[] = [];
  if (v.input.limit !== undefined && v.input.limit > b.READ_MAX_LINES) notes.push(`limit ${v.input.limit} lowered to the ${b.READ_MAX_LINES}-line maximum`);
  if (end === 'bytes') {
    const cap = v.lowered ? `the output stopped at the result's ${formatCount(v.outMax)}-byte cap` : `the window stopped at its ${formatCount(b.READ_WINDOW_MAX_BYTES)}-byte cap`;
    notes.push(`${cap} after ${n} of the ${askedLines(v, s, n)} lines asked for`);
  }
  const shownClipped = s.texts.slice(0, n).filter((t) => t.cut).length;
  if (shownClipped > 0) notes.push(`${shownClipped} long line${shownClipped === 1 ? '' : 's'} cut at ${formatCount(b.READ_MAX_LINE_BYTES)} bytes (marked "line cut")`);
  const next = goesOn(s, last) ? `continue with offset=${last + 1}` : 'end of file';
  return `(lines ${offset}–${last} of ${total}${notes.map((x) => `; ${x}`).join('')}; ${next})`;
}

/** The whole output, footer included, fits in outMax. */
function render(v: View, s: Scan): ToolOutput<ReadFileMeta> {
  if (s.lines === 0 || s.texts.length === 0) return emptyWindow(v, s);
  const width = digits(Math.max(s.lines, v.offset + s.texts.length - 1));
  const numbered = s.texts.map((t, i) => `${String(v.offset + i).padStart(width)}\t${t.text}\n`);
  /** The first n numbered lines within room bytes (and the window cap), at least one: the width grew once N was known. */
  const keep = (room: number) => {
    let n = 0;
    let bytes = 0;
    const max = Math.min(room, v.b.READ_WINDOW_MAX_BYTES);
    while (n < numbered.length && bytes + byteLength(numbered[n]) <= max) bytes += byteLength(numbered[n++]);
    n = Math.max(1, n);
    return { n, end: n < numbered.length ? ('bytes' as const) : s.end, text: numbered.slice(0, n).join('') };
  };
  const fit = fitWithNote(v.outMax, keep, (k) => k.text + footer(v, s, k.n, k.end));
  const { end, n: shown } = fit.cut;
  const last = v.offset + shown - 1;
  const more = goesOn(s, last);
  const asked = askedLines(v, s, shown);
  const noWindow = v.input.offset === undefined && v.input.limit === undefined;
  const cut = end === 'bytes' || (noWindow && more);
  return {
    output: fit.text,
    ...(more ? { hint: `To continue: read_file with path=${pathArg(v.rel)} offset=${last + 1}.` } : {}),
    truncation: cut
      ? {
          unit: 'lines' as const,
          shown,
          total: end === 'bytes' ? asked : s.lines,
          omittedLines: (end === 'bytes' ? asked : s.lines) - shown,
          by: 'tool' as const,
        }
      : null,
    meta: { path: v.rel, offset: v.offset, lastLine: last, totalLines: s.lines, totalLinesExact: s.complete, sizeBytes: v.size },
  };
}

/** `src/app.ts 1–200`; with a result, the lines read of how many. */
function summary(input: z.infer<typeof schema>, r?: { meta?: Partial<ReadFileMeta> }): string {
  const m = r?.meta;
  if (m?.offset !== undefined && m.lastLine !== undefined && m.totalLines !== undefined) {
    return `${input.path} ${m.offset}–${m.lastLine} of ${m.totalLinesExact === false ? 'at least ' : ''}${m.totalLines}`;
  }
  if (input.offset === undefined && input.limit === undefined) return input.path;
  const start = input.offset ?? 1;
  return `${input.path} ${start}–${input.limit !== undefined ? start + input.limit - 1 : 'end'}`;
}

export const readFileTool = defineTool({
  name: 'read_file',
  effect: 'read',
  schema,
  describe,
  summary,
  nonEmpty: ['path'],
  paths: (input) => [{ path: input.path, access: 'read', field: 'path' }],
  run,
  traits: { hookAs: { name: 'Read', fields: { file_path: 'path' } } },
});
