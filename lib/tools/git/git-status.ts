import { z } from 'zod';
import { defineTool, type ToolOutput, type ToolResult } from '../../contract/types';
import { clipLine, formatCount } from '../../contract/text';
import { gitCommandText, gitFailure, gitOk, runGit, type GitFailureMeta } from './run';
import { gitSandbox } from './sandbox';

/** "## main...origin/main [ahead 1]" → "main...origin/main [ahead 1]"; "## No commits yet on main" → "main (no commits yet)". */
function branchWords(line: string | undefined): string {
  if (!line?.startsWith('## ')) return 'unknown';
  const b = line.slice(3);
  const fresh = /^(?:No commits yet|Initial commit) on (.+)$/.exec(b);
  return fresh ? `${fresh[1]} (no commits yet)` : b;
}

/** What git_status tells the page: the branch and how many paths changed. */
export interface GitStatusMeta extends GitFailureMeta {
  branch: string;
  entries: number;
  logPath?: string;
}

export const gitStatusTool = defineTool({
  name: 'git_status',
  // it only looks: optional locks are off, so it never even refreshes the index
  effect: 'read',
  traits: { deferRank: 9 },
  schema: z.strictObject({}),
  summary: (_input, r?: ToolResult<GitStatusMeta>) =>
    r?.meta?.branch !== undefined && r.meta.entries !== undefined ? `${r.meta.branch} (${r.meta.entries} changed)` : '',
  describe: (b) =>
    [
      `Show the git branch and the changed paths (git status --short), at most ${formatCount(b.GIT_STATUS_MAX_ENTRIES)}; the rest are counted.`,
      'For the changes themselves use git_diff; for other git commands, run_command.',
    ].join('\n'),
  async run(_input, ctx): Promise<ToolOutput<GitStatusMeta>> {
    const b = ctx.budget;
    const args = ['status', '--short', '--branch', '--untracked-files=normal', '--', '.'];
    const sandbox = gitSandbox(ctx, { tool: 'git_status', writes: false, command: gitCommandText(['status', '--short', '--branch']) });
    const g = await runGit(args, ctx, { readOnly: true, sandbox, exclude: true });
    if (!gitOk(g)) throw gitFailure('git_status', 'git status', g, ctx, 'Fix what git reported, then call git_status again.');
    const lines = g.stdout.split('\n').filter((l) => l !== '');
    const branch = branchWords(lines[0]);
    const entries = lines.slice(1);
    // the capture may have kept only the head of a huge status: count from git's line total
    const total = Math.max(entries.length, g.r.stdout.totalLines - 1);
    if (total === 0) {
      return { output: `Branch ${branch}. Nothing to commit: the working tree is clean.`, meta: { branch, entries: 0 } };
    }
    const shown = entries.slice(0, b.GIT_STATUS_MAX_ENTRIES).map((l) => clipLine(l, b.GIT_STATUS_LINE_MAX_BYTES));
    const out = [`Branch ${branch}. ${formatCount(total)} changed path${total === 1 ? '' : 's'} (X = staged, Y = not staged):`, ...shown];
    if (total <= shown.length) return { output: out.join('\n'), meta: { branch, entries: total } };
    const omitted = total - shown.length;
    const hint =
      `${formatCount(omitted)} more paths are not shown. Narrow it with run_command (git status --short -- <folder>), or look at one file's changes with git_diff(path).`;
    out.push(`[${formatCount(shown.length)} of ${formatCount(total)} paths shown. ${hint}]`);
    return {
      output: out.join('\n'),
      truncation: { unit: 'entries', shown: shown.length, total, by: 'tool' },
      hint,
      meta: { branch, entries: total, logPath: g.r.logPaths.stdout },
    };
  },
});
