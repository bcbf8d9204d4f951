/**
 * Shared text-file I/O for the write tools: read a file as text (remembering its BOM and line
 * endings so a rewrite keeps them), and write atomically (temp file + rename in the same folder,
 * keeping the file's mode) so a crash never leaves a half-written file. Every read and write goes
 * through the file or folder opened and checked inside the path's root (lib/policy/confined-fs.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ToolError, type ToolOutput } from '../../contract/types';
import type { ResolvedPath } from '../../contract/paths';
import { pinConfined, readConfined, writeConfined } from '../../policy/confined-io';
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

/**
 * What a confined path is now, looked at through the file it opens (no link followed in its last name).
 * Throws PathPolicyError when it leads outside its root now (a link put in its way since dispatch checked it).
 */
export function statPath(p: ResolvedPath): { kind: PathKind; size: number; mode: number } {
  const held = pinConfined(p, 'read');
  if (!held) return { kind: 'missing', size: 0, mode: 0 };
  const st = held.stat;
  held.close();
  return { kind: st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other', size: st.size, mode: st.mode & 0o7777 };
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
 * Read an existing text file for editing, through the file opened and checked inside its root. Throws ToolError
 * (with a next step) when it is missing, not a regular file, over maxBytes, binary or not UTF-8, and
 * PathPolicyError when it now leads outside the root. The caller handles 'missing' first.
 */
export function readTextFile(p: ResolvedPath, opts: { maxBytes: number; sniffBytes: number; tool: string }): TextFile {
  const r = readConfined(p, opts.maxBytes);
  if (!r) throw new ToolError(`${p.rel} was removed while ${opts.tool} read it.`, 'Check the path with list_dir and try again.');
  if (r.kind === 'oversize') throw tooLargeError(p.rel, r.stat.size, opts.maxBytes, opts.tool);
  if (r.kind !== 'file') throw notAFileError(p.rel, r.kind, opts.tool);
  return { ...decodeText(r.data, p.rel, opts.sniffBytes, opts.tool), raw: r.data, mode: r.stat.mode & 0o7777 };
}

/**
 * The first existing ancestor of abs that is not a folder, if any (a write under it would fail): its path and
 * what it is ('a file', 'a link': links are not followed, a link there was put in the way after the check).
 */
export function blockingAncestor(abs: string): { path: string; what: string } | undefined {
  let dir = path.dirname(abs);
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(dir);
    } catch {
      st = undefined;
    }
    if (st) return st.isDirectory() ? undefined : { path: dir, what: st.isSymbolicLink() ? 'a link' : st.isFile() ? 'a file' : 'a special file' };
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * Write bytes atomically inside the path's root: a temp file in the checked folder, then a rename over the
 * target, so readers see the old or the new file, never half of one, and a link put in the way since the path
 * was checked cannot carry the write outside. mode (when given) is applied to the new file; otherwise an existing
 * file's mode is kept. Creates missing parents and returns them, outermost first (for rollback). Throws on
 * failure (temp removed): PathPolicyError when the way now leads outside.
 */
export function atomicWrite(p: ResolvedPath, data: Buffer | string, mode?: number): string[] {
  return writeConfined(p, data, mode).madeDirs;
}

/** What a single-file write tool's plan decided: the file, the bytes to write (none when nothing changes) and the result. */
export interface PlannedWrite<M> {
  target: ResolvedPath;
  write?: { data: Buffer | string; mode?: number };
  result: ToolOutput<M>;
}

/** Write what a plan decided unless the call was stopped first: the write tools' only side effect. */
export function commitPlannedWrite<M>(tool: string, p: PlannedWrite<M>, signal: AbortSignal): ToolOutput<M> {
  if (p.write) {
    if (signal.aborted) throw new ToolError(`${tool} was stopped by the user before it wrote anything.`);
    atomicWrite(p.target, p.write.data, p.write.mode);
  }
  return p.result;
}
