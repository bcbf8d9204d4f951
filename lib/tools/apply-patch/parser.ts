/**
 * Parse the `*** Begin Patch` / `*** End Patch` format (pure, no I/O). Errors name the patch line
 * and what was expected there, so the model can fix the patch rather than guess.
 */

export type HunkLine = { op: ' ' | '-' | '+'; text: string };

/** One `@@` block: context and changes, matched after the previous hunk of the same file. */
export interface Hunk {
  /** text after `@@`: a line near the change that narrows the search */
  anchor?: string;
  lines: HunkLine[];
  /** `*** End of File` closed this hunk: it must match at the end of the file */
  endOfFile: boolean;
  /** 1-based line of the patch where the hunk starts */
  patchLine: number;
}

export type PatchOp =
  | { kind: 'add'; path: string; contents: string; patchLine: number }
  | { kind: 'delete'; path: string; patchLine: number }
  | { kind: 'update'; path: string; moveTo?: string; hunks: Hunk[]; patchLine: number };

/** A patch that cannot be parsed; line is 1-based in the patch text (0 when it is about the whole patch). */
export class PatchParseError extends Error {
  constructor(
    public readonly line: number,
    message: string,
  ) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.name = 'PatchParseError';
  }
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const HEADER = /^\*\*\* (Add File|Update File|Delete File|Move to): ?(.*)$/;
// "@@ -12,7 +12,8 @@ text" from unified diffs: the numbers are ignored, the trailing text is the anchor
const NUMBERED_HUNK = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

/** Every path a patch's file headers name (Add, Update, Delete and Move to), for confinement. Never throws. */
export function patchPaths(patch: string): { path: string; header: string }[] {
  const out: { path: string; header: string }[] = [];
  for (const raw of patch.split(/\r?\n/)) {
    const m = HEADER.exec(raw.trim());
    if (m && m[2].trim() !== '') out.push({ path: m[2].trim(), header: m[1] });
  }
  return out;
}

function dropTrailingBlank(lines: { raw: string }[]): void {
  while (lines.length && lines[lines.length - 1].raw === '') lines.pop();
}

/** Parse a patch into operations; throws PatchParseError naming the line and what was expected. */
export function parsePatch(patch: string): PatchOp[] {
  const all = patch.split(/\r?\n/).map((raw, i) => ({ raw, n: i + 1 }));
  let first = 0;
  while (first < all.length && all[first].raw.trim() === '') first++;
  let last = all.length - 1;
  while (last >= first && all[last].raw.trim() === '') last--;
  if (first > last || all[first].raw.trim() !== BEGIN) {
    throw new PatchParseError(first <= last ? all[first].n : 0, `the patch must start with "${BEGIN}"`);
  }
  if (last === first || all[last].raw.trim() !== END) {
    throw new PatchParseError(all[last].n, `the patch must end with "${END}"`);
  }
  const body = all.slice(first + 1, last);
  const ops: PatchOp[] = [];
  const seen = new Map<string, number>();
  const claim = (path: string, n: number) => {
    const before = seen.get(path);
    if (before !== undefined) {
      throw new PatchParseError(n, `${path} already appears at line ${before}; put every change to one file under a single operation`);
    }
    seen.set(path, n);
  };

  let i = 0;
  while (i < body.length) {
    const { raw, n } = body[i];
    if (raw.trim() === '') {
      i++;
      continue;
    }
    const h = HEADER.exec(raw.trim());
    if (!h || h[1] === 'Move to') {
      throw new PatchParseError(n, `expected "*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>", got ${JSON.stringify(raw)}`);
    }
    const path = h[2].trim();
    if (path === '') throw new PatchParseError(n, `"*** ${h[1]}:" needs a path after the colon`);
    claim(path, n);
    // the section runs to the next file header
    let j = i + 1;
    const section: { raw: string; n: number }[] = [];
    while (j < body.length) {
      const m = HEADER.exec(body[j].raw.trim());
      if (m && m[1] !== 'Move to') break;
      section.push(body[j]);
      j++;
    }
    dropTrailingBlank(section);
    if (h[1] === 'Add File') ops.push(parseAdd(path, n, section));
    else if (h[1] === 'Delete File') {
      if (section.length) throw new PatchParseError(section[0].n, `"*** Delete File: ${path}" takes no lines after it`);
      ops.push({ kind: 'delete', path, patchLine: n });
    } else ops.push(parseUpdate(path, n, section, claim));
    i = j;
  }
  if (ops.length === 0) throw new PatchParseError(0, 'the patch has no file operations between its Begin and End lines');
  return ops;
}

function parseAdd(path: string, n: number, section: { raw: string; n: number }[]): PatchOp {
  const lines: string[] = [];
  for (const l of section) {
    if (l.raw.startsWith('+')) lines.push(l.raw.slice(1));
    else if (l.raw === '') lines.push('');
    else throw new PatchParseError(l.n, `every line of "*** Add File: ${path}" must start with "+", got ${JSON.stringify(l.raw)}`);
  }
  return { kind: 'add', path, contents: lines.length ? `${lines.join('\n')}\n` : '', patchLine: n };
}

function parseUpdate(path: string, n: number, section: { raw: string; n: number }[], claim: (p: string, n: number) => void): PatchOp {
  let k = 0;
  let moveTo: string | undefined;
  const mv = section.length ? HEADER.exec(section[0].raw.trim()) : null;
  if (mv && mv[1] === 'Move to') {
    moveTo = mv[2].trim();
    if (!moveTo) throw new PatchParseError(section[0].n, '"*** Move to:" needs a path after the colon');
    claim(moveTo, section[0].n);
    k = 1;
  }
  const hunks: Hunk[] = [];
  let cur: Hunk | undefined;
  for (; k < section.length; k++) {
    const { raw, n: ln } = section[k];
    if (raw.startsWith('@@')) {
      const num = NUMBERED_HUNK.exec(raw);
      const anchor = (num ? num[1] : raw.slice(2)).trim();
      cur = { ...(anchor ? { anchor } : {}), lines: [], endOfFile: false, patchLine: ln };
      hunks.push(cur);
      continue;
    }
    if (raw.trim() === '*** End of File') {
      if (!cur) throw new PatchParseError(ln, '"*** End of File" must close a hunk');
      cur.endOfFile = true;
      cur = undefined;
      continue;
    }
    if (HEADER.exec(raw.trim())) throw new PatchParseError(ln, '"*** Move to:" must come right after its "*** Update File:" line');
    const op = raw === '' ? ' ' : raw[0];
    if (op !== ' ' && op !== '-' && op !== '+') {
      throw new PatchParseError(ln, `a hunk line must start with " " (context), "-" (remove) or "+" (add), or be an "@@" line; got ${JSON.stringify(raw)}`);
    }
    if (!cur) {
      cur = { lines: [], endOfFile: false, patchLine: ln };
      hunks.push(cur);
    }
    cur.lines.push({ op, text: raw.slice(1) });
  }
  if (!hunks.length && moveTo === undefined) throw new PatchParseError(n, `"*** Update File: ${path}" has no hunks and no "*** Move to:"`);
  hunks.forEach((hk, idx) => {
    if (!hk.lines.some((l) => l.op !== ' ')) {
      throw new PatchParseError(hk.patchLine, `hunk ${idx + 1} of ${path} has no "-" or "+" lines; it changes nothing`);
    }
  });
  return { kind: 'update', path, ...(moveTo !== undefined ? { moveTo } : {}), hunks, patchLine: n };
}

/** A hunk that does not fit the file; index is 0-based, fromLine 1-based. */
export class HunkError extends Error {
  constructor(
    public readonly index: number,
    public readonly reason: 'anchor' | 'context',
    /** the first file line searched */
    public readonly fromLine: number,
    /** the anchor, or the context and removed lines the hunk needs */
    public readonly expected: string[],
  ) {
    super(reason === 'anchor' ? 'the @@ anchor line was not found' : 'context not found');
    this.name = 'HunkError';
  }
}

/** Where `want` occurs in lines at or after `from` (-1 if nowhere); `eq` compares two lines. */
function seek(lines: string[], want: string[], from: number, eof: boolean, eq: (a: string, b: string) => boolean): number {
  const fits = (at: number) => want.every((w, t) => eq(lines[at + t], w));
  // an End of File hunk belongs at the end: try there first
  if (eof && lines.length - want.length >= from && fits(lines.length - want.length)) return lines.length - want.length;
  for (let at = from; at + want.length <= lines.length; at++) if (fits(at)) return at;
  return -1;
}

const exactEq = (a: string, b: string) => a === b;
const trailingEq = (a: string, b: string) => a.trimEnd() === b.trimEnd();

/**
 * Apply hunks to working text (LF), in order, each searched after the previous one. Context lines
 * keep the file's own text (so tolerated whitespace drift is not written back). Throws HunkError.
 * Returns the new text and the indices of hunks that matched only when trailing whitespace was ignored.
 */
export function applyHunks(text: string, hunks: Hunk[]): { text: string; loose: number[] } {
  const hadNl = text.endsWith('\n');
  const lines = text === '' ? [] : text.split('\n');
  if (hadNl) lines.pop();
  const loose: number[] = [];
  let cursor = 0;
  hunks.forEach((h, idx) => {
    if (h.anchor !== undefined) {
      const a = h.anchor.trim();
      let at = lines.findIndex((l, i) => i >= cursor && l.trim() === a);
      if (at === -1) at = lines.findIndex((l, i) => i >= cursor && l.includes(a));
      if (at === -1) throw new HunkError(idx, 'anchor', cursor + 1, [h.anchor]);
      cursor = at + 1;
    }
    const want = h.lines.filter((l) => l.op !== '+').map((l) => l.text);
    let at: number;
    if (want.length === 0) {
      at = h.endOfFile || h.anchor === undefined ? lines.length : cursor;
    } else {
      at = seek(lines, want, cursor, h.endOfFile, exactEq);
      if (at === -1) {
        at = seek(lines, want, cursor, h.endOfFile, trailingEq);
        if (at === -1) throw new HunkError(idx, 'context', cursor + 1, h.lines.filter((l) => l.op !== '+').map((l) => `${l.op}${l.text}`));
        loose.push(idx);
      }
    }
    const out: string[] = [];
    let k = at;
    for (const l of h.lines) {
      if (l.op === ' ') out.push(lines[k++]);
      else if (l.op === '-') k++;
      else out.push(l.text);
    }
    lines.splice(at, want.length, ...out);
    cursor = at + out.length;
  });
  const body = lines.join('\n');
  return { text: lines.length && (hadNl || text === '') ? `${body}\n` : body, loose };
}
