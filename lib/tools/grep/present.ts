/**
 * grep's answer to the model: the result's lines that fit under the exit clamp, then a note for every cut,
 * stop and skip, so the counts and the next step are never the part that is cut.
 */
import type { ToolOutput, Truncation } from '../../contract/types';
import type { Budget } from '../../contract/budget';
import { byteLength, formatBytes, formatCount } from '../../contract/text';
import { ignoredNote, withheldNote } from './ignore';
import type { CompiledPattern, SearchResult, Skipped } from './engine';
import type { GrepMeta } from './grep';

/** What the notes say about the call: its pattern, where it searched and how. */
export interface Shown {
  pattern: CompiledPattern;
  rel: string;
  mode: 'content' | 'files_with_matches' | 'count';
  include?: string;
  contextAsked: number;
  context: number;
  b: Budget;
}

/** A result as present() takes it: trimmed says lines were left out to fit. */
type Kept = SearchResult & { trimmed?: boolean };

const NARROW = 'Narrow it with path, include or a more specific pattern';

/** "1 file", "3 files". */
export function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
}

function names(s: Skipped): string {
  return s.samples.join(', ') + (s.count > s.samples.length ? ` and ${formatCount(s.count - s.samples.length)} more` : '');
}

function skipNotes(r: SearchResult, b: Budget): string[] {
  const out: string[] = [];
  if (r.oversize.count) {
    out.push(`${plural(r.oversize.count, 'file')} over ${formatBytes(b.GREP_MAX_FILE_BYTES)} skipped (not searched): ${names(r.oversize)}. ${r.oversize.count === 1 ? 'It may contain matches; page through it' : 'They may contain matches; page through one'} with read_file (offset/limit).`);
  }
  if (r.binary.count) out.push(`${plural(r.binary.count, 'binary file')} with a match not shown: ${names(r.binary)}.`);
  if (r.unreadable.count) out.push(`${plural(r.unreadable.count, 'file')} could not be read: ${names(r.unreadable)}.`);
  if (r.unreadableDirs.count) out.push(`${plural(r.unreadableDirs.count, 'folder')} could not be read: ${names(r.unreadableDirs)}.`);
  return out;
}

/** The result with the lines that fit in room bytes (each with its newline); trimmed says some were left out here. */
export function keepLines(r: SearchResult, room: number): SearchResult & { trimmed: boolean; text: string } {
  let n = 0;
  let bytes = 0;
  while (n < r.lines.length && bytes + byteLength(r.lines[n]) + 1 <= room) bytes += byteLength(r.lines[n++]) + 1;
  if (n === r.lines.length) return { ...r, trimmed: false, text: r.lines.join('\n') };
  if (n > 0 && r.lines[n - 1] === '--') bytes -= byteLength(r.lines[--n]) + 1;
  const lines = r.lines.slice(0, n);
  const isMatch = r.isMatch.slice(0, n);
  return { ...r, lines, isMatch, shown: isMatch.filter(Boolean).length, outputBytes: bytes, trimmed: true, text: lines.join('\n') };
}

/** Why the result is not all there is (a cap, the output limit, the walk's limit), as a note, a truncation and a hint; null when it is. */
function cutNote(r: Kept, s: Shown): { note: string; truncation: Truncation; hint: string } | null {
  if (r.trimmed || (r.stop && r.stop.reason !== 'files')) {
    const why = r.trimmed || r.stop?.reason === 'bytes' ? `Output limit of ${formatBytes(r.outputBytes)} reached` : `Capped at ${plural(s.b.GREP_MAX_MATCHES, s.mode === 'content' ? 'matching line' : 'file')}`;
    const of = r.stop ? 'of at least' : 'of';
    const shown =
      s.mode === 'content'
        ? `showing the first ${formatCount(r.shown)} ${of} ${plural(r.matches, 'matching line')} (sorted by path, then line)`
        : `showing the first ${formatCount(r.shown)} ${of} ${plural(r.filesWithMatches, 'file')} with matches (sorted by path)`;
    const more = s.mode === 'content' ? ', or use output_mode "files_with_matches" to list the matching files' : '';
    const scope = !r.stop
      ? `All ${plural(r.filesSearched, 'file')} were searched.`
      : r.stop.reason === 'files'
        ? `The walk stopped after visiting ${plural(s.b.GREP_MAX_FILES_VISITED, 'file')} (the limit): files from ${r.stop.at} on were not searched.`
        : `The search stopped in ${r.stop.at} after ${plural(r.filesSearched, 'file')} searched; later files were not searched.`;
    return {
      note: `[${why}: ${shown}. ${scope} ${NARROW}${more}.]`,
      truncation: { unit: s.mode === 'content' ? 'matches' : 'files', shown: r.shown, total: s.mode === 'content' ? r.matches : r.filesWithMatches, by: 'tool' },
      hint: `${shown[0].toUpperCase()}${shown.slice(1)}. ${NARROW}.`,
    };
  }
  if (r.stop?.reason !== 'files') return null;
  return {
    note: `[Stopped after visiting ${plural(s.b.GREP_MAX_FILES_VISITED, 'file')} (the limit): files from ${r.stop.at} on were not searched. ${NARROW}.]`,
    truncation: { unit: 'files', shown: r.filesVisited, total: r.filesVisited + 1, by: 'tool' },
    hint: `Stopped after ${plural(s.b.GREP_MAX_FILES_VISITED, 'file')}. ${NARROW}.`,
  };
}

/** What a whole result found: no matches (or no file the include selects), or the counts; null for a cut result. */
function countNote(r: Kept, s: Shown): string | null {
  const where = s.rel === '.' ? 'the workspace' : s.rel;
  const searched = `${plural(r.filesSearched, 'file')} searched`;
  if (r.filesWithMatches === 0 && !r.stop) {
    if (r.filesVisited === 0 && s.include && r.notIncluded > 0) {
      return `No files in ${where} match include "${s.include}" (${plural(r.notIncluded, 'file')} seen). include is matched against the path relative to the workspace, the path relative to path, and the file name; check the glob.`;
    }
    return `No matches for ${s.pattern.display} in ${where} (${searched}).`;
  }
  if (r.stop || r.trimmed) return null;
  return s.mode === 'files_with_matches'
    ? `${plural(r.filesWithMatches, 'file')} match${r.filesWithMatches === 1 ? 'es' : ''} (${searched}).`
    : `Found ${plural(r.matches, 'matching line')} in ${plural(r.filesWithMatches, 'file')} (${searched}).`;
}

/** What grep tells the page: the engine, the counts, what was skipped and why it stopped. */
function metaOf(r: Kept): GrepMeta {
  return {
    engine: r.engine,
    ...(r.engine === 'builtin+rg' ? { rgRuledOut: r.rgRuledOut } : {}),
    matches: r.matches,
    filesWithMatches: r.filesWithMatches,
    filesSearched: r.filesSearched,
    filesVisited: r.filesVisited,
    skipped: { oversize: r.oversize, binary: r.binary, unreadable: r.unreadable, unreadableDirs: r.unreadableDirs },
    ignored: { dirs: r.ignoredDirs, files: r.ignoredFiles },
    ...(r.stop ? { stop: r.stop, totalIsLowerBound: true } : {}),
  };
}

/** Turn a search result into the text the model sees, with every cut and skip stated. */
export function present(r: Kept, s: Shown): ToolOutput<GrepMeta> {
  const cut = cutNote(r, s);
  const count = countNote(r, s);
  const notes = [...(cut ? [cut.note] : []), ...(count !== null ? [count] : []), ...skipNotes(r, s.b)];
  let hint = cut?.hint;
  if (r.oversize.count && !hint) hint = 'Files over the size cap were skipped; page through them with read_file (offset/limit).';
  if (r.filesWithMatches === 0 && !r.stop) {
    const ignored = ignoredNote({ dirs: r.ignoredDirs, files: r.ignoredFiles, dirSamples: r.ignoredDirSamples }, 'search');
    if (ignored) notes.push(ignored);
  }
  if (r.withheld) notes.push(withheldNote(r.withheld));
  if (s.contextAsked > s.context) notes.push(`context was capped at ${plural(s.b.GREP_MAX_CONTEXT_LINES, 'line')}.`);
  const body = r.lines.length ? `${r.lines.join('\n')}\n\n` : '';
  return { output: body + notes.join('\n'), truncation: cut?.truncation ?? null, ...(hint ? { hint } : {}), meta: metaOf(r) };
}
