import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, tempWorkspace } from '../helpers';
import { gitStatusTool } from '../../lib/tools/git/git-status';
import { gitDiffTool } from '../../lib/tools/git/git-diff';
import { gitLogTool } from '../../lib/tools/git/git-log';
import { gitCommitTool } from '../../lib/tools/git/git-commit';
import { shellQuote } from '../../lib/tools/git/run';
import type { Budget } from '../../lib/contract/budget';

const TOOLS = [gitStatusTool, gitDiffTool, gitLogTool, gitCommitTool];
const saved = { ...process.env };
let ws: ReturnType<typeof tempWorkspace>;

beforeAll(() => {
  // the machine's own git configuration must not leak into the tests
  process.env.GIT_CONFIG_GLOBAL = '/dev/null';
  process.env.GIT_CONFIG_NOSYSTEM = '1';
});
afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});
beforeEach(() => {
  ws = tempWorkspace('clamp-git-');
});
afterEach(() => ws.cleanup());

const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.workspace, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: '2024-05-01T12:00:00Z', GIT_COMMITTER_DATE: '2024-05-01T12:00:00Z' } });

function initRepo() {
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Ada Tester');
  git('config', 'user.email', 'ada@example.com');
}

function commitFile(rel: string, content: string, message: string) {
  ws.write(rel, content);
  git('add', rel);
  git('commit', '-q', '-m', message);
}

const h = (budget: Partial<Budget> = {}) => harness(TOOLS, ws, { budget });

describe('shellQuote', () => {
  it('single-quotes every argument so bash takes it literally', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(execFileSync('/bin/bash', ['-c', `printf %s ${shellQuote('a $(echo x) `y` \'q\' "d" \\ \n;|&')}`], { encoding: 'utf8' })).toBe(
      'a $(echo x) `y` \'q\' "d" \\ \n;|&',
    );
  });
  it('refuses a NUL byte', () => {
    expect(() => shellQuote('a\0b')).toThrow('An argument contains a NUL byte, which git cannot take. Remove it and call the tool again.');
  });
});

describe('not a repository', () => {
  it('git_status says the workspace is not inside a repository, with git\'s words and the next step', async () => {
    const r = await h().call('git_status', {});
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      `git status failed (exit code 128) — the workspace ${ws.workspace} is not inside a git repository:\n` +
        'fatal: not a git repository (or any of the parent directories): .git\n' +
        'Run `git init` with run_command to start a repository here, or ask the user where the repository is.',
    );
    expect(r.hint).toBe('Run `git init` with run_command to start a repository here, or ask the user where the repository is.');
  });

  it('git_diff, git_log and git_commit say the same', async () => {
    const tail = ` — the workspace ${ws.workspace} is not inside a git repository:\nfatal: not a git repository (or any of the parent directories): .git\n`;
    expect((await h().call('git_diff', {})).output).toBe(`git diff failed (exit code 128)${tail}Run \`git init\` with run_command to start a repository here, or ask the user where the repository is.`);
    expect((await h().call('git_log', {})).output).toBe(`git log failed (exit code 128)${tail}Run \`git init\` with run_command to start a repository here, or ask the user where the repository is.`);
    expect((await h().call('git_commit', { message: 'x' })).output).toBe(
      `git commit failed (exit code 128)${tail}Run \`git init\` with run_command to start a repository here, or ask the user where the repository is.`,
    );
  });
});

describe('git_status', () => {
  it('a fresh repository: branch with no commits yet, clean', async () => {
    initRepo();
    const r = await h().call('git_status', {});
    expect(r).toMatchObject({ status: 'ok', output: 'Branch main (no commits yet). Nothing to commit: the working tree is clean.', truncation: null });
  });

  it('lists staged, unstaged and untracked paths with the branch', async () => {
    initRepo();
    commitFile('a.txt', 'a\n', 'first');
    ws.write('a.txt', 'a2\n');
    ws.write('b.txt', 'b\n');
    ws.write('new dir/ünï.txt', 'u\n');
    git('add', 'b.txt');
    const r = await h().call('git_status', {});
    expect(r.output).toBe('Branch main. 3 changed paths (X = staged, Y = not staged):\n M a.txt\nA  b.txt\n?? "new dir/"');
    expect(r.meta).toMatchObject({ branch: 'main', entries: 3 });
  });

  it('past GIT_STATUS_MAX_ENTRIES it lists that many and counts the rest, with the next step', async () => {
    initRepo();
    for (let i = 0; i < 7; i++) ws.write(`f${i}.txt`, `${i}\n`);
    const r = await h({ GIT_STATUS_MAX_ENTRIES: 3 }).call('git_status', {});
    const hint = '4 more paths are not shown. Narrow it with run_command (git status --short -- <folder>), or look at one file\'s changes with git_diff(path).';
    expect(r.output).toBe(`Branch main (no commits yet). 7 changed paths (X = staged, Y = not staged):\n?? f0.txt\n?? f1.txt\n?? f2.txt\n[3 of 7 paths shown. ${hint}]`);
    expect(r.truncation).toEqual({ unit: 'entries', shown: 3, total: 7, by: 'tool' });
    expect(r.hint).toBe(hint);
  });
});

describe('git_diff', () => {
  beforeEach(() => {
    initRepo();
    commitFile('src/a.txt', 'one\ntwo\n', 'first');
    commitFile('b.txt', 'bee\n', 'second');
  });

  it('shows unstaged changes, staged ones with staged: true, and one path', async () => {
    ws.write('src/a.txt', 'one\nTWO\n');
    ws.write('b.txt', 'BEE\n');
    git('add', 'b.txt');
    const unstaged = await h().call('git_diff', {});
    expect(unstaged.output).toMatch(/^diff --git a\/src\/a\.txt b\/src\/a\.txt\nindex \w+\.\.\w+ 100644\n--- a\/src\/a\.txt\n\+\+\+ b\/src\/a\.txt\n@@ -1,2 \+1,2 @@\n one\n-two\n\+TWO$/);
    const staged = await h().call('git_diff', { staged: true });
    expect(staged.output).toMatch(/^diff --git a\/b\.txt b\/b\.txt\n[\s\S]*\n-bee\n\+BEE$/);
    expect(staged.meta).toMatchObject({ staged: true, path: null });
    const one = await h().call('git_diff', { path: 'b.txt' });
    expect(one.output).toBe('No unstaged changes in b.txt. Pass staged: true to see staged changes; git_status lists every changed path (untracked files have no diff: read them with read_file).');
  });

  it('says when there is nothing to show, with the next step', async () => {
    expect((await h().call('git_diff', {})).output).toBe(
      'No unstaged changes. Pass staged: true to see staged changes; git_status lists every changed path (untracked files have no diff: read them with read_file).',
    );
    expect((await h().call('git_diff', { staged: true, path: 'src' })).output).toBe(
      'No staged changes in src. Leave staged out to see changes not staged yet; git_status lists every changed path.',
    );
  });

  it('a path that names no file is not an error: git has no changes there', async () => {
    const r = await h().call('git_diff', { path: 'nope.txt' });
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/^No unstaged changes in nope\.txt\./);
  });

  it('a path outside the workspace is refused before git runs', async () => {
    const r = await h().call('git_diff', { path: '../x' });
    expect(r.status).toBe('denied');
    expect(r.output).toContain('Path is outside the workspace: ../x.');
  });

  it('an empty path is refused before any I/O', async () => {
    const r = await h().call('git_diff', { path: ' ' });
    expect(r.output).toBe('Invalid arguments for git_diff:\n- `path`: must not be empty.\nPass a non-empty path and call git_diff again.');
  });

  it('past GIT_DIFF_MAX_BYTES it cuts the diff, says how much in bytes and lines, and names the full diff\'s file', async () => {
    ws.write('src/a.txt', Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n') + '\n');
    const r = await h({ GIT_DIFF_MAX_BYTES: 1000 }).call('git_diff', {});
    const log = r.meta!.logPath as string;
    const full = fs.readFileSync(log, 'utf8');
    const total = Buffer.byteLength(full);
    expect(r.truncation).toMatchObject({ unit: 'bytes', total, spillPath: log, by: 'tool' });
    const shown = r.truncation!.shown;
    expect(shown).toBeLessThanOrEqual(1000);
    const omittedLines = full.split('\n').length - 1 - full.slice(0, shown).split('\n').length + 1;
    const rest = `The full diff: ${log} — read it with read_file (offset/limit), or narrow it with git_diff(path).`;
    expect(r.output).toBe(
      `${full.slice(0, shown).replace(/\n$/, '')}\n[Diff cut at ${shown} bytes of ${total.toLocaleString('en-US')} bytes (${(total - shown).toLocaleString('en-US')} bytes, ${omittedLines} lines omitted). ${rest}]`,
    );
    expect(r.truncation!.omittedLines).toBe(omittedLines);
    expect(r.hint).toBe(rest);
    expect(path.dirname(log)).toBe(path.join(ws.dataDir, 'logs'));
  });
});

describe('git_log', () => {
  beforeEach(() => initRepo());

  it('one line per commit: hash, date, author, subject; newest first', async () => {
    commitFile('a', '1', 'first commit');
    commitFile('a', '2', 'second: with a colon');
    const r = await h().call('git_log', {});
    expect(r.output).toMatch(/^All 2 commits, newest first:\n[0-9a-f]{7,} 2024-05-01 Ada Tester: second: with a colon\n[0-9a-f]{7,} 2024-05-01 Ada Tester: first commit$/);
    expect(r.truncation).toBeNull();
  });

  it('shows GIT_LOG_DEFAULT_COMMITS by default and counts the older ones', async () => {
    for (let i = 1; i <= 6; i++) commitFile('a', String(i), `c${i}`);
    const r = await h({ GIT_LOG_DEFAULT_COMMITS: 4, GIT_LOG_MAX_COMMITS: 5 }).call('git_log', {});
    const hint = 'Older commits exist: pass a larger n (at most 5), or use run_command (git log --oneline --skip=4).';
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('The latest 4 of 6 commits, newest first:');
    expect(lines.slice(1, 5).map((l) => l.split(': ')[1])).toEqual(['c6', 'c5', 'c4', 'c3']);
    expect(lines[5]).toBe(`[2 older commits not shown. ${hint}]`);
    expect(r.truncation).toEqual({ unit: 'entries', shown: 4, total: 6, by: 'tool' });
    expect(r.hint).toBe(hint);
  });

  it('n above the maximum is clamped and the result says so', async () => {
    for (let i = 1; i <= 4; i++) commitFile('a', String(i), `c${i}`);
    const r = await h({ GIT_LOG_MAX_COMMITS: 3 }).call('git_log', { n: 50 });
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('note: n 50 is above the maximum of 3; it was clamped to 3.');
    expect(lines[1]).toBe('The latest 3 of 4 commits, newest first:');
    expect(lines[5]).toBe('[1 older commits not shown. Older commits exist: use run_command (git log --oneline --skip=3 -n 3) to page further.]');
  });

  it('n below 1 is refused by the schema', async () => {
    const r = await h().call('git_log', { n: 0 });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^Invalid arguments for git_log:\n- `n`: /);
  });

  it('no commits yet: git\'s words and the next step', async () => {
    const r = await h().call('git_log', {});
    expect(r.output).toBe(
      "git log failed (exit code 128):\nfatal: your current branch 'main' does not have any commits yet\n" +
        'There are no commits yet: stage files with run_command (git add <paths>) and create the first commit with git_commit.',
    );
  });

  it('a long subject is cut to GIT_LOG_SUBJECT_MAX_BYTES with a marker', async () => {
    commitFile('a', '1', 's'.repeat(50));
    const r = await h({ GIT_LOG_SUBJECT_MAX_BYTES: 10 }).call('git_log', {});
    expect(r.output.split('\n')[1]).toMatch(/: ssssssssss… \[line cut: 40 more bytes\]$/);
  });
});

describe('git_commit', () => {
  beforeEach(() => initRepo());

  it('commits what is staged, with a message bash never interprets', async () => {
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    const message = "it's \"quoted\" $(touch pwned) `touch pwned2`\n\nbody; rm -rf nothing";
    const r = await h().call('git_commit', { message: `  ${message}  ` });
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/^Committed [0-9a-f]{7,} on main: it's "quoted" \$\(touch pwned\) `touch pwned2`\n1 file changed, 1 insertion\(\+\)\ngit_log lists it; git_status shows what is left uncommitted\.$/);
    expect(git('log', '-1', '--format=%B').trim()).toBe(message);
    expect(fs.existsSync(path.join(ws.workspace, 'pwned'))).toBe(false);
    expect(fs.existsSync(path.join(ws.workspace, 'pwned2'))).toBe(false);
    expect(r.meta).toMatchObject({ branch: 'main', hash: git('rev-parse', 'HEAD').trim() });
  });

  it('nothing staged: an error that says so and suggests git add', async () => {
    ws.write('a.txt', 'a\n');
    const r = await h().call('git_commit', { message: 'x' });
    const step = 'Stage the files to commit with run_command (git add <paths>), check them with git_status, then call git_commit again.';
    expect(r).toMatchObject({ status: 'error', output: `Nothing is staged, so there is nothing to commit. ${step}`, hint: step });
  });

  it('an empty or blank message is refused before any I/O', async () => {
    for (const message of ['', '  \n ']) {
      const r = await h().call('git_commit', { message });
      expect(r.output).toBe('Invalid arguments for git_commit:\n- `message`: must not be empty.\nPass a non-empty message and call git_commit again.');
    }
  });

  it('asks in default mode, is refused in plan mode, runs in auto mode', async () => {
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    const asked = await h().call('git_commit', { message: 'x' }, {}, {});
    expect(asked).toMatchObject({ status: 'approval-required', output: "git_commit needs the user's approval: runs a process on this machine." });
    const plan = await h().call('git_commit', { message: 'x' }, { mode: 'plan' }, {});
    expect(plan.status).toBe('denied');
    expect(plan.output).toBe('git_commit is not available: commands and other system calls are not allowed in plan mode. Do not retry it; use the read-only tools, or ask the user to switch modes.');
    expect(git('rev-list', '--all').trim()).toBe('');
    const auto = await h().call('git_commit', { message: 'x' }, { mode: 'auto' }, {});
    expect(auto.status).toBe('ok');
  });

  it('the read tools run in plan mode without asking', async () => {
    commitFile('a', '1', 'c1');
    for (const name of ['git_status', 'git_diff', 'git_log']) {
      expect((await h().call(name, {}, { mode: 'plan' }, {})).status).toBe('ok');
    }
  });

  it('a failing pre-commit hook: git\'s words and the next step', async () => {
    ws.write('.git/hooks/pre-commit', '#!/bin/sh\necho "lint failed: a.txt:1 bad" >&2\nexit 1\n');
    fs.chmodSync(path.join(ws.workspace, '.git/hooks/pre-commit'), 0o755);
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    const r = await h().call('git_commit', { message: 'x' });
    const step = 'Fix what git reported, stage any fixes with run_command (git add <paths>), then call git_commit again.';
    expect(r).toMatchObject({ status: 'error', output: `git commit failed (exit code 1):\nlint failed: a.txt:1 bad\n${step}`, hint: step });
  });

  it('a hanging hook: the timeout kills git and says what to do; so does the user\'s stop', async () => {
    ws.write('.git/hooks/pre-commit', '#!/bin/sh\nsleep 20\n');
    fs.chmodSync(path.join(ws.workspace, '.git/hooks/pre-commit'), 0o755);
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    const timed = await h({ GIT_TIMEOUT_MS: 300, COMMAND_KILL_GRACE_MS: 200 }).call('git_commit', { message: 'x' });
    const step = 'Call git_commit again; if git keeps hanging, run it with run_command to see why.';
    expect(timed).toMatchObject({ status: 'error', output: `git commit did not finish (killed: timed out after 300 ms).\n${step}`, hint: step });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const stopped = await h({ COMMAND_KILL_GRACE_MS: 200 }).call('git_commit', { message: 'x' }, { signal: stop.signal });
    expect(stopped).toMatchObject({ status: 'error', output: 'git commit was stopped by the user before it finished.' });
    expect(git('rev-list', '--all').trim()).toBe('');
  });

  it('no author identity: the next step says how to set one', async () => {
    git('config', '--unset', 'user.name');
    git('config', '--unset', 'user.email');
    git('config', 'user.useConfigOnly', 'true');
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    const r = await h().call('git_commit', { message: 'x' });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^git commit failed \(exit code 128\):\n[\s\S]*Please tell me who you are[\s\S]*\n/);
    expect(r.hint).toBe(
      'Git has no author identity: ask the user which name and email to use, set them with run_command (git config user.name "…" and git config user.email "…"), then call git_commit again.',
    );
    expect(r.output.endsWith(`\n${r.hint}`)).toBe(true);
  });
});

describe('a workspace inside a larger repository', () => {
  it('status and diff cover only the workspace, with paths relative to it', async () => {
    initRepo();
    commitFile('outside.txt', 'o\n', 'first');
    commitFile('pkg/in.txt', 'i\n', 'second');
    ws.write('outside.txt', 'o2\n');
    ws.write('pkg/in.txt', 'i2\n');
    const sub = harness(TOOLS, { workspace: path.join(ws.workspace, 'pkg'), dataDir: ws.dataDir });
    expect((await sub.call('git_status', {})).output).toBe('Branch main. 1 changed path (X = staged, Y = not staged):\n M in.txt');
    const diff = await sub.call('git_diff', {});
    expect(diff.output).toMatch(/^diff --git a\/in\.txt b\/in\.txt\n/);
    expect(diff.output).not.toContain('outside');
  });
});

describe('where git runs', () => {
  afterEach(() => {
    delete process.env.CLAMP_BWRAP;
    delete process.env.CLAMP_SANDBOX;
  });

  it('inside the sandbox: a hook runs, but cannot write outside the workspace', async () => {
    initRepo();
    const mark = path.join(ws.root, 'hook-ran');
    ws.write('.git/hooks/pre-commit', `#!/bin/sh\necho inside > ${mark} || echo "could not write outside" >&2\nexit 0\n`);
    fs.chmodSync(path.join(ws.workspace, '.git/hooks/pre-commit'), 0o755);
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    const r = await h().call('git_commit', { message: 'x' });
    expect(r.status, r.output).toBe('ok');
    expect(fs.existsSync(mark)).toBe(false);
  });

  it('on the host only when the sandbox is turned off explicitly (CLAMP_SANDBOX=off)', async () => {
    process.env.CLAMP_SANDBOX = 'off';
    initRepo();
    const mark = path.join(ws.root, 'hook-ran');
    ws.write('.git/hooks/pre-commit', `#!/bin/sh\necho outside > ${mark}\n`);
    fs.chmodSync(path.join(ws.workspace, '.git/hooks/pre-commit'), 0o755);
    ws.write('a.txt', 'a\n');
    git('add', 'a.txt');
    expect((await h().call('git_commit', { message: 'x' })).status).toBe('ok');
    expect(fs.readFileSync(mark, 'utf8')).toBe('outside\n');
  });

  it('not at all when the sandbox cannot start: the error names the git command to run with run_command', async () => {
    process.env.CLAMP_BWRAP = path.join(ws.root, 'no-bwrap');
    initRepo();
    const r = await h().call('git_status', {});
    const step = 'Run `git status --short --branch` with run_command instead: the person is asked first, since it would run outside the sandbox (auto mode refuses it).';
    expect(r).toMatchObject({ status: 'error', hint: step });
    expect(r.output).toBe(
      "git_status runs git only inside Clamp's sandbox, because git runs programs the repository names (hooks, filters, fsmonitor, pagers, textconv, gpg), and the sandbox cannot start here: " +
        'bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: apt-get install bubblewrap) or turn the sandbox off explicitly with CLAMP_SANDBOX=off.\n' +
        step,
    );
    expect((await h().call('git_diff', { path: 'a b.txt', staged: true })).hint).toBe(
      "Run `git diff --relative --cached -- 'a b.txt'` with run_command instead: the person is asked first, since it would run outside the sandbox (auto mode refuses it).",
    );
    expect((await h().call('git_commit', { message: "it's done", paths: ['a.txt'] })).hint).toBe(
      "Run `git commit -m 'it'\\''s done' -- a.txt` with run_command instead: the person is asked first, since it would run outside the sandbox (auto mode refuses it).",
    );
  });

  it('a workspace inside a bigger repository: a look works, a commit is refused with the next step', async () => {
    initRepo();
    commitFile('pkg/in.txt', 'i\n', 'first');
    ws.write('pkg/in.txt', 'i2\n');
    git('add', 'pkg/in.txt');
    const sub = harness(TOOLS, { workspace: path.join(ws.workspace, 'pkg'), dataDir: ws.dataDir });
    expect((await sub.call('git_log', {})).output).toMatch(/^All 1 commit, newest first:\n[0-9a-f]+ 2024-05-01 Ada Tester: first$/);
    const r = await sub.call('git_commit', { message: 'x' });
    expect(r.status).toBe('error');
    expect(r.output).toContain('Read-only file system');
    expect(r.hint).toBe(
      'The sandbox git_commit runs git in keeps this repository\'s git directory read-only: it lies outside the workspace (a worktree, or a workspace inside a bigger repository), or the sandbox level is read-only. Ask the user to run the git command themselves, or run it with run_command with sandbox: "off" and a sandbox_reason (the person must approve it).',
    );
    expect(git('rev-list', '--count', 'HEAD').trim()).toBe('1');
  });
});

describe('schemas', () => {
  it.each(TOOLS.map((t) => [t.name, t] as const))('%s', (_name, tool) => {
    expect(z.toJSONSchema(tool.schema)).toMatchSnapshot();
  });
});
