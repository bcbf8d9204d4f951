import fs from 'node:fs';
import path from 'node:path';
import type { SkippedFile } from '../contract/rest';
import { blobsScript, DIFF_TREE, parseBatch, parseRawDiff, wantedBlobsScript, type TreeChange } from './diff';
import { ensureShadow, GIT, q, serialized, shadowGit, shadowScript, type Shadow } from './shadow';

/**
 * Snapshots into the shadow repository. The kept index makes `git add -A` stat-only for files that
 * did not change, so an incremental snapshot costs a scan, not a copy; the tree is written with
 * write-tree and committed with commit-tree onto the session's previous checkpoint (refs per session).
 */

export interface Snapshot {
  tree: string;
  /** the commit (absent for a tree taken only to compare) */
  commit?: string;
  fileCount: number;
  skipped: SkippedFile[];
}

/** The session's ref in the shadow repository. */
export function sessionRef(sessionId: string): string {
  return `refs/clamp/sessions/${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Where a snapshot's run leaves the files over the size cap (`<size> <path>` NUL-separated), for the answer. */
const SKIPPED_FILE = 'clamp-skipped';

/**
 * The lines of a snapshot's script that stage the workspace into the shadow index and write its tree ($tree),
 * all in the one sandboxed run: list what the snapshot would hold (tracked in the shadow index, or new and not
 * ignored), find the files over the size cap among them (find lstat-s each listed path: a link is not followed, a
 * FIFO not opened), stage the rest with add -A (stat-only for unchanged files: the index is kept), drop from the
 * index the big files it held, and write the tree. A listed path gone since (or unreadable) is left to add -A; find
 * failing otherwise fails the run, so the cap never silently lapses. Call inside serialized().
 */
function stageScript(s: Shadow): string {
  const f = (name: string) => q(path.join(s.gitDir, name));
  const [list, excluded, spec, drop, skipped, err] = ['clamp-list', 'clamp-excluded', 'clamp-pathspec', 'clamp-drop', SKIPPED_FILE, 'clamp-find-errors'].map(f);
  const big = `-maxdepth 0 -type f -size +${Math.max(0, Math.floor(s.budget.CHECKPOINT_FILE_MAX_BYTES))}c`;
  return [
    `${GIT} ls-files -z --cached --others --exclude-standard > ${list}`,
    `if ! find -files0-from ${list} ${big} -printf ':(exclude,literal)%p\\0' -fprintf ${skipped} '%s %p\\0' > ${excluded} 2> ${err}; then`,
    `  if grep -v -e 'No such file or directory$' -e 'Permission denied$' ${err} >&2; then exit 1; fi`,
    'fi',
    `{ printf '.\\0'; cat ${excluded}; } > ${spec}`,
    `${GIT} add -A --pathspec-from-file=${spec} --pathspec-file-nul`,
    `if [ -s ${skipped} ]; then`,
    `  sed -z 's/^:(exclude,literal)/:(literal)/' ${excluded} > ${drop}`,
    `  ${GIT} rm -q -f --cached --ignore-unmatch --pathspec-from-file=${drop} --pathspec-file-nul`,
    'fi',
    `tree=$(${GIT} write-tree)`,
    `count=$(${GIT} ls-files -z --cached | tr -cd '\\0' | wc -c)`,
  ].join('\n');
}

/** The files the last staging left out for their size (read after the run, from the shadow repository). */
function skippedFiles(s: Shadow): SkippedFile[] {
  const out = new Map<string, number>();
  let text = '';
  try {
    text = fs.readFileSync(path.join(s.gitDir, SKIPPED_FILE), 'utf8');
  } catch {
    return [];
  }
  for (const entry of text.split('\0')) {
    const at = entry.indexOf(' ');
    if (at > 0) out.set(entry.slice(at + 1), Number(entry.slice(0, at)));
  }
  return [...out].map(([p, bytes]) => ({ path: p, bytes }));
}

/** A snapshot's first output line (`<tree> [<commit>] <count>`) and what follows it. */
function firstLine(out: Buffer): { words: string[]; rest: Buffer } {
  const nl = out.indexOf(10);
  const head = (nl < 0 ? out : out.subarray(0, nl)).toString('utf8').trim();
  return { words: head.split(/\s+/), rest: nl < 0 ? Buffer.alloc(0) : out.subarray(nl + 1) };
}

/**
 * Snapshot the workspace and commit it onto the session's ref: one sandboxed run (the shadow repository made
 * first in it when it is new). Serialized per shadow repository. Throws CheckpointError when git fails.
 */
export function takeSnapshot(s: Shadow, sessionId: string, message: string): Promise<Snapshot & { commit: string }> {
  return serialized(s, async () => {
    const ref = sessionRef(sessionId);
    const script = [
      ensureShadow(s),
      stageScript(s),
      `parent=$(${GIT} rev-parse -q --verify ${q(`${ref}^{commit}`)} || true)`,
      `commit=$(${GIT} commit-tree "$tree" \${parent:+-p "$parent"} -m ${q(message)})`,
      `${GIT} update-ref ${q(ref)} "$commit"`,
      'echo "$tree $commit $count"',
    ].join('\n');
    const r = await shadowScript(s, script, 'taking a checkpoint');
    const [tree = '', commit = '', count = '0'] = firstLine(r.stdout).words;
    return { tree, commit, fileCount: Number(count), skipped: skippedFiles(s) };
  });
}

/** The workspace as a tree, to compare against a checkpoint (nothing is committed): one sandboxed run. */
export function currentTree(s: Shadow): Promise<Snapshot> {
  return workspaceChanges(s, {});
}

/**
 * The workspace as a tree (nothing is committed) and, in the same sandboxed run, the files that differ between it
 * and a commit: `from` a commit to the workspace, or from the workspace `to` a commit (none when neither is given);
 * with `blobs`, also the contents diffChanges reads (read in that run too).
 */
export function workspaceChanges(s: Shadow, o: { from?: string; to?: string; blobs?: boolean }): Promise<Snapshot & { changes: TreeChange[]; blobs?: Map<string, Buffer> }> {
  return serialized(s, async () => {
    const lines = [ensureShadow(s), stageScript(s)];
    const ends = o.from !== undefined ? [q(o.from), '"$tree"'] : o.to !== undefined ? ['"$tree"', q(o.to)] : undefined;
    if (!ends) lines.push('echo "$tree $count"');
    else if (!o.blobs) lines.push('echo "$tree $count"', `${DIFF_TREE} ${ends[0]} ${ends[1]}`);
    else {
      const [changes, wanted] = [q(path.join(s.gitDir, 'clamp-changes')), q(path.join(s.gitDir, 'clamp-wanted'))];
      // the tree, the changes (their length first) and the blobs, one after the other on stdout
      lines.push(`${DIFF_TREE} ${ends[0]} ${ends[1]} > ${changes}`, wantedBlobsScript(s, ends[0]!, ends[1]!, wanted));
      lines.push(`echo "$tree $count $(wc -c < ${changes})"`, `cat ${changes}`, blobsScript(wanted, s.budget.CHECKPOINT_DIFF_FILE_MAX_BYTES));
    }
    const r = await shadowScript(s, lines.join('\n'), 'reading the workspace');
    const { words, rest } = firstLine(r.stdout);
    const diffBytes = o.blobs && ends ? Number(words[2] ?? 0) : rest.length;
    const changes = ends ? parseRawDiff(rest.subarray(0, diffBytes).toString('utf8')) : [];
    const snap = { tree: words[0] ?? '', fileCount: Number(words[1] ?? 0), skipped: skippedFiles(s), changes };
    return o.blobs && ends ? { ...snap, blobs: parseBatch(rest.subarray(diffBytes)) } : snap;
  });
}

/**
 * Make the workspace's files those of `commit`, from the state the index holds (a snapshot taken just
 * before): changed files rewritten, files the commit lacks removed (with folders they leave empty),
 * modes and symlinks as stored. Files the snapshot leaves out (ignored, over the cap) are not touched.
 * With `from` (that snapshot's commit), the files that differ from it to `commit` come back, listed in the same run.
 */
export function restoreTree(s: Shadow, commit: string, from?: string): Promise<TreeChange[]> {
  return serialized(s, async () => {
    const lines = [`${GIT} read-tree -u --reset ${q(commit)}`];
    if (from !== undefined) lines.unshift(`${DIFF_TREE} ${q(from)} ${q(commit)}`);
    const r = await shadowScript(s, lines.join('\n'), 'restoring the files', { restores: true });
    return from !== undefined ? parseRawDiff(r.stdout.toString('utf8')) : [];
  });
}

/** One path's state in the index after a checkout of one file from a commit: the file as it was there. */
export function restorePath(s: Shadow, commit: string, file: string): Promise<void> {
  return serialized(s, async () => {
    await shadowGit(s, ['checkout', commit, '--', `:(literal)${file}`], `restoring ${file}`, { restores: true });
  });
}
