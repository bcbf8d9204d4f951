import { z } from 'zod';
import { defineTool } from '../contract/types';
import { ToolError, type ToolOutput, type ToolResult } from '../contract/types';
import type { Budget } from '../contract/budget';
import { byteLength, fitWithNote, formatBytes, formatCount } from '../contract/text';
import { confinedPath } from '../contract/paths';
import { CLAMPIGNORE_FILE, IgnoreRules, ignoredNote, searchStart, withheldNote } from './grep/ignore';
import { readGuardOf } from '../contract/permission-rest';
import { globFiles } from './glob-walk';

const schema = z.strictObject({
  pattern: z.string().describe("Glob relative to path, e.g. 'src/**/*.ts'."),
  path: z.string().optional().describe('Folder to search in (default: the workspace root).'),
});

function describe(b: Budget): string {
  return `Find files by name: * (within one folder), ** (any depth), ?, [abc], {a,b}. '*.ts' matches only directly in path, '**/*.ts' in every folder below; no absolute paths or '..' (set path instead).
Returns matching file paths (not folders) relative to the workspace, sorted; at most ${formatCount(b.GLOB_MAX_RESULTS)} (the note then says how many matched in all).
Skips .git, node_modules, build output, caches, vendor folders, .gitignored paths and ${CLAMPIGNORE_FILE} patterns (pass path to look inside one); symlinks are not followed.
To search file contents use grep; to see every entry of a folder (ignored ones included) use list_dir.`;
}

/** What glob tells the page: how many files matched, and how many the ignore rules left out. */
export interface GlobMeta {
  total: number;
  ignored: { dirs: number; files: number };
}

/** The pattern without a leading ./; an absolute one, or one with '..', is an error with the next step. */
function relativePattern(given: string): string {
  const pattern = given.startsWith('./') ? given.slice(2) : given;
  if (/^([/\\~]|[A-Za-z]:)/.test(pattern)) {
    throw new ToolError(
      `Pattern must be relative: "${given}". glob matches below path (default: the workspace root); give a relative pattern such as "**/*.ts" and set path to choose the folder.`,
      'Use a relative pattern and set path.',
    );
  }
  if (pattern.split(/[/\\]/).includes('..')) {
    throw new ToolError(
      `Pattern climbs out of the search folder: "${given}". Patterns cannot contain ".."; set path to the folder to search (inside the workspace) and give a pattern relative to it.`,
      'Set path to the folder and drop ".." from the pattern.',
    );
  }
  return pattern;
}

/** Why nothing matched, as far as can be told: a pattern that stays in one folder, files the ignore rules left out. */
function noMatchNotes(given: string, pattern: string, where: string, rules: IgnoreRules): string[] {
  const notes = [`No files match "${given}" in ${where}.`];
  if (!/[/\\]|\*\*/.test(pattern)) notes.push(`"${pattern}" only matches files directly in ${where}; use "**/${pattern}" to search every folder below it.`);
  const ignored = ignoredNote(rules.stats, 'look');
  if (ignored) notes.push(ignored);
  const withheld = withheldNote(rules.stats.withheld);
  if (withheld) notes.push(withheld);
  return notes;
}

/** The matching paths that fit with their note under the exit clamp: the total and the next step always arrive whole. */
function listMatches(first: string[], total: number, b: Budget): Omit<ToolOutput<GlobMeta>, 'meta'> {
  const cap = b.GLOB_MAX_RESULTS;
  const next = 'Narrow the pattern (e.g. "src/**/*.ts") or pass a narrower path.';
  const take = (room: number) => {
    const shown: string[] = [];
    let bytes = 0;
    for (const f of first) {
      const n = byteLength(f) + 1;
      if (bytes + n > room) break;
      shown.push(f);
      bytes += n;
    }
    return { shown, bytes, text: shown.join('\n') };
  };
  const noteFor = ({ shown, bytes }: { shown: string[]; bytes: number }) => {
    if (total <= shown.length) return `${formatCount(total)} file${total === 1 ? ' matches' : 's match'}.`;
    const why = shown.length < Math.min(cap, total) ? `Output limit of ${formatBytes(bytes)} reached` : `Capped at ${formatCount(cap)} files`;
    return `[${why}: showing the first ${formatCount(shown.length)} of ${formatCount(total)} matching files (sorted by path). ${next}]`;
  };
  const fit = fitWithNote(b.TOOL_OUTPUT_MAX_BYTES, take, (t) => `${t.text}\n\n${noteFor(t)}`);
  const { shown } = fit.cut;
  const capped = total > shown.length;
  return {
    output: fit.text,
    truncation: capped ? { unit: 'files', shown: shown.length, total, by: 'tool' } : null,
    ...(capped ? { hint: `Showing the first ${formatCount(shown.length)} of ${formatCount(total)} matching files. ${next}` } : {}),
  };
}

export const globTool = defineTool({
  name: 'glob',
  effect: 'read',
  traits: { hookAs: { name: 'Glob' }, activity: 'search' },
  schema,
  describe,
  summary: (input, r?: ToolResult<GlobMeta>) => {
    const what = [input.pattern, input.path].filter(Boolean).join(' in ');
    const n = r?.meta?.total;
    return n === undefined ? what : `${what} (${formatCount(n)} file${n === 1 ? '' : 's'})`;
  },
  nonEmpty: ['pattern'],
  paths: (input) => [{ path: input.path ?? '.', access: 'read', field: 'path' }],
  async run(input, ctx): Promise<ToolOutput<GlobMeta>> {
    const pattern = relativePattern(input.pattern);
    const start = confinedPath(ctx, input.path ?? '.');
    const { abs, rel } = start;
    const st = searchStart(ctx.workspace, start, 'Check the path with list_dir.');
    if (!st.isDirectory()) {
      throw new ToolError(`Not a folder: ${rel}. glob searches below a folder; pass its parent folder as path, or read the file with read_file.`);
    }
    const rules = new IgnoreRules(ctx.workspace, rel, process.env.CLAMP_IGNORE, readGuardOf(ctx.services));
    const prefix = rel === '.' ? '' : `${rel}/`;
    const { first, total } = await globFiles(pattern, { workspace: ctx.workspace, abs, prefix }, rules, ctx.budget.GLOB_MAX_RESULTS, ctx.signal);
    const meta = { total, ignored: { dirs: rules.stats.dirs, files: rules.stats.files } };
    const where = rel === '.' ? 'the workspace' : rel;
    if (total === 0) return { output: noMatchNotes(input.pattern, pattern, where, rules).join('\n'), truncation: null, meta };
    const listed = listMatches(first, total, ctx.budget);
    const withheld = withheldNote(rules.stats.withheld);
    return { ...listed, ...(withheld ? { output: `${listed.output}\n${withheld}` } : {}), meta };
  },
});
