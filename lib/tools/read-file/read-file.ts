/**
 * read_file: numbered lines of a text file, one window at a time, streamed so that paging a
 * 1 GB log costs a fixed buffer, not the file.
 *
 * Line counting: the footer's total N is exact when the scan reached the end of the file. After the
 * window, the rest is scanned at most READ_COUNT_MAX_BYTES further (bounded memory, linear time);
 * past that the footer says "of at least N". Reaching a window deep in the file needs a scan up to
 * it; the line index (line-index.ts) remembers where lines start along the way, so the next deep
 * window of the same file (unchanged, or only appended to) starts from the nearest checkpoint instead of byte 0. Reads are
 * kept on the same CHUNK_BYTES grid from whichever checkpoint they start, so every output (the
 * counting cap's "at least N" included) is the same as a scan from the start would give.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../contract/types';
import { ToolError, type ToolContext } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { confinedPath } from '../../contract/paths';
import { REOPEN_FLAGS } from '../../policy/confined-fs';
import { pinConfined } from '../../policy/confined-io';
import { byteLength, fitWithNote, formatBytes, formatCount, utf8End } from '../../contract/text';
import { sniffBinary } from './binary';
import { notFoundError, pathArg } from '../common/near-names';
import { LineIndex, countBytesRead } from './line-index';

/** Bytes read per system call; the only buffer whose size does not depend on the window. */
const CHUNK_BYTES = 1024 * 1024;
const NL = 0x0a;
const CR = 0x0d;
const utf8 = new TextDecoder('utf-8'); // lossy: invalid bytes become U+FFFD

const schema = z.strictObject({
  path: z.string().describe('File relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('First line, 1-based (default 1).'),
  limit: z.number().int().min(1).optional().describe('Most lines (default: the maximum).'),
});

interface Scan {
  /** display text of each window line (number prefix not yet added), and whether it was cut */
  texts: { text: string; cut: boolean }[];
  /** what ended the window */
  end: 'limit' | 'bytes' | 'eof';
  /** lines in the file (a lower bound when !complete) */
  lines: number;
  /** true when the scan reached the end of the file */
  complete: boolean;
  /** bytes scanned from the start of the file */
  scanned: number;
}

const digits = (n: number) => String(Math.max(1, n)).length;

/**
 * Stream the file once: skip to `offset`, keep at most `limit` lines (each cut to READ_MAX_LINE_BYTES)
 * within READ_WINDOW_MAX_BYTES of numbered text, then count the rest (bounded by READ_COUNT_MAX_BYTES).
 * Starts at the index's nearest checkpoint and records new ones as it passes them.
 * Memory: one chunk buffer plus the window.
 */
async function scanFile(fh: fs.promises.FileHandle, size: number, offset: number, limit: number, budget: Budget, signal: AbortSignal, index: LineIndex): Promise<Scan> {
  const known = index.total;
  // the window lies past the end: a full scan would only count the lines, and they are known
  if (known !== null && offset > known) return { texts: [], end: 'eof', lines: known, complete: true, scanned: size };
  let from = index.startFor(offset);
  if (from.byte > 0) {
    // a checkpoint follows a newline; if it does not, the file changed under an unchanged stat
    const one = Buffer.alloc(1);
    const { bytesRead } = await fh.read(one, 0, 1, from.byte - 1);
    countBytesRead(bytesRead);
    if (bytesRead !== 1 || one[0] !== NL) {
      index.drop();
      from = { line: 1, byte: 0 };
    }
  }
  const maxLine = budget.READ_MAX_LINE_BYTES;
  const maxWindow = budget.READ_WINDOW_MAX_BYTES;
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  const texts: Scan['texts'] = [];
  let end: Scan['end'] | null = null;
  let windowBytes = 0;
  let lineNo = from.line; // the line being read
  let lineHasBytes = false;
  let kept: Buffer[] = []; // head of the current window line, at most maxLine + 1 bytes
  let keptBytes = 0;
  let lineBytes = 0; // its full length
  let lastByte = -1;
  let pos = from.byte;
  let countedAfter = 0;
  let complete = true;
  let totalKnown = false; // the count after the window was taken from the index
  let nextCheckpoint = index.nextLine();
  /** After a chunk: far enough past the last checkpoint in bytes, record the next line start (long lines). */
  const byteStride = () => {
    if (pos - index.frontierByte >= index.strideBytes) nextCheckpoint = Math.min(nextCheckpoint, lineNo + 1);
  };

  const finishLine = () => {
    let body = Buffer.concat(kept, keptBytes);
    let total = lineBytes;
    if (lastByte === CR) total -= 1; // CRLF: the \r is part of the line ending, not shown
    body = body.subarray(0, Math.min(body.length, total));
    const cut = total > maxLine;
    let text: string;
    if (cut) {
      const k = utf8End(body, maxLine);
      text = `${utf8.decode(body.subarray(0, k))}… [line cut: ${formatCount(total - k)} more bytes]`;
    } else {
      text = utf8.decode(body);
    }
    kept = [];
    keptBytes = 0;
    lineBytes = 0;
    lastByte = -1;
    // the final number width is known only at the end; the lower bound here is fixed up by the caller
    const cost = digits(lineNo) + 1 + Buffer.byteLength(text) + 1;
    if (texts.length > 0 && windowBytes + cost > maxWindow) {
      end = 'bytes';
      return;
    }
    texts.push({ text, cut });
    windowBytes += cost;
    if (texts.length >= limit) end = 'limit';
  };

  for (;;) {
    if (signal.aborted) throw new Error('aborted');
    // stay on the grid a scan from byte 0 reads: the counting cap is checked at the same chunk ends
    const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES - (pos % CHUNK_BYTES), pos);
    if (bytesRead === 0) break;
    countBytesRead(bytesRead);
    const chunk = buf.subarray(0, bytesRead);
    // a UTF-8 BOM is an encoding mark, not text
    let start = pos === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    const base = pos;
    pos += bytesRead;
    while (end === null && start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const stop = nl === -1 ? chunk.length : nl;
      if (stop > start) {
        lineHasBytes = true;
        if (lineNo >= offset) {
          const room = maxLine + 1 - keptBytes;
          if (room > 0) {
            const piece = Buffer.from(chunk.subarray(start, Math.min(stop, start + room))); // copy: buf is reused
            kept.push(piece);
            keptBytes += piece.length;
          }
          lineBytes += stop - start;
          lastByte = chunk[stop - 1];
        }
      }
      if (nl === -1) start = chunk.length;
      else {
        if (lineNo >= offset) finishLine();
        lineNo++;
        if (lineNo === nextCheckpoint) nextCheckpoint = index.record(lineNo, base + nl + 1);
        lineHasBytes = false;
        start = nl + 1;
      }
    }
    // the window is closed and the total is known: a scan from here would reach the end under the
    // counting cap (it stops only at a chunk end before the end of the file, past the cap)
    if (end !== null && known !== null && size - (base + start) <= budget.READ_COUNT_MAX_BYTES) {
      totalKnown = true;
      break;
    }
    if (end === null || start >= chunk.length) {
      byteStride();
      continue;
    }
    // the window is closed: only count lines, up to the counting cap
    for (let i = chunk.indexOf(NL, start); i !== -1; i = chunk.indexOf(NL, i + 1)) {
      if (++lineNo === nextCheckpoint) nextCheckpoint = index.record(lineNo, base + i + 1);
    }
    byteStride();
    lineHasBytes = chunk[chunk.length - 1] !== NL;
    countedAfter += chunk.length - start;
    if (countedAfter >= budget.READ_COUNT_MAX_BYTES && pos < size) {
      complete = false;
      break;
    }
  }
  // a last line without a trailing newline
  if (end === null && lineHasBytes && lineNo >= offset) finishLine();
  if (end === null) end = 'eof';
  if (totalKnown && known !== null) return { texts, end, lines: known, complete: true, scanned: size };
  const lines = lineHasBytes ? lineNo : lineNo - 1;
  if (complete) index.setTotal(lines);
  return { texts, end, lines, complete, scanned: pos };
}

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

async function run(input: z.infer<typeof schema>, ctx: ToolContext): Promise<ToolOutput<ReadFileMeta>> {
  const b = ctx.budget;
  const target = confinedPath(ctx, input.path);
  const { abs, rel } = target;
  // the file itself, opened without following a link and checked inside its root (a link may be in its way now)
  const held = pinConfined(target, 'read');
  if (!held) throw notFoundError(ctx.workspace, rel);
  let fh: fs.promises.FileHandle;
  let stat: fs.Stats;
  try {
    stat = held.stat;
    if (stat.isDirectory()) {
      throw new ToolError(`${rel} is a directory, not a file. Use list_dir with path=${pathArg(rel)} to see what it contains.`);
    }
    if (!stat.isFile()) {
      throw new ToolError(`${rel} is not a regular file (a device, socket or pipe); read_file reads regular files only.`);
    }
    fh = await fs.promises.open(held.via, REOPEN_FLAGS);
  } finally {
    held.close();
  }
  try {
    const type = await sniffBinary(fh, path.basename(abs), b.BINARY_SNIFF_BYTES);
    if (type) {
      throw new ToolError(`${rel} is a binary file (${type}, ${formatCount(stat.size)} bytes); read_file shows text only.`);
    }
    // kept across appends (a growing log): see line-index.ts
    const index = await LineIndex.open(fh, { abs, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino }, b, ctx.signal);
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
    return render(rel, input, offset, limit, s, stat.size, eff, outMax, outMax < b.READ_WINDOW_MAX_BYTES);
  } finally {
    await fh.close();
  }
}

/** The whole output, footer included, fits in outMax; lowered: an exit clamp below the window cap made it so. */
function render(rel: string, input: z.infer<typeof schema>, offset: number, limit: number, s: Scan, size: number, b: Budget, outMax: number, lowered: boolean): ToolOutput<ReadFileMeta> {
  if (s.lines === 0) {
    if (offset > 1) throw new ToolError(`Offset ${offset} is past the end of ${rel}: the file is empty (0 lines).`);
    return { output: `(${rel} is empty: 0 lines)` };
  }
  if (s.texts.length === 0) {
    const lastWindow = s.lines > limit ? ` (offset=${s.lines - limit + 1} shows the last ${limit})` : '';
    throw new ToolError(
      `Offset ${offset} is past the end of ${rel}: the file has ${s.lines} line${s.lines === 1 ? '' : 's'}. Use an offset from 1 to ${s.lines}${lastWindow}.`,
    );
  }
  const width = digits(Math.max(s.lines, offset + s.texts.length - 1));
  const numbered = s.texts.map((t, i) => `${String(offset + i).padStart(width)}\t${t.text}\n`);
  const total = s.complete
    ? String(s.lines)
    : `at least ${s.lines} (counted in the first ${formatBytes(s.scanned)} of ${formatBytes(size)})`;
  const a = offset;
  /** The first n numbered lines within room bytes (and the window cap), at least one: the width grew once N was known. */
  const keep = (room: number) => {
    let n = 0;
    let bytes = 0;
    const max = Math.min(room, b.READ_WINDOW_MAX_BYTES);
    while (n < numbered.length && bytes + byteLength(numbered[n]) <= max) bytes += byteLength(numbered[n++]);
    n = Math.max(1, n);
    return { n, end: n < numbered.length ? ('bytes' as const) : s.end, text: numbered.slice(0, n).join('') };
  };
  const footerFor = ({ n, end }: { n: number; end: Scan['end'] }) => {
    const last = offset + n - 1;
    const more = last < s.lines || !s.complete;
    const asked = Math.min(limit, Math.max(s.lines - a + 1, n));
    const notes: string[] = [];
    if (input.limit !== undefined && input.limit > b.READ_MAX_LINES) notes.push(`limit ${input.limit} lowered to the ${b.READ_MAX_LINES}-line maximum`);
    if (end === 'bytes') {
      const cap = lowered ? `the output stopped at the result's ${formatCount(outMax)}-byte cap` : `the window stopped at its ${formatCount(b.READ_WINDOW_MAX_BYTES)}-byte cap`;
      notes.push(`${cap} after ${n} of the ${asked} lines asked for`);
    }
    const shownClipped = s.texts.slice(0, n).filter((t) => t.cut).length;
    if (shownClipped > 0) notes.push(`${shownClipped} long line${shownClipped === 1 ? '' : 's'} cut at ${formatCount(b.READ_MAX_LINE_BYTES)} bytes (marked "line cut")`);
    const next = more ? `continue with offset=${last + 1}` : 'end of file';
    return `(lines ${a}–${last} of ${total}${notes.map((x) => `; ${x}`).join('')}; ${next})`;
  };
  const fit = fitWithNote(outMax, keep, (k) => k.text + footerFor(k));
  const { end } = fit.cut;
  const shown = fit.cut.n;
  const last = offset + shown - 1;
  const more = last < s.lines || !s.complete;
  const asked = Math.min(limit, Math.max(s.lines - a + 1, shown));
  const noWindow = input.offset === undefined && input.limit === undefined;
  const cut = end === 'bytes' || (noWindow && more);
  return {
    output: fit.text,
    ...(more ? { hint: `To continue: read_file with path=${pathArg(rel)} offset=${last + 1}.` } : {}),
    truncation: cut
      ? {
          unit: 'lines' as const,
          shown,
          total: end === 'bytes' ? asked : s.lines,
          omittedLines: (end === 'bytes' ? asked : s.lines) - shown,
          by: 'tool' as const,
        }
      : null,
    meta: { path: rel, offset: a, lastLine: last, totalLines: s.lines, totalLinesExact: s.complete, sizeBytes: size },
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
});
