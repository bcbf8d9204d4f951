import { z } from 'zod';
import { readGuardOf } from '../../contract/permission-rest';
import { defineTool } from '../../contract/types';
import { nestedRepetition } from './regex-safety';
import { ToolError, type ToolOutput, type ToolResult } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { fitWithNote, formatBytes, formatCount } from '../../contract/text';
import { confinedPath } from '../../contract/paths';
import { CLAMPIGNORE_FILE, globToRegExp, searchStart } from './ignore';
import { search, type CompiledPattern, type EngineChoice, type SearchResult, type Skipped } from './engine';
import { keepLines, plural, present, type Shown } from './present';

const schema = z.strictObject({
  pattern: z.string().describe('JavaScript regular expression; with literal: true, plain text.'),
  path: z.string().optional().describe('Folder or file to search (default: the workspace root).'),
  include: z.string().optional().describe("Glob on the relative path or file name, e.g. '*.ts', 'src/**/*.tsx'."),
  literal: z.boolean().optional().describe('Match the pattern as plain text.'),
  ignore_case: z.boolean().optional(),
  context: z.number().int().min(0).optional().describe('Lines before and after each match (default 0).'),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe('content (default): path:line:text; files_with_matches: paths; count: path:count.'),
});

function describe(b: Budget): string {
  return `Search file contents for a JavaScript regular expression (escape . ( ) [ ] { } * + ? | \\ to match them, or pass literal: true).
Returns matching lines as path:line:text (context lines as path-line-text, groups split by --), sorted by path and line, then a count of matches and files.
Limits: at most ${formatCount(b.GREP_MAX_MATCHES)} matching lines (files, in the other modes), then it stops and says so: narrow path or include. Lines are cut at ${formatCount(b.GREP_MAX_LINE_BYTES)} bytes; context at most ${b.GREP_MAX_CONTEXT_LINES} lines. Files over ${formatBytes(b.GREP_MAX_FILE_BYTES)} are skipped and named; binary files are counted, not shown; the walk stops after ${formatCount(b.GREP_MAX_FILES_VISITED)} files.
Skips .git, node_modules, build output, caches, vendor folders, .gitignored paths and ${CLAMPIGNORE_FILE} patterns (pass path to search inside one); symlinks are not followed.
To find files by name use glob; to read a file use read_file.`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, (c) => `\\${c}`);
}

function loneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** Length of a quantifier at i ('*', '+', '?', '{n}', '{n,}', '{n,m}', each optionally lazy) and its minimum, or null. */
function quantifierAt(src: string, i: number): { len: number; min: number } | null {
  const c = src[i];
  let q: { len: number; min: number } | null = null;
  if (c === '*' || c === '?') q = { len: 1, min: 0 };
  else if (c === '+') q = { len: 1, min: 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(?:,\d*)?\}/.exec(src.slice(i));
    if (m) q = { len: m[0].length, min: Number(m[1]) };
  }
  if (q && src[i + q.len] === '?') q.len++;
  return q;
}

/** End index (exclusive) of the class or group opening at i, honouring escapes and nested classes. */
function skipBracket(src: string, i: number): number {
  if (src[i] === '[') {
    for (let j = i + 1; j < src.length; j++) {
      if (src[j] === '\\') j++;
      else if (src[j] === ']') return j + 1;
    }
    return src.length;
  }
  let depth = 0;
  for (let j = i; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === '[') j = skipBracket(src, j) - 1;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return j + 1;
  }
  return src.length;
}

/** Length of an escape with a letter or digit (\d, \x41, \u{1F600}, \k<n>, \12 …) starting at i. */
function escapeLength(src: string, i: number): number {
  const d = src[i + 1];
  const m =
    d === 'x' ? /^\\x[0-9a-fA-F]{0,2}/.exec(src.slice(i))
    : d === 'u' ? /^\\u(?:\{[0-9a-fA-F]*\}|[0-9a-fA-F]{0,4})/.exec(src.slice(i))
    : d === 'c' ? /^\\c[A-Za-z]?/.exec(src.slice(i))
    : d === 'k' ? /^\\k(?:<[^>]*>)?/.exec(src.slice(i))
    : d === 'p' || d === 'P' ? /^\\[pP](?:\{[^}]*\})?/.exec(src.slice(i))
    : /[0-9]/.test(d) ? /^\\[0-9]+/.exec(src.slice(i))
    : null;
  return m ? m[0].length : 2;
}

/**
 * The longest run of characters every match of the regex must contain, or '' when unsure.
 * Conservative by design: it is only a prefilter, so dropping a character is always safe.
 */
export function requiredLiteral(src: string): string {
  let best = '';
  let run = '';
  const flush = () => {
    if (run.length > best.length && !loneSurrogate(run)) best = run;
    run = '';
  };
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    let atom: string | null = null;
    let len = 1;
    if (c === '|' || c === ')') return ''; // top-level alternation: no single literal is required
    if (c === '\\') {
      if (i + 1 >= src.length) return '';
      if (/[A-Za-z0-9]/.test(src[i + 1])) len = escapeLength(src, i);
      else [atom, len] = [src[i + 1], 2];
    } else if (c === '[' || c === '(') {
      len = skipBracket(src, i) - i;
    } else if (c !== '.' && c !== '^' && c !== '$' && !quantifierAt(src, i)) {
      atom = c;
    }
    const q = quantifierAt(src, i + len);
    if (q) {
      if (atom !== null && q.min >= 1) run += atom;
      flush();
      len += q.len;
    } else if (atom !== null) {
      run += atom;
    } else {
      flush();
    }
    i += len;
  }
  flush();
  return best.includes('\uFFFD') ? '' : best;
}

/** Compile grep's pattern; throws ToolError with the parse message and the literal:true hint. */
export function compilePattern(raw: string, literal: boolean, ignoreCase: boolean): CompiledPattern {
  if (/[\r\n]/.test(raw)) {
    throw new ToolError(
      'grep matches one line at a time, and the pattern contains a line break. Search for a single line of the text (or a distinctive part of it).',
      'Remove the line break from pattern.',
    );
  }
  let src = raw;
  if (!literal && src.startsWith('(?i)')) {
    // a PCRE/rg habit; JavaScript has no inline flags
    src = src.slice(4);
    ignoreCase = true;
  }
  const ascii = (s: string) => /^[\x20-\x7e]+$/.test(s);
  if (literal) {
    const re = ignoreCase ? new RegExp(escapeRegExp(src), 'i') : null;
    return {
      display: JSON.stringify(src),
      testLine: re ? (l) => re.test(l) : (l) => l.includes(src),
      literalBytes: ignoreCase ? undefined : Buffer.from(src, 'utf8'),
      rgLiteral: !ignoreCase || ascii(src) ? { text: src, ignoreCase } : undefined,
      wholeText: re ?? undefined,
      spec: re
        ? { regex: re.source, flags: re.flags, includes: '', literalBytes: null, whole: re.source, wholeFlags: re.flags }
        : { regex: null, flags: '', includes: src, literalBytes: src, whole: null, wholeFlags: '' },
    };
  }
  const flags = ignoreCase ? 'i' : '';
  let re: RegExp;
  try {
    re = new RegExp(src, flags);
  } catch (err) {
    const msg = err instanceof Error ? err.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') : String(err);
    throw new ToolError(
      `Invalid regular expression /${src}/: ${msg}. grep uses JavaScript RegExp syntax; fix the pattern, or pass literal: true to search for the text exactly as typed.`,
      'Pass literal: true to search for the text as typed.',
    );
  }
  const nested = nestedRepetition(src);
  if (nested) {
    throw new ToolError(
      `The pattern /${src}/ repeats a group that itself repeats (${nested}); on some lines that takes exponential time and would stall Clamp. Rewrite it without the nested repetition (for example a+ instead of (a+)+), or pass literal: true.`,
      'Rewrite the pattern without a repeated group that itself repeats.',
    );
  }
  const lit = requiredLiteral(src);
  // lookarounds can see past a line's end, so a whole-file test is a safe superset only without them
  const wholeText = /\(\?<?[=!]/.test(src) ? undefined : new RegExp(src, `${flags}m`);
  return {
    display: `/${src}/${flags}`,
    testLine: (l) => re.test(l),
    literalBytes: lit && !ignoreCase ? Buffer.from(lit, 'utf8') : undefined,
    rgLiteral: lit && (!ignoreCase || ascii(lit)) ? { text: lit, ignoreCase } : undefined,
    wholeText,
    spec: {
      regex: src, flags, includes: '', literalBytes: lit && !ignoreCase ? lit : null,
      whole: wholeText ? wholeText.source : null, wholeFlags: wholeText ? wholeText.flags : '',
    },
  };
}

/** include: tried against the workspace-relative path, the path relative to `path`, and the file name. */
function compileInclude(glob: string): (rel: string, relToStart: string, name: string) => boolean {
  let re: RegExp;
  try {
    re = globToRegExp(glob.startsWith('./') ? glob.slice(2) : glob);
  } catch (err) {
    throw new ToolError(
      `Invalid include glob "${glob}": ${err instanceof Error ? err.message : String(err)}. Use a glob such as '*.ts' or 'src/**/*.tsx'.`,
    );
  }
  return (rel, relToStart, name) => re.test(name) || re.test(rel) || re.test(relToStart);
}

function engineChoice(v: unknown): EngineChoice {
  return v === 'builtin' || v === 'rg' ? v : 'auto';
}

/** What grep tells the page: the counts, what was skipped and why it stopped. */
export interface GrepMeta {
  engine: SearchResult['engine'];
  rgRuledOut?: number;
  matches: number;
  filesWithMatches: number;
  filesSearched: number;
  filesVisited: number;
  skipped: { oversize: Skipped; binary: Skipped; unreadable: Skipped; unreadableDirs: Skipped };
  ignored: { dirs: number; files: number };
  stop?: NonNullable<SearchResult['stop']>;
  totalIsLowerBound?: true;
}

/** `"pattern" src --include *.ts -i`; with a result, what it found. */
function summary(input: z.infer<typeof schema>, r?: ToolResult<GrepMeta>): string {
  const quote = (s: string) => (/[\s"]/.test(s) ? JSON.stringify(s) : s);
  const parts = [quote(input.pattern)];
  if (input.path) parts.push(input.path);
  if (input.include) parts.push(`--include ${input.include}`);
  if (input.ignore_case) parts.push('-i');
  if (input.literal) parts.push('--literal');
  const m = r?.meta;
  if (m?.matches !== undefined && m.filesWithMatches !== undefined) {
    const atLeast = m.totalIsLowerBound ? 'at least ' : '';
    parts.push(`· ${atLeast}${m.matches === 1 ? '1 match' : `${formatCount(m.matches)} matches`} in ${plural(m.filesWithMatches, 'file')}`);
  }
  return parts.join(' ');
}

export const grepTool = defineTool({
  name: 'grep',
  effect: 'read',
  traits: { hookAs: { name: 'Grep' }, activity: 'search' },
  schema,
  describe,
  summary,
  nonEmpty: ['pattern', 'include'],
  paths: (input) => [{ path: input.path ?? '.', access: 'read', field: 'path' }],
  async run(input, ctx): Promise<ToolOutput<GrepMeta>> {
    const b = ctx.budget;
    const pattern = compilePattern(input.pattern, input.literal ?? false, input.ignore_case ?? false);
    const include = input.include ? compileInclude(input.include) : undefined;
    const start = confinedPath(ctx, input.path ?? '.');
    const { abs, rel } = start;
    const st = searchStart(ctx.workspace, start, 'Check the path with list_dir or glob.');
    if (!st.isDirectory() && !st.isFile()) throw new ToolError(`Not a file or folder: ${rel}. Pass a folder or a regular file as path.`);
    const context = Math.min(input.context ?? 0, b.GREP_MAX_CONTEXT_LINES);
    const mode = input.output_mode ?? 'content';
    const r = await search({
      workspace: ctx.workspace, startAbs: abs, startRel: rel, startIsFile: st.isFile(),
      pattern, include, mode, context,
      maxEntries: b.GREP_MAX_MATCHES,
      // present() then keeps the lines that fit with their notes: the counts and next step are never the part that is cut
      maxOutputBytes: b.TOOL_OUTPUT_MAX_BYTES,
      maxLineBytes: b.GREP_MAX_LINE_BYTES, maxFileBytes: b.GREP_MAX_FILE_BYTES,
      maxFilesVisited: b.GREP_MAX_FILES_VISITED, sniffBytes: b.BINARY_SNIFF_BYTES,
      ignoreEnv: process.env.CLAMP_IGNORE,
      guard: readGuardOf(ctx.services),
      engine: engineChoice(ctx.services.grepEngine ?? process.env.CLAMP_GREP_ENGINE),
      envPath: process.env.PATH,
      signal: ctx.signal,
    });
    const shown: Shown = { pattern, rel, mode, include: input.include, contextAsked: input.context ?? 0, context, b };
    const fit = fitWithNote(b.TOOL_OUTPUT_MAX_BYTES, (room) => keepLines(r, room), (k) => present(k, shown).output);
    return { ...present(fit.cut, shown), output: fit.text };
  },
});
