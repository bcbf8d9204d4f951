import { z } from 'zod';
import { defineTool, type ToolOutput } from '../../contract/types';
import { clipLine, formatCount } from '../../contract/text';
import { gitCommandText, gitFailure, gitOk, runGit, type GitFailureMeta } from './run';
import { gitSandbox } from './sandbox';

const schema = z.strictObject({
  n: z.number().int().min(1).optional().describe('How many commits.'),
});

/** What git_log tells the page: how many commits it listed of how many asked for. */
export interface GitLogMeta extends GitFailureMeta {
  commits: number;
  total: number;
}

export const gitLogTool = defineTool({
  name: 'git_log',
  effect: 'read',
  traits: { deferRank: 7 },
  schema,
  summary: (input) => (input.n !== undefined ? `-n ${input.n}` : ''),
  describe: (b) =>
    [
      `List the latest commits of the current branch, newest first, one line each: short hash, date, author, subject. n: ${b.GIT_LOG_DEFAULT_COMMITS} by default, at most ${b.GIT_LOG_MAX_COMMITS}.`,
      'For a commit\'s changes, a file\'s history or other branches use run_command (git show <hash>, git log -- <path>).',
    ].join('\n'),
  async run(input, ctx): Promise<ToolOutput<GitLogMeta>> {
    const b = ctx.budget;
    const asked = input.n ?? b.GIT_LOG_DEFAULT_COMMITS;
    const n = Math.min(asked, b.GIT_LOG_MAX_COMMITS);
    const clamped = asked > n ? `n ${formatCount(asked)} is above the maximum of ${formatCount(b.GIT_LOG_MAX_COMMITS)}; it was clamped to ${formatCount(n)}.` : undefined;
    // one more than asked tells whether older commits exist without counting them all
    const sandbox = gitSandbox(ctx, { tool: 'git_log', writes: false, command: gitCommandText(['log', '--oneline', `-${n}`]) });
    const g = await runGit(['log', `--max-count=${n + 1}`, '--no-color', '--date=short', '--format=%h%x09%ad%x09%an%x09%s'], ctx, { readOnly: true, sandbox });
    if (!gitOk(g)) throw gitFailure('git_log', 'git log', g, ctx, 'Fix what git reported, then call git_log again.');
    const rows = g.stdout.split('\n').filter((l) => l !== '');
    const more = rows.length > n;
    const lines = rows.slice(0, n).map((row) => {
      const [hash, date, author, ...subject] = row.split('\t');
      return `${hash} ${date} ${clipLine(author ?? '', b.GIT_LOG_AUTHOR_MAX_BYTES)}: ${clipLine(subject.join('\t'), b.GIT_LOG_SUBJECT_MAX_BYTES)}`;
    });
    let total = lines.length;
    if (more) {
      const count = await runGit(['rev-list', '--count', 'HEAD'], ctx, { readOnly: true, sandbox });
      total = gitOk(count) ? Number(count.stdout.trim()) || lines.length + 1 : lines.length + 1;
    }
    const head = more
      ? `The latest ${formatCount(lines.length)} of ${formatCount(total)} commits, newest first:`
      : `All ${formatCount(lines.length)} commit${lines.length === 1 ? '' : 's'}, newest first:`;
    const out = [...(clamped ? [`note: ${clamped}`] : []), head, ...lines];
    const meta = { commits: lines.length, total };
    if (!more) return { output: out.join('\n'), meta };
    const hint =
      n < b.GIT_LOG_MAX_COMMITS
        ? `Older commits exist: pass a larger n (at most ${formatCount(b.GIT_LOG_MAX_COMMITS)}), or use run_command (git log --oneline --skip=${n}).`
        : `Older commits exist: use run_command (git log --oneline --skip=${n} -n ${n}) to page further.`;
    out.push(`[${formatCount(total - lines.length)} older commits not shown. ${hint}]`);
    return { output: out.join('\n'), truncation: { unit: 'entries', shown: lines.length, total, by: 'tool' }, hint, meta };
  },
});
