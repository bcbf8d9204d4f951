/**
 * Where a command's path arguments land, judged without touching the disk: `~` and $HOME
 * expand to the home directory, relative paths resolve against every directory the command
 * may run in (a `cd` that can fail leaves two), `{a,b}` expands, and a trailing `*` means
 * "everything in that directory".
 */
import path from 'node:path';
import type { Word } from './shell-parse';
import { isInside } from './workspace';
import { DISK_DEVICE, HARMLESS_DEVICE } from './command-tables';

export interface PathScope {
  workspace: string;
  home: string;
  /** directories the command may run in; null = unknown (after `cd $X`) */
  cwds: readonly (string | null)[];
}

export type Place =
  /** deleting it (or everything in it, with `contents`) wrecks the machine, the home or the workspace */
  | { kind: 'catastrophic'; abs: string; desc: string; contents: boolean }
  | { kind: 'device'; abs: string; disk: boolean }
  | { kind: 'unknown'; why: string }
  | { kind: 'outside'; abs: string }
  /** inside the workspace's .git */
  | { kind: 'git'; abs: string }
  | { kind: 'inside'; abs: string };

const RANK: Record<Place['kind'], number> = { catastrophic: 6, device: 5, unknown: 4, outside: 3, git: 2, inside: 1 };

/** The worst of several places (the order the judge cares about). */
export function worstPlace(places: readonly Place[]): Place | undefined {
  let worst: Place | undefined;
  for (const p of places) {
    if (!worst || RANK[p.kind] > RANK[worst.kind] || (p.kind === 'catastrophic' && worst.kind === 'catastrophic' && !p.contents && worst.contents)) worst = p;
  }
  return worst;
}

/** Every place a path word may land, for each brace alternative and each possible working directory. */
export function placesOf(word: Word, scope: PathScope): Place[] {
  if (word.value === null) return [{ kind: 'unknown', why: 'a path only known when it runs' }];
  const out: Place[] = [];
  for (const alt of word.brace ? expandBraces(word.value) : [word.value]) {
    const expanded = word.tilde ? expandTilde(alt, scope.home) : alt;
    if (expanded === null) {
      out.push({ kind: 'unknown', why: 'a path only known when it runs' });
      continue;
    }
    let target = expanded;
    let contents = false;
    if (word.glob) {
      // `dir/*` (or `*`) is everything in dir; any other pattern is some files inside it
      const m = /^(?:(.*)\/)?\*{1,2}\/?$/.exec(target);
      if (m && !/[*?[]/.test(m[1] ?? '')) {
        contents = true;
        target = m[1] || (target.startsWith('/') ? '/' : '.');
      }
    }
    if (path.isAbsolute(target)) out.push(classify(path.resolve(target), contents, scope));
    else {
      for (const cwd of scope.cwds) {
        if (cwd === null) out.push({ kind: 'unknown', why: 'a relative path after a `cd` to a directory only known when it runs' });
        else out.push(classify(path.resolve(cwd, target), contents, scope));
      }
    }
  }
  return out;
}

function classify(abs: string, contents: boolean, scope: PathScope): Place {
  if (abs.startsWith('/dev/') && !contents) return { kind: 'device', abs, disk: DISK_DEVICE.test(abs) };
  const desc = catastrophe(abs, scope);
  if (desc) return { kind: 'catastrophic', abs, desc, contents };
  if (isInside(scope.workspace, abs)) {
    const rel = path.relative(scope.workspace, abs);
    return rel.split(path.sep)[0] === '.git' ? { kind: 'git', abs } : { kind: 'inside', abs };
  }
  return { kind: 'outside', abs };
}

/** Why losing this directory is catastrophic, or null. */
function catastrophe(abs: string, { workspace, home }: PathScope): string | null {
  if (abs === '/') return 'the whole filesystem';
  if (abs === workspace) return 'the workspace root';
  if (abs === home) return 'your home directory';
  if (isInside(abs, workspace)) return `${abs}, which holds the workspace`;
  if (isInside(abs, home)) return `${abs}, which holds your home directory`;
  if (path.dirname(home) !== '/' && path.dirname(abs) === path.dirname(home)) return `the home directory ${abs}`;
  if (path.dirname(abs) === '/') return `the system directory ${abs}`;
  return null;
}

function expandTilde(value: string, home: string): string | null {
  const m = /^~([^/]*)(.*)$/s.exec(value);
  if (!m) return value;
  const [, user, rest] = m;
  if (user === '') return home + rest;
  if (user === '+') return `.${rest}`;
  if (user === '-') return null;
  // another user's home: a sibling of ours is the best guess without reading /etc/passwd
  return path.join(path.dirname(home), user!) + rest;
}

/** Expand unquoted `{a,b}` alternatives (not `{1..3}` ranges), capped so a hostile word stays cheap. */
export function expandBraces(value: string, cap = 64): string[] {
  const m = /\{([^{}]*,[^{}]*)\}/.exec(value);
  if (!m) return [value];
  const head = value.slice(0, m.index);
  const tail = value.slice(m.index + m[0].length);
  const out: string[] = [];
  for (const alt of m[1]!.split(',')) {
    for (const rest of expandBraces(`${head}${alt}${tail}`, cap)) {
      if (out.length >= cap) return out;
      out.push(rest);
    }
  }
  return out;
}

export type WriteVerdict =
  | { tier: 1 | 2; what: string }
  /** a real write inside the workspace (not read-only, nothing worse) */
  | { tier: undefined; what: string }
  /** /dev/null and friends */
  | null;

/** Judge writing one path (a redirect target, tee, dd of=, cp destination …). */
export function judgeWritePath(word: Word, scope: PathScope): WriteVerdict {
  const place = worstPlace(placesOf(word, scope));
  if (!place) return null;
  const shown = word.raw;
  switch (place.kind) {
    case 'device':
      if (HARMLESS_DEVICE.test(place.abs)) return null;
      return place.disk
        ? { tier: 1, what: `writes straight onto the disk device ${place.abs}` }
        : { tier: 2, what: `writes to the device ${place.abs}` };
    case 'unknown':
      return { tier: 2, what: `writes to ${shown}, ${place.why}` };
    case 'catastrophic':
    case 'outside':
      return { tier: 2, what: `writes ${shown} outside the workspace` };
    case 'git':
      return { tier: 2, what: `writes ${shown} inside .git (hooks and config there run code)` };
    case 'inside':
      return { tier: undefined, what: `writes ${shown}` };
  }
}
