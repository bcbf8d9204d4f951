import fs from 'node:fs';
import path from 'node:path';
import type { SkippedFile } from '../contract/rest';
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

/** Paths the snapshot would hold (tracked in the shadow index, or new and not ignored) with whether the index has them. */
async function candidates(s: Shadow): Promise<{ path: string; cached: boolean }[]> {
  const r = await shadowGit(s, ['ls-files', '-z', '-t', '--cached', '--others', '--exclude-standard'], 'listing the files to snapshot');
  const out: { path: string; cached: boolean }[] = [];
  for (const entry of r.stdout.toString('utf8').split('\0')) {
    if (entry.length < 3) continue;
    out.push({ path: entry.slice(2), cached: entry[0] !== '?' });
  }
  return out;
}

/** Stage the workspace into the shadow index, leaving out files over the size cap; write the tree. Call inside serialized(). */
async function stage(s: Shadow): Promise<{ fileCount: number; skipped: SkippedFile[]; script: string }> {
  await ensureShadow(s);
  const max = s.budget.CHECKPOINT_FILE_MAX_BYTES;
  const skipped: SkippedFile[] = [];
  const dropFromIndex: string[] = [];
  let fileCount = 0;
  const seen = new Set<string>();
  for (const c of await candidates(s)) {
    if (seen.has(c.path)) continue;
    seen.add(c.path);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path.join(s.workspace, c.path));
    } catch {
      continue; // deleted since: add -A records the deletion
    }
    if (st.isFile() && st.size > max) {
      skipped.push({ path: c.path, bytes: st.size });
      if (c.cached) dropFromIndex.push(c.path);
      continue;
    }
    fileCount++;
  }
  const specFile = path.join(s.gitDir, 'clamp-pathspec');
  fs.writeFileSync(specFile, ['.', ...skipped.map((f) => `:(exclude,literal)${f.path}`)].join('\0') + '\0');
  const lines = [`${GIT} add -A --pathspec-from-file=${q(specFile)} --pathspec-file-nul`];
  if (dropFromIndex.length) {
    const dropFile = path.join(s.gitDir, 'clamp-drop');
    fs.writeFileSync(dropFile, dropFromIndex.map((p) => `:(literal)${p}`).join('\0') + '\0');
    lines.push(`${GIT} rm -q -f --cached --ignore-unmatch --pathspec-from-file=${q(dropFile)} --pathspec-file-nul`);
  }
  lines.push(`tree=$(${GIT} write-tree)`);
  return { fileCount, skipped, script: lines.join('\n') };
}

/**
 * Snapshot the workspace and commit it onto the session's ref. Serialized per shadow repository.
 * Throws CheckpointError when git fails.
 */
export function takeSnapshot(s: Shadow, sessionId: string, message: string): Promise<Snapshot & { commit: string }> {
  return serialized(s, async () => {
    const st = await stage(s);
    const ref = sessionRef(sessionId);
    const script = [
      st.script,
      `parent=$(${GIT} rev-parse -q --verify ${q(`${ref}^{commit}`)} || true)`,
      `commit=$(${GIT} commit-tree "$tree" \${parent:+-p "$parent"} -m ${q(message)})`,
      `${GIT} update-ref ${q(ref)} "$commit"`,
      'echo "$tree $commit"',
    ].join('\n');
    const r = await shadowScript(s, script, 'taking a checkpoint');
    const [tree = '', commit = ''] = r.stdout.toString('utf8').trim().split(' ');
    return { tree, commit, fileCount: st.fileCount, skipped: st.skipped };
  });
}

/** The workspace as a tree, to compare against a checkpoint (nothing is committed). */
export function currentTree(s: Shadow): Promise<Snapshot> {
  return serialized(s, async () => {
    const st = await stage(s);
    const r = await shadowScript(s, `${st.script}\necho "$tree"`, 'reading the workspace');
    return { tree: r.stdout.toString('utf8').trim(), fileCount: st.fileCount, skipped: st.skipped };
  });
}

/**
 * Make the workspace's files those of `commit`, from the state the index holds (a snapshot taken just
 * before): changed files rewritten, files the commit lacks removed (with folders they leave empty),
 * modes and symlinks as stored. Files the snapshot leaves out (ignored, over the cap) are not touched.
 */
export function restoreTree(s: Shadow, commit: string): Promise<void> {
  return serialized(s, async () => {
    await shadowGit(s, ['read-tree', '-u', '--reset', commit], 'restoring the files', { restores: true });
  });
}

/** One path's state in the index after a checkout of one file from a commit: the file as it was there. */
export function restorePath(s: Shadow, commit: string, file: string): Promise<void> {
  return serialized(s, async () => {
    await shadowGit(s, ['checkout', commit, '--', `:(literal)${file}`], `restoring ${file}`, { restores: true });
  });
}
