/**
 * The changes panel's commit offer: into the git repository the workspace is in (found by reading the
 * folders up from it, never by running git on the host), else none, with the reason the panel shows.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitTarget } from '../../lib/server/changes';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace> | undefined;
const SANDBOXED = { gitOnHost: false };
const ON_HOST = { gitOnHost: true };
afterEach(() => ws?.cleanup());

describe('commitTarget', () => {
  it('outside a repository: none, saying why and how to start one', () => {
    ws = tempWorkspace('clamp-commit-target-');
    expect(commitTarget(ws.workspace, SANDBOXED)).toEqual({
      kind: 'none',
      reason: `${ws.workspace} is not in a git repository, so there is nothing to commit these changes to. Run git init there to start one; the changes stay listed here either way.`,
    });
    // an empty .git folder (no HEAD) is not a repository either
    fs.mkdirSync(path.join(ws.workspace, '.git'));
    expect(commitTarget(ws.workspace, SANDBOXED).kind).toBe('none');
  });

  it('a repository of the workspace’s own; one above it or a worktree’s only where git runs on the host (the sandbox keeps their git directory read-only)', () => {
    ws = tempWorkspace('clamp-commit-target-');
    execFileSync('git', ['init', '-q', ws.workspace]);
    expect(commitTarget(ws.workspace, SANDBOXED)).toEqual({ kind: 'git', root: ws.workspace });
    const sub = path.join(ws.workspace, 'packages', 'app');
    fs.mkdirSync(sub, { recursive: true });
    expect(commitTarget(sub, ON_HOST)).toEqual({ kind: 'git', root: ws.workspace });
    expect(commitTarget(sub, SANDBOXED)).toEqual({
      kind: 'none',
      reason: `${sub} is in the git repository ${ws.workspace}, whose git directory lies outside the workspace, and Clamp's sandbox (where git_commit runs git) keeps it read-only. Commit these files from a terminal (git -C ${ws.workspace} commit), or turn the sandbox off in the settings.`,
    });
    const linked = path.join(ws.root, 'linked');
    fs.mkdirSync(linked);
    fs.writeFileSync(path.join(linked, '.git'), `gitdir: ${ws.workspace}/.git/worktrees/linked\n`);
    expect(commitTarget(linked, ON_HOST)).toEqual({ kind: 'git', root: linked });
    expect(commitTarget(linked, SANDBOXED).kind).toBe('none');
  });
});
