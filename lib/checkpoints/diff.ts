import fs from 'node:fs';
import path from 'node:path';
import { formatPatch, structuredPatch, FILE_HEADERS_ONLY } from 'diff';
import type { ChangedFile, FileChangeKind } from '../contract/rest';
import { cutHead, formatBytes } from '../contract/text';
import { GIT, q, serialized, shadowScript, type Shadow } from './shadow';

/** Comparing two trees of the shadow repository: which files differ, how, and their unified diffs (bounded). */

export interface TreeChange {
  path: string;
  change: FileChangeKind;
  from: { mode: string; sha: string } | null;
  to: { mode: string; sha: string } | null;
}

const ZERO = /^0+$/;

/** The shadow's diff-tree of two trees (or commits), in the form parseRawDiff reads. */
export const DIFF_TREE = `${GIT} diff-tree -r -z --no-renames --raw`;

/** The files that differ from tree (or commit) `a` to `b`, in path order. */
export async function changedPaths(s: Shadow, a: string, b: string): Promise<TreeChange[]> {
  const r = await serialized(s, () => shadowScript(s, `${DIFF_TREE} ${q(a)} ${q(b)}`, 'comparing checkpoints'));
  return parseRawDiff(r.stdout.toString('utf8'));
}

/** diff-tree's `--raw -z` output as changes. */
export function parseRawDiff(text: string): TreeChange[] {
  const fields = text.split('\0');
  const out: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(fields[i]!);
    if (!m) continue;
    const [, m1, m2, s1, s2] = m as unknown as [string, string, string, string, string];
    const from = ZERO.test(m1) ? null : { mode: m1, sha: s1 };
    const to = ZERO.test(m2) ? null : { mode: m2, sha: s2 };
    let change: FileChangeKind = 'modified';
    if (!from) change = 'added';
    else if (!to) change = 'deleted';
    else if (from.mode.slice(0, 3) !== to.mode.slice(0, 3)) change = 'type';
    else if (from.sha === to.sha) change = 'mode';
    out.push({ path: fields[i + 1]!, change, from, to });
  }
  return out;
}

/**
 * The shell lines that print (cat-file --batch) the blobs listed in the file `list`, one sha a line, leaving out
 * those over maxBytes: their sizes are read first, so a huge blob is never read into memory.
 */
export function blobsScript(list: string, maxBytes: number): string {
  return [
    `${GIT} cat-file --batch-check < ${list} | while read -r sha type size; do`,
    `  if [ "$type" = blob ] && [ "$size" -le ${Math.floor(maxBytes)} ]; then echo "$sha"; fi`,
    `done | ${GIT} cat-file --batch`,
  ].join('\n');
}

/**
 * The shell lines that write to the file `wanted` the blobs diffChanges reads for the changes from a to b (shell
 * words): both sides of the first CHECKPOINT_DIFF_MAX_FILES changes, no submodule's commit. diff-tree without -z
 * gives one line per change (a path with a newline is quoted), in the order parseRawDiff reads.
 */
export function wantedBlobsScript(s: Shadow, a: string, b: string, wanted: string): string {
  return [
    `${GIT} diff-tree -r --no-renames --raw ${a} ${b} | head -n ${Math.floor(s.budget.CHECKPOINT_DIFF_MAX_FILES)} | while read -r m1 m2 s1 s2 rest; do`,
    '  case "$m1" in :160*) ;; *) echo "$s1" ;; esac',
    '  case "$m2" in 160*) ;; *) echo "$s2" ;; esac',
    `done | grep -v '^0*$' | sort -u > ${wanted}`,
  ].join('\n');
}

/** cat-file --batch output: each blob's contents by sha. */
export function parseBatch(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) break;
    const [sha = '', type, size] = buf.subarray(at, nl).toString('utf8').split(' ');
    if (type !== 'blob') {
      at = nl + 1;
      continue;
    }
    const n = Number(size);
    out.set(sha, buf.subarray(nl + 1, nl + 1 + n));
    at = nl + 1 + n + 1;
  }
  return out;
}

/** The contents of blobs, by sha (one run). Blobs over maxBytes are left out. */
async function readBlobs(s: Shadow, wanted: { sha: string; bytes?: number }[], maxBytes: number): Promise<Map<string, Buffer>> {
  const shas = [...new Set(wanted.map((w) => w.sha))];
  if (shas.length === 0) return new Map();
  const list = path.join(s.gitDir, `clamp-blobs-${process.pid}-${Date.now()}`);
  fs.writeFileSync(list, shas.map((x) => `${x}\n`).join(''));
  try {
    const r = await serialized(s, () => shadowScript(s, blobsScript(q(list), maxBytes), 'reading checkpoint files'));
    return parseBatch(r.stdout);
  } finally {
    fs.rmSync(list, { force: true });
  }
}

function isBinary(b: Buffer, sniff: number): boolean {
  return b.subarray(0, sniff).includes(0);
}

export type DiffedFile = ChangedFile;

/**
 * Each change with its unified diff from a to b (`read`: the blobs, when the caller read them already): symlinks as their target text, binary files noted
 * (binary: true, no diff), each diff cut to CHECKPOINT_DIFF_MAX_BYTES, at most CHECKPOINT_DIFF_MAX_FILES
 * diffs and CHECKPOINT_DIFFS_MAX_BYTES in all (the rest listed without one: truncated).
 */
export async function diffChanges(s: Shadow, changes: TreeChange[], read?: Map<string, Buffer>): Promise<{ files: DiffedFile[]; truncated: boolean }> {
  const b = s.budget;
  const withDiff = changes.slice(0, b.CHECKPOINT_DIFF_MAX_FILES);
  let truncated = changes.length > withDiff.length;
  // the blobs, unless the run that found the changes read them already (workspaceChanges with blobs)
  const blobs =
    read ??
    (await readBlobs(
      s,
      withDiff.flatMap((c) => [c.from, c.to].filter((x): x is NonNullable<typeof x> => !!x && !x.mode.startsWith('160'))),
      b.CHECKPOINT_DIFF_FILE_MAX_BYTES,
    ));
  let total = 0;
  const files: DiffedFile[] = [];
  for (const [i, c] of changes.entries()) {
    const base = { path: c.path, change: c.change, binary: false, additions: 0, deletions: 0, diff: '' };
    if (i >= withDiff.length || c.change === 'mode') {
      files.push(c.change === 'mode' ? { ...base, diff: `mode ${c.from?.mode} → ${c.to?.mode}\n` } : base);
      continue;
    }
    const before = c.from ? blobs.get(c.from.sha) : Buffer.alloc(0);
    const after = c.to ? blobs.get(c.to.sha) : Buffer.alloc(0);
    if (!before || !after) {
      files.push({ ...base, diff: `(not diffed: larger than ${formatBytes(b.CHECKPOINT_DIFF_FILE_MAX_BYTES)})\n` });
      continue;
    }
    if (isBinary(before, b.BINARY_SNIFF_BYTES) || isBinary(after, b.BINARY_SNIFF_BYTES)) {
      files.push({ ...base, binary: true });
      continue;
    }
    const patch = structuredPatch(`a/${c.path}`, `b/${c.path}`, before.toString('utf8'), after.toString('utf8'), undefined, undefined, {
      context: 3,
      timeout: b.DIFF_COMPUTE_MAX_MS,
    });
    let diff = patch ? formatPatch(patch, FILE_HEADERS_ONLY) : `(the diff took too long to compute: ${formatBytes(before.length)} → ${formatBytes(after.length)})\n`;
    let additions = 0;
    let deletions = 0;
    for (const h of patch?.hunks ?? []) {
      for (const l of h.lines) {
        if (l.startsWith('+')) additions++;
        else if (l.startsWith('-')) deletions++;
      }
    }
    if (c.change === 'type') diff = `type ${c.from?.mode} → ${c.to?.mode}\n${diff}`;
    const cut = cutHead(diff, b.CHECKPOINT_DIFF_MAX_BYTES);
    if (cut.cut) {
      diff = `${cut.text.endsWith('\n') ? cut.text : `${cut.text}\n`}[diff cut at ${formatBytes(cut.shownBytes)} of ${formatBytes(cut.totalBytes)}]\n`;
      truncated = true;
    }
    if (total + diff.length > b.CHECKPOINT_DIFFS_MAX_BYTES) {
      files.push({ ...base, additions, deletions, diff: '(diff left out: the answer holds enough diffs already)\n' });
      truncated = true;
      continue;
    }
    total += diff.length;
    files.push({ ...base, additions, deletions, diff });
  }
  return { files, truncated };
}
