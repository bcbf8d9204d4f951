/**
 * The optional ripgrep path. rg never produces grep's output: it only answers, per file, "this file
 * certainly has no line containing the literal" (rg -F over the same tree, in parallel native code).
 * The built-in engine skips reading those files and reads everything else itself, so the result is the
 * built-in result by construction: same sorting, caps, skip counts and text. Only misses are trusted;
 * files rg did not report (over the size cap, unreadable, odd names) are read by the built-in path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';

/** Absolute path of an executable `rg` on PATH, or null. Looked up per call (nothing is bound at import time). */
export function findRg(envPath: string | undefined): string | null {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'rg');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

export interface RgPrefilterOptions {
  rg: string;
  /** absolute folder rg walks; reported paths are relative to it */
  cwd: string;
  /** a substring every matching line contains; with ignoreCase it must be ASCII (rg folds a superset of JS's /i) */
  literal: string;
  ignoreCase: boolean;
  /** files larger than this are left to the built-in path (which counts them as skipped) */
  maxFileBytes: number;
  /** folder names to prune (the default skip list; ignore files are the built-in walker's business) */
  skipDirs: readonly string[];
  signal: AbortSignal;
}

/** A running rg scan; `noMatch` can answer as soon as rg has reported a file (each record is final). */
export interface RgPrefilter {
  readonly done: boolean;
  /** resolves when rg has exited (successfully or not); never rejects */
  readonly finished: Promise<void>;
  /** true when rg has searched this file (path relative to cwd, '/'-separated) and found no line with the literal */
  noMatch(rel: string): boolean;
  stop(): void;
}

/** Start rg in the background. Never throws: if rg cannot run, the prefilter simply never answers. */
export function startRgPrefilter(o: RgPrefilterOptions): RgPrefilter {
  const misses = new Set<string>();
  let done = false;
  let resolve!: () => void;
  const finished = new Promise<void>((r) => (resolve = r));
  const args = [
    '--no-config', '--no-ignore', '--hidden', '--no-messages',
    '--text', // never skip binary files: binary detection is the built-in path's
    '--encoding', 'none', // search raw bytes like the built-in path (no UTF-16 BOM transcoding)
    '--files-without-match', '--null', // exactly the misses, each path followed by NUL
    '--max-filesize', String(o.maxFileBytes),
    ...(o.ignoreCase ? ['--ignore-case'] : ['--case-sensitive']),
    ...o.skipDirs.flatMap((d) => ['--glob', `!${d}/`]),
    '--fixed-strings', '--regexp', o.literal,
  ];
  const finish = () => {
    if (done) return;
    done = true;
    o.signal.removeEventListener('abort', stop);
    resolve();
  };
  let child: ReturnType<typeof spawn> | undefined;
  const stop = () => {
    child?.kill('SIGKILL');
    finish();
  };
  try {
    child = spawn(o.rg, args, { cwd: o.cwd, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    finish();
    return { get done() { return done; }, finished, noMatch: () => false, stop };
  }
  let rest = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    const recs = (rest + chunk).split('\0');
    rest = recs.pop()!; // an unfinished path waits for the next chunk
    for (const r of recs) misses.add(r);
  });
  child.on('error', finish);
  // exit code 2 (some file unreadable) still leaves valid records for the files rg did search
  child.on('close', finish);
  o.signal.addEventListener('abort', stop, { once: true });
  return {
    get done() {
      return done;
    },
    finished,
    noMatch: (rel) => misses.has(rel),
    stop,
  };
}
