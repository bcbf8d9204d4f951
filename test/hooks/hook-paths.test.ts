/**
 * Paths to a tool that do not start with the model pass the hooks too: the changes panel's commit (a git commit from
 * the page) and the tool CLI (`npm run tool`). Real sh hook scripts in the person's hooks.json refuse them with
 * exit 2; the host shows the hook ran (the file it writes) and that nothing happened (no commit, no file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolCli } from '../../lib/cli/tool-cli';
import { commitChanges } from '../../lib/server/changes';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
const savedEnv = { ...process.env };
beforeEach(() => {
  ws = tempWorkspace('clamp-hook-paths-');
  process.env.CLAMP_WORKSPACE = ws.workspace;
  process.env.CLAMP_DATA_DIR = ws.dataDir;
  process.env.HOME = ws.root;
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

/** A PreToolUse hook for `matcher`: it writes its input where the host can read it, then blocks with exit 2 and a reason. */
function blockingHook(matcher: string, reason: string): string {
  const seen = path.join(ws.root, 'hook-saw.json');
  const file = path.join(ws.root, 'block.sh');
  fs.writeFileSync(file, `#!/bin/sh\ncat > '${seen}'\necho '${reason}' >&2\nexit 2\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(ws.dataDir, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command: file }] }] } }));
  return seen;
}

const git = (...args: string[]) => spawnSync('git', ['-C', ws.workspace, ...args], { encoding: 'utf8' });

describe('hooks on the paths that do not start with the model', () => {
  it("the tool CLI's call passes PreToolUse: a Bash hook refuses run_command, the command never runs", async () => {
    const seen = blockingHook('Bash', 'no commands from the tool CLI');
    const out: string[] = [];
    const sink = { write: (s: string) => out.push(s) } as unknown as NodeJS.WriteStream;
    expect(await toolCli(['run_command', JSON.stringify({ command: 'touch ran.txt' }), '--approve'], sink as never, sink as never)).toBe(0);
    const result = JSON.parse(out.join('')) as { status: string; output: string };
    expect(result.status).toBe('denied');
    expect(result.output).toContain('no commands from the tool CLI');
    expect(fs.existsSync(path.join(ws.workspace, 'ran.txt'))).toBe(false);
    const input = JSON.parse(fs.readFileSync(seen, 'utf8')) as { hook_event_name: string; tool_name: string; tool_input: { command: string } };
    expect(input).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'touch ran.txt' } });
  }, 60_000);

  it("the changes panel's commit passes PreToolUse: a hook on git_commit blocks it with its reason, and nothing is committed", async () => {
    expect(git('init', '-q').status).toBe(0);
    git('config', 'user.email', 't@example.invalid');
    git('config', 'user.name', 'T');
    ws.write('a.txt', 'one\n');
    git('add', 'a.txt');
    expect(git('commit', '-q', '-m', 'init').status).toBe(0);
    ws.write('a.txt', 'two\n');
    const seen = blockingHook('git_commit', 'commits wait for the review');
    const s = createSession(openDb(ws.dataDir), { workspace: ws.workspace }, 'default');
    const r = await commitChanges({ workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' }, s.id, { paths: ['a.txt'], message: 'from the page' });
    expect(r.ok).toBe(false);
    expect(r.text).toContain('commits wait for the review');
    expect(git('log', '--format=%s').stdout.trim()).toBe('init');
    expect(git('status', '--porcelain').stdout).toContain(' M a.txt');
    const input = JSON.parse(fs.readFileSync(seen, 'utf8')) as { tool_name: string; tool_input: { message: string } };
    expect(input.tool_input.message).toBe('from the page');
  }, 60_000);
});
