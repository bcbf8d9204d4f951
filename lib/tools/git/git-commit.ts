import { z } from 'zod';
import { defineTool, type ToolOutput, type ToolResult } from '../../contract/types';
import { ToolError } from '../../contract/types';
import { clipLine } from '../../contract/text';
import { diffFailure, gitCommandText, gitFailure, gitOk, runGit, type GitFailureMeta } from './run';
import { gitSandbox } from './sandbox';

const schema = z.strictObject({
  message: z.string().describe('Subject line; optionally a blank line and a body.'),
  paths: z.array(z.string()).optional().describe('Commit exactly these files (staged for you, deletions included), leaving anything else staged out.'),
});

const AGAIN = 'Fix what git reported, stage any fixes with run_command (git add <paths>), then call git_commit again.';

/** What git_commit tells the page: the new commit. */
export interface GitCommitMeta extends GitFailureMeta {
  hash: string;
  shortHash: string;
  branch: string;
}

const subjectOf = (message: string) => JSON.stringify(clipLine(message.trim().split('\n')[0], 120));

export const gitCommitTool = defineTool({
  name: 'git_commit',
  // it changes the repository's history: a system call, so default mode asks the user first
  effect: 'system',
  traits: { deferRank: 6 },
  schema,
  nonEmpty: ['message'],
  describe: () =>
    [
      'Commit the staged changes (git commit -m) and return the new hash. Without paths it stages nothing: run git add with run_command first, or pass paths.',
      'For other git commands (push, branch, amend), run_command.',
    ].join('\n'),
  summary: (input, r?: ToolResult<GitCommitMeta>) =>
    `-m ${subjectOf(input.message)}${input.paths?.length ? ` -- ${input.paths.join(' ')}` : ''}${r?.meta?.shortHash ? ` → ${r.meta.shortHash}` : ''}`,
  paths: (input) => (input.paths ?? []).map((p, i) => ({ path: p, access: 'read' as const, field: `paths[${i}]` })),
  preview: async (input) => ({ summary: `git commit -m ${subjectOf(input.message)}` }),
  async run(input, ctx): Promise<ToolOutput<GitCommitMeta>> {
    const message = input.message.trim();
    const only = input.paths?.length ? ['--', ...input.paths] : [];
    // its hooks run too, confined like the rest of git: the workspace writable, nothing else
    const sandbox = gitSandbox(ctx, { tool: 'git_commit', writes: true, command: gitCommandText(['commit', '-m', message, ...only]) });
    if (only.length) {
      const add = await runGit(['add', '-A', ...only], ctx, { readOnly: false, sandbox, exclude: true });
      if (!gitOk(add)) throw gitFailure('git_commit', 'git add', add, ctx, 'Check the paths with git_status and call git_commit again.');
    }
    // exit 1 means something is staged; 0 means the index matches HEAD (or the empty tree before the first commit)
    const check = await runGit(['diff', '--cached', '--quiet', '--no-ext-diff', ...only], ctx, { readOnly: true, sandbox, exclude: only.length > 0 });
    if (check.r.exitCode === 0 && check.r.killedBy === null) {
      const step = 'Stage the files to commit with run_command (git add <paths>), check them with git_status, then call git_commit again.';
      throw new ToolError(`Nothing is staged, so there is nothing to commit. ${step}`, step);
    }
    if (check.r.exitCode !== 1 || check.r.killedBy !== null) throw await diffFailure('git_commit', 'git commit', check, ctx, AGAIN);

    const g = await runGit(['commit', '--no-edit', '-m', message, ...only], ctx, { readOnly: false, sandbox, exclude: only.length > 0 });
    if (!gitOk(g)) throw gitFailure('git_commit', 'git commit', g, ctx, AGAIN);
    const head = await runGit(['log', '-1', '--format=%H%x09%h%x09%s'], ctx, { readOnly: true, sandbox });
    const [hash = '', short = '', subject = ''] = gitOk(head) ? head.stdout.trim().split('\t') : [];
    const branch = /^\[([^\]]+?)(?: \(root-commit\))? [0-9a-f]+\]/m.exec(g.stdout)?.[1] ?? 'HEAD';
    const stat = /^ \d+ files? changed.*$/m.exec(g.stdout)?.[0].trim();
    const output = [
      `Committed ${short || '(hash unknown)'} on ${branch}: ${clipLine(subject || message.split('\n')[0], ctx.budget.GIT_LOG_SUBJECT_MAX_BYTES)}`,
      ...(stat ? [stat] : []),
      'git_log lists it; git_status shows what is left uncommitted.',
    ].join('\n');
    return { output, meta: { hash, shortHash: short, branch } };
  },
});
