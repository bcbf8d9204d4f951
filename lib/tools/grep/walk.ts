/**
 * The sorted depth-first walk glob and grep share: folders are listed synchronously, their entries
 * sorted by name, so files come in path order (comparePaths) and the first N are always the same N.
 * The ignore rules are applied on the way (a skipped folder is never listed); symlinks, sockets and
 * fifos are neither followed nor returned. A folder is listed through itself, opened at its path with its
 * real path checked to be that path (confined-fs.ts listExact): one swapped for a link while the walk runs
 * counts as one that could not be listed, and nothing behind the link is seen. The caller slices the work: `pull` returns after at most
 * a given number of folder listings, so a walk that finds nothing still hands back control.
 */
import fs from 'node:fs';
import type { DirInfo, IgnoreRules } from './ignore';
import { listExact } from '../../policy/confined-fs';

export interface WalkFile {
  abs: string;
  /** workspace-relative */
  rel: string;
  /** relative to the folder the search starts from (rules.start) */
  relToStart: string;
  name: string;
}

/** Folders that could not be listed: how many, and the first three. */
export interface Unlisted {
  count: number;
  samples: string[];
}

export interface WalkOptions {
  /** false leaves a folder unlisted before the ignore rules judge it (so it is not counted as ignored) */
  descend?: (dirent: fs.Dirent, relToStart: string) => boolean;
  /** false passes over a file before the ignore rules judge it (so it is not counted as ignored) */
  accept?: (dirent: fs.Dirent, relToStart: string) => boolean;
  /** where folders that cannot be listed are noted */
  unlisted?: Unlisted;
}

interface Frame {
  info: DirInfo;
  abs: string;
  /** the folder relative to rules.start ('' for the start itself) */
  relToStart: string;
  entries: fs.Dirent[];
  i: number;
}

const byName = (a: fs.Dirent, b: fs.Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Returned by `pull` when it listed its quota of folders without reaching a file. */
export const PAUSE = 'pause';

/**
 * A walk of the regular files below `from` (the start folder or one below it, already entered),
 * in path order. Also an Iterator, for callers that take one file at a time.
 */
export class SortedWalk implements IterableIterator<WalkFile> {
  private readonly stack: Frame[] = [];
  private readonly startLength: number;

  constructor(
    private readonly rules: IgnoreRules,
    from: DirInfo,
    fromAbs: string,
    private readonly opts: WalkOptions = {},
  ) {
    this.startLength = rules.start.rel === '' ? 0 : rules.start.rel.length + 1;
    this.list(from, fromAbs, from.rel.slice(this.startLength));
  }

  private list(info: DirInfo, abs: string, relToStart: string): void {
    // listed through the folder itself, opened where the walk expects it: a link swapped in is not walked
    const entries = listExact(abs);
    if (entries === null) {
      this.rules.listed(info, null);
      const u = this.opts.unlisted;
      if (u) {
        u.count++;
        if (u.samples.length < 3) u.samples.push(info.rel || '.');
      }
      return;
    }
    entries.sort(byName);
    this.stack.push({ info: this.rules.listed(info, entries), abs, relToStart, entries, i: 0 });
  }

  /** The next file; PAUSE after listing `maxDirs` folders without reaching one; null at the end. */
  pull(maxDirs = Infinity): WalkFile | typeof PAUSE | null {
    const { descend, accept } = this.opts;
    let listedDirs = 0;
    while (this.stack.length > 0) {
      const top = this.stack[this.stack.length - 1];
      if (top.i === top.entries.length) {
        this.stack.pop();
        continue;
      }
      const e = top.entries[top.i++];
      const name = e.name;
      if (e.isDirectory()) {
        const relToStart = top.relToStart === '' ? name : `${top.relToStart}/${name}`;
        if (descend && !descend(e, relToStart)) continue;
        const child = this.rules.enter(top.info, name);
        if (!child) continue;
        this.list(child, `${top.abs}/${name}`, relToStart);
        if (++listedDirs >= maxDirs) return PAUSE;
      } else if (e.isFile()) {
        const relToStart = top.relToStart === '' ? name : `${top.relToStart}/${name}`;
        if (accept && !accept(e, relToStart)) continue;
        const rel = top.info.rel === '' ? name : `${top.info.rel}/${name}`;
        if (this.rules.fileIgnored(top.info, rel)) continue;
        return { abs: `${top.abs}/${name}`, rel, relToStart, name };
      }
    }
    return null;
  }

  next(): IteratorResult<WalkFile> {
    const f = this.pull();
    return f === null || f === PAUSE ? { done: true, value: undefined } : { done: false, value: f };
  }

  [Symbol.iterator](): this {
    return this;
  }
}
