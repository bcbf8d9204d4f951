/**
 * Shared text-file I/O for the write tools: read a file as text (remembering its BOM and line
 * endings so a rewrite keeps them), and write atomically (temp file + rename in the same folder,
 * keeping the file's mode) so a crash never leaves a half-written file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ToolError, type ToolOutput } from '../../contract/types';
import { formatBytes } from '../../contract/text';

const BOM = '\uFEFF';

/** How a file's text is laid out on disk, so a rewrite can keep it. */
export interface TextLayout {
  /** the file started with a UTF-8 byte-order mark */
  bom: boolean;
  /**
   * 'crlf': every line ends in CRLF (text is handled with LF, written back with CRLF);
   * 'lf': no CRLF at all; 'mixed': both — the text is kept exactly as it is.
   */
  eol: 'lf' | 'crlf' | 'mixed';
}

/** A text file as the tools handle it: BOM stripped, CRLF turned into LF when the whole file uses CRLF. */
export interface TextFile extends TextLayout {
  text: string;
  /** the bytes on disk, for rollback */
  raw: Buffer;
  /** permission bits of the file, kept on rewrite */
  mode: number;
}

/** Work out the line-ending layout of decoded text. */
export function detectEol(text: string): TextLayout['eol'] {
  const crlf = text.includes('\r\n');
  if (!crlf) return 'lf';
  const lf = (text.match(/\n/g) ?? []).length;
  const cr = (text.match(/\r\n/g) ?? []).length;
  return lf === cr ? 'crlf' : 'mixed';
}

/**
 * Bring a model-supplied string into the form the file's text is handled in: in 'lf' and 'crlf'
 * files the text is LF, so CRLF the model typed becomes LF; in 'mixed' files it stays as typed.
 */
export function toWorkingEol(s: string, eol: TextLayout['eol']): string {
  return eol === 'mixed' ? s : s.replace(/\r\n/g, '\n');
}

/** Turn working text back into bytes for the disk, restoring CRLF and the BOM. */
export function encodeText(text: string, layout: TextLayout): Buffer {
  const body = layout.eol === 'crlf' ? text.replace(/\r?\n/g, '\r\n') : text;
  return Buffer.from((layout.bom ? BOM : '') + body, 'utf8');
}

/** Decode bytes as text for editing; throws ToolError naming the file when it is binary or not UTF-8. */
export function decodeText(raw: Buffer, rel: string, sniffBytes: number, tool: string): { text: string } & TextLayout {
  const head = raw.subarray(0, sniffBytes);
  if (head.includes(0)) {
    throw new ToolError(
      `${rel} looks binary (a NUL byte in its first ${formatBytes(head.length)}); ${tool} only changes text files.`,
      'Leave binary files alone, or ask the user how to change this one.',
    );
  }
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new ToolError(
      `${rel} is not valid UTF-8 text; ${tool} would corrupt the bytes it cannot decode, so it leaves the file alone.`,
      'Change it with a command-line tool that handles its encoding, or ask the user.',
    );
  }
  // TextDecoder drops a leading BOM by default; look at the bytes to know it was there
  const bom = raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
  const text = decoded.startsWith(BOM) ? decoded.slice(1) : decoded;
  const eol = detectEol(text);
  return { text: eol === 'crlf' ? text.replace(/\r\n/g, '\n') : text, bom, eol };
}

/** What stat says about a path the tools want to change; 'missing' when nothing is there. */
export type PathKind = 'file' | 'dir' | 'other' | 'missing';

/** stat a path without throwing on ENOENT/ENOTDIR. */
export function statPath(abs: string): { kind: PathKind; size: number; mode: number } {
  try {
    const st = fs.statSync(abs);
    return { kind: st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other', size: st.size, mode: st.mode & 0o7777 };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', size: 0, mode: 0 };
    throw err;
  }
}

/** The error for a path that is a folder (or a device) where a file was expected. */
export function notAFileError(rel: string, kind: PathKind, tool: string): ToolError {
  if (kind === 'dir') {
    return new ToolError(
      `${rel} is a directory, not a file; ${tool} changes files.`,
      `Pass the path of a file (list_dir ${rel} shows what it contains).`,
    );
  }
  return new ToolError(`${rel} is not a regular file; ${tool} changes regular files only.`, 'Pass the path of a regular text file.');
}

/** The error for a file over the edit cap. */
export function tooLargeError(rel: string, size: number, maxBytes: number, tool: string): ToolError {
  return new ToolError(
    `${rel} is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit of ${tool}; it was not changed.`,
    'Change a file that large with a command-line tool (run_command), or split it; ask the user if unsure.',
  );
}

/**
 * Read an existing text file for editing. Throws ToolError (with a next step) when it is not a
 * regular file, is over maxBytes, is binary or is not UTF-8. The caller handles 'missing' first.
 */
export function readTextFile(abs: string, rel: string, opts: { maxBytes: number; sniffBytes: number; tool: string }): TextFile {
  const st = statPath(abs);
  if (st.kind !== 'file') throw notAFileError(rel, st.kind, opts.tool);
  if (st.size > opts.maxBytes) throw tooLargeError(rel, st.size, opts.maxBytes, opts.tool);
  const raw = fs.readFileSync(abs);
  return { ...decodeText(raw, rel, opts.sniffBytes, opts.tool), raw, mode: st.mode };
}

/** The first existing ancestor of abs that is not a directory, if any (a write under it would fail). */
export function blockingAncestor(abs: string): string | undefined {
  let dir = path.dirname(abs);
  for (;;) {
    const st = statPath(dir);
    if (st.kind === 'dir') return undefined;
    if (st.kind !== 'missing') return dir;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Create abs's missing parent folders; returns the folders created, outermost first (for rollback). */
export function ensureParents(abs: string): string[] {
  const missing: string[] = [];
  let dir = path.dirname(abs);
  while (statPath(dir).kind === 'missing') {
    missing.unshift(dir);
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  if (missing.length) fs.mkdirSync(path.dirname(abs), { recursive: true });
  return missing;
}

/**
 * Write bytes atomically: a temp file in the same folder, then rename over the target, so readers
 * see the old or the new file, never half of one. mode (when given) is applied to the new file;
 * otherwise an existing file's mode is kept. Creates missing parents. Throws on failure (temp removed).
 */
export function atomicWrite(abs: string, data: Buffer | string, mode?: number): void {
  ensureParents(abs);
  const keep = mode ?? (statPath(abs).kind === 'file' ? statPath(abs).mode : undefined);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.clamp-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    fs.writeFileSync(tmp, data);
    // writeFile's mode is filtered by the umask; chmod sets exactly what the file had
    if (keep !== undefined) fs.chmodSync(tmp, keep);
    fs.renameSync(tmp, abs);
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the temp file is best-effort cleanup; the original error is what matters
    }
    throw err;
  }
}

/** What a single-file write tool's plan decided: the file, the bytes to write (none when nothing changes) and the result. */
export interface PlannedWrite<M> {
  abs: string;
  write?: { data: Buffer | string; mode?: number };
  result: ToolOutput<M>;
}

/** Write what a plan decided unless the call was stopped first: the write tools' only side effect. */
export function commitPlannedWrite<M>(tool: string, p: PlannedWrite<M>, signal: AbortSignal): ToolOutput<M> {
  if (p.write) {
    if (signal.aborted) throw new ToolError(`${tool} was stopped by the user before it wrote anything.`);
    atomicWrite(p.abs, p.write.data, p.write.mode);
  }
  return p.result;
}
