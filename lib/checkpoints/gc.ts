import fs from 'node:fs';
import path from 'node:path';
import { budgetTable, type Budget } from '../contract/budget';
import { walkFiles } from '../store/retention';
import { GIT, q, serialized, shadowGit, shadowScript, type Shadow } from './shadow';
import { sessionRef } from './snapshot';

/**
 * Garbage collection of the shadow repositories (`<dataDir>/checkpoints/*`). Every checkpoint of a session is
 * reachable from its ref (each is committed onto the one before: snapshot.ts), so dropping the refs of sessions
 * that no longer exist and pruning what is unreachable never takes what a remaining session's rewind needs.
 * Unreachable objects are pruned only once older than the cut-off (the retention period), as git's own gc does,
 * so a snapshot another process is taking right now keeps its new objects.
 */

export interface ShadowGcReport {
  repositories: number;
  refsDropped: number;
  freedBytes: number;
  errors: string[];
}

const SESSION_REFS = 'refs/clamp/sessions';
/** the file in a shadow repository holding when it was last collected (ms, the retention's clock) */
const STAMP_FILE = 'clamp-gc-at';
const GC_EVERY_MS = 24 * 60 * 60_000;

/** The shadow repositories in the data dir (folders with a HEAD). */
export function shadowDirs(dataDir: string): string[] {
  const root = path.join(dataDir, 'checkpoints');
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  return names.map((n) => path.join(root, n)).filter((d) => fs.existsSync(path.join(d, 'HEAD')));
}

/** A shadow repository opened by its folder alone: gc needs no work tree, so its own folder stands in for one. */
function shadowAt(dataDir: string, gitDir: string, budget: Budget): Shadow {
  return { workspace: gitDir, dataDir, gitDir, indexFile: path.join(gitDir, 'clamp-index'), budget };
}

function folderBytes(dir: string): number {
  let n = 0;
  walkFiles(dir, (_p, st) => (n += st.size));
  return n;
}

/** git's form of a time: seconds since the epoch with its zone. */
function gitDate(ms: number): string {
  return `${Math.floor(ms / 1000)} +0000`;
}

function lastGcAt(gitDir: string): number {
  try {
    return Number(fs.readFileSync(path.join(gitDir, STAMP_FILE), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** One repository: drop refs of sessions not in `live`, then (when due, forced or refs went) expire reflogs and prune. */
async function collectOne(s: Shadow, o: GcOptions): Promise<{ dropped: number; freed: number; ran: boolean }> {
  return serialized(s, async () => {
    const refs = (await shadowGit(s, ['for-each-ref', '--format=%(refname)', SESSION_REFS], 'listing the sessions\' refs')).stdout.toString('utf8').split('\n').filter(Boolean);
    const keep = new Set([...o.liveSessions].map(sessionRef));
    const drop = refs.filter((r) => !keep.has(r));
    const due = o.force || drop.length > 0 || o.now - lastGcAt(s.gitDir) >= GC_EVERY_MS;
    if (!due) return { dropped: 0, freed: 0, ran: false };
    const before = folderBytes(s.gitDir);
    const cut = gitDate(o.pruneBefore);
    const script = [
      ...drop.map((r) => `${GIT} update-ref -d ${q(r)}`),
      `${GIT} reflog expire --all --expire=${q(cut)} --expire-unreachable=${q(cut)}`,
      // prune, not gc: gc starts other gits (pack-refs, repack), which the shadow's exec path refuses (isolation.ts)
      `${GIT} prune --expire=${q(cut)}`,
    ].join('\n');
    await shadowScript(s, script, 'collecting garbage');
    fs.writeFileSync(path.join(s.gitDir, STAMP_FILE), String(o.now));
    return { dropped: drop.length, freed: Math.max(0, before - folderBytes(s.gitDir)), ran: true };
  });
}

export interface GcOptions {
  /** ids of the sessions that exist (every workspace's): their refs stay */
  liveSessions: ReadonlySet<string>;
  /** unreachable objects older than this (ms since the epoch) are pruned */
  pruneBefore: number;
  /** the clock */
  now: number;
  /** collect every repository now (else each at most daily, or at once when a session's ref was dropped) */
  force?: boolean;
  budget?: Budget;
}

/** Collect every shadow repository of the data dir. Never throws: a repository that fails is named in `errors`. */
export async function collectShadows(dataDir: string, o: GcOptions): Promise<ShadowGcReport> {
  const report: ShadowGcReport = { repositories: 0, refsDropped: 0, freedBytes: 0, errors: [] };
  const budget = o.budget ?? budgetTable();
  for (const dir of shadowDirs(dataDir)) {
    try {
      const r = await collectOne(shadowAt(dataDir, dir, budget), o);
      if (r.ran) report.repositories++;
      report.refsDropped += r.dropped;
      report.freedBytes += r.freed;
    } catch (err) {
      report.errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  return report;
}

/** Whether a shadow repository holds the session's ref (loose or packed), read as files. */
function holdsRef(gitDir: string, ref: string): boolean {
  if (fs.existsSync(path.join(gitDir, ref))) return true;
  try {
    return fs.readFileSync(path.join(gitDir, 'packed-refs'), 'utf8').includes(` ${ref}\n`);
  } catch {
    return false;
  }
}

/** Drop a deleted session's ref from every shadow repository holding it (its objects go at a later gc). Answers how many went; never throws. */
export async function dropSessionRefs(dataDir: string, sessionId: string, budget: Budget = budgetTable()): Promise<number> {
  const ref = sessionRef(sessionId);
  let n = 0;
  for (const dir of shadowDirs(dataDir).filter((d) => holdsRef(d, ref))) {
    const s = shadowAt(dataDir, dir, budget);
    try {
      await serialized(s, () => shadowGit(s, ['update-ref', '-d', ref], 'dropping a deleted session\'s ref'));
      n++;
    } catch {
      // the next clean-up drops it (its session is gone)
    }
  }
  return n;
}
