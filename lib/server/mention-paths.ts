import fs from 'node:fs';
import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { lettersInOrder } from '../contract/mentions';
import type { MentionCheckAnswer, PathCompletionAnswer } from '../contract/rest';
import { resolveInWorkspace } from '../policy/workspace';
import { listExact } from '../policy/confined-fs';
import { comparePaths, IgnoreRules, type DirInfo } from '../tools/grep/ignore';

/** How long one walk of the workspace serves completions (a person types several letters a second). */
const WALK_REUSE_MS = 5000;

interface Walk {
  at: number;
  entries: { path: string; dir: boolean }[];
  /** the walk stopped at MENTION_SCAN_MAX_FILES */
  capped: boolean;
}
const walks = new Map<string, Walk>();

/** The workspace's files and folders as glob sees them (its ignore rules: .git, node_modules, .gitignore …), breadth first, at most MENTION_SCAN_MAX_FILES. */
function walk(workspace: string): Walk {
  const hit = walks.get(workspace);
  if (hit && Date.now() - hit.at < WALK_REUSE_MS) return hit;
  const rules = new IgnoreRules(workspace, '.', process.env.CLAMP_IGNORE);
  const entries: Walk['entries'] = [];
  const queue: DirInfo[] = [rules.start];
  let capped = false;
  outer: while (queue.length > 0) {
    const entered = queue.shift()!;
    // listed through the folder itself, where the walk expects it: a folder swapped for a link is not listed
    const names = listExact(entered.rel ? path.join(workspace, entered.rel) : workspace);
    if (!names) continue;
    // the folder's own .gitignore joins its rules now, read only when the listing holds one
    const dir = rules.listed(entered, names);
    names.sort((a, b) => comparePaths(a.name, b.name));
    for (const d of names) {
      if (entries.length >= BUDGET.MENTION_SCAN_MAX_FILES) {
        capped = true;
        break outer;
      }
      const rel = dir.rel ? `${dir.rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        const child = rules.enter(dir, d.name);
        if (!child) continue;
        entries.push({ path: rel, dir: true });
        queue.push(child);
      } else if (d.isFile() && !rules.fileIgnored(dir, rel)) {
        entries.push({ path: rel, dir: false });
      }
    }
  }
  const w = { at: Date.now(), entries, capped };
  walks.set(workspace, w);
  return w;
}

/** Lower is better: the name starts with the query, the path does, the name holds it, the path does, its letters in order. */
function score(p: string, q: string): number {
  if (!q) return p.split('/').length;
  const lower = p.toLowerCase();
  const base = lower.slice(lower.lastIndexOf('/') + 1);
  if (base.startsWith(q)) return 0;
  if (lower.startsWith(q)) return 1;
  if (base.includes(q)) return 2;
  if (lower.includes(q)) return 3;
  return lettersInOrder(lower, q) ? 4 : -1;
}

/** GET /api/paths?q=: workspace paths matching what follows the @, best first, at most MENTION_COMPLETIONS_MAX_ITEMS. */
export function completePaths(workspace: string, query: string): PathCompletionAnswer {
  const q = query.toLowerCase().replace(/^\.\//, '');
  const w = walk(workspace);
  const ranked = w.entries
    .map((e) => ({ e, s: score(e.path, q) }))
    .filter((x) => x.s >= 0)
    .sort((a, b) => a.s - b.s || a.e.path.length - b.e.path.length || comparePaths(a.e.path, b.e.path));
  const max = BUDGET.MENTION_COMPLETIONS_MAX_ITEMS;
  return { items: ranked.slice(0, max).map((x) => x.e), more: ranked.length > max, scanCapped: w.capped };
}

/** GET /api/paths?check=: whether a mention names a file in the workspace, and if not, what the model would be told. */
export function checkMention(workspace: string, p: string): MentionCheckAnswer {
  try {
    const { abs, rel } = resolveInWorkspace(workspace, p, 'read');
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    if (!st) return { path: p, ok: false, error: `No file ${rel} in the workspace.` };
    if (!st.isFile()) return { path: p, ok: false, error: `${rel} is a folder, not a file.` };
    return { path: p, ok: true };
  } catch (err) {
    return { path: p, ok: false, error: (err as Error).message };
  }
}
