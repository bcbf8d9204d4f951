import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../contract/types';
import { byteLength, cutHead, fitWithNote, formatBytes, formatCount, type Cut } from '../../contract/text';
import { diffFailure, gitCommandText, gitOk, runGit, type GitFailureMeta } from './run';
import { gitSandbox } from './sandbox';
import { confinedPath } from '../../contract/paths';

const schema = z.strictObject({
  path: z.string().optional().describe('File or folder; default: the whole workspace.'),
  staged: z.boolean().optional().describe('true: staged changes (git diff --cached).'),
});

/** What git_diff tells the page: which diff, its size, and the log holding all of it. */
export interface GitDiffMeta extends GitFailureMeta {
  staged: boolean;
  path: string | null;
  bytes: number;
  logPath: string;
}

export const gitDiffTool = defineTool({
  name: 'git_diff',
  effect: 'read',
  traits: { deferRank: 8 },
  schema,
  nonEmpty: ['path'],
  summary: (input) => [input.staged ? '--staged' : '', input.path ?? ''].filter(Boolean).join(' '),
  paths: (input) => (input.path !== undefined ? [{ path: input.path, access: 'read' as const, field: 'path' }] : []),
  describe: (b) =>
    [
      `Show the diff of unstaged changes (git diff), or of staged ones; untracked files are not in it. At most ${formatBytes(b.GIT_DIFF_MAX_BYTES)}: past that it is cut and the note gives the full diff's file.`,
      'For a file as it is now use read_file; for diffs between commits, run_command.',
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<GitDiffMeta>> {
    const b = ctx.budget;
    const rel = input.path !== undefined ? confinedPath(ctx, input.path).rel : undefined;
    const staged = input.staged === true;
    const args = ['diff', '--no-color', '--no-ext-diff', '--relative', ...(staged ? ['--cached'] : []), ...(rel ? ['--', rel] : [])];
    const sandbox = gitSandbox(ctx, { tool: 'git_diff', writes: false, command: gitCommandText(args.filter((a) => a !== '--no-color' && a !== '--no-ext-diff')) });
    const g = await runGit(args, ctx, { readOnly: true, sandbox, exclude: true });
    if (!gitOk(g)) throw await diffFailure('git_diff', 'git diff', g, ctx, 'Fix what git reported (check the path with git_status), then call git_diff again.');
    const where = rel && rel !== '.' ? ` in ${rel}` : '';
    const total = g.r.stdout.totalBytes;
    const meta = { staged, path: rel ?? null, bytes: total, logPath: g.r.logPaths.stdout };
    if (total === 0) {
      const next = staged
        ? 'Leave staged out to see changes not staged yet; git_status lists every changed path.'
        : 'Pass staged: true to see staged changes; git_status lists every changed path (untracked files have no diff: read them with read_file).';
      return { output: `No ${staged ? 'staged' : 'unstaged'} changes${where}. ${next}`, meta };
    }
    const outMax = b.TOOL_OUTPUT_MAX_BYTES;
    const whole = g.stdout.replace(/\n$/, '');
    if (g.stdoutWhole && total <= b.GIT_DIFF_MAX_BYTES && byteLength(whole) <= outMax) return { output: whole, meta };
    const rest = g.r.logError
      ? `Narrow it with git_diff(path) to see the rest (the full diff could not be saved: ${g.r.logError}).`
      : `The full diff: ${g.r.logPaths.stdout} — read it with read_file (offset/limit), or narrow it with git_diff(path).`;
    const noteFor = (cut: Cut) =>
      `[Diff cut at ${formatBytes(cut.shownBytes)} of ${formatBytes(total)} (${formatCount(total - cut.shownBytes)} bytes, ${formatCount(g.r.stdout.totalLines - cut.shownLines)} lines omitted). ${rest}]`;
    const { cut, text } = fitWithNote(
      outMax,
      (room) => cutHead(g.stdout, Math.min(b.GIT_DIFF_MAX_BYTES, room)),
      (c) => `${c.text.replace(/\n$/, '')}\n${noteFor(c)}`,
    );
    const omittedLines = g.r.stdout.totalLines - cut.shownLines;
    return {
      output: text,
      truncation: {
        unit: 'bytes',
        shown: cut.shownBytes,
        total,
        omittedLines,
        ...(g.r.logError ? {} : { spillPath: g.r.logPaths.stdout }),
        by: 'tool',
      },
      hint: rest,
      meta,
    };
  },
});
