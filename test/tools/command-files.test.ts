import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandWords, expandCommand } from '../../lib/contract/command-text';
import { commandRoots, scanCommands } from '../../lib/tools/skills/command-files';
import { allCommands } from '../../components/composer-commands';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
afterEach(() => ws?.cleanup());

const REVIEW = [
  '---',
  'description: Review a file for bugs',
  'argument-hint: <file> [focus]',
  'allowed-tools: [Bash(git diff:*), Read, Grep]',
  'model: openai-compatible:fake-big',
  '---',
  'Review $1 and look hard at $2.',
  'Everything typed: $ARGUMENTS',
  '',
].join('\n');

describe('commands from files', () => {
  it('reads .clamp/commands, .claude/commands (sub-folders as folder:name) and the data dir, with their front matter', () => {
    ws = tempWorkspace('clamp-cmds-');
    ws.write('.claude/commands/review.md', REVIEW);
    ws.write('.claude/commands/frontend/test.md', '# Run the front-end tests\nRun npm test in web/.\n');
    ws.write('.clamp/commands/review.md', '---\ndescription: the Clamp one wins\n---\nClamp review $ARGUMENTS\n');
    ws.write('.claude/commands/empty.md', '---\ndescription: nothing after\n---\n');
    ws.write('.claude/commands/notes.txt', 'not a command');
    fs.mkdirSync(path.join(ws.dataDir, 'commands'));
    fs.writeFileSync(path.join(ws.dataDir, 'commands', 'standup.md'), 'Write my standup from git log --since=yesterday.');
    const scan = scanCommands(ws.workspace, commandRoots(ws.workspace, ws.dataDir));
    expect(scan.commands.map((c) => c.name)).toEqual(['review', 'frontend:test', 'standup']);
    expect(scan.commands[0]).toMatchObject({ description: 'the Clamp one wins', source: 'workspace', body: 'Clamp review $ARGUMENTS' });
    expect(scan.commands[1]).toMatchObject({ description: 'Run the front-end tests', source: 'workspace' });
    expect(scan.commands[2]).toMatchObject({ description: 'Write my standup from git log --since=yesterday.', source: 'person' });
    expect(scan.skipped.map((s) => s.reason)).toEqual([
      'the file has no text after its front matter',
      `the name review is already taken by ${path.join(ws.workspace, '.clamp', 'commands', 'review.md')}`,
    ]);
  });

  it("keeps Claude Code's front matter: argument-hint, allowed-tools as a list, model", () => {
    ws = tempWorkspace('clamp-cmds-');
    ws.write('.claude/commands/review.md', REVIEW);
    const [c] = scanCommands(ws.workspace, commandRoots(ws.workspace, ws.dataDir)).commands;
    expect(c).toMatchObject({ name: 'review', description: 'Review a file for bugs', argumentHint: '<file> [focus]', allowedTools: ['Bash(git diff:*)', 'Read', 'Grep'], model: 'openai-compatible:fake-big' });
  });

  it("skips a workspace command that links out of the workspace, and reads ~/.claude/commands only when it is given", () => {
    ws = tempWorkspace('clamp-cmds-');
    const outside = path.join(ws.root, 'outside.md');
    fs.writeFileSync(outside, 'secret instructions');
    fs.mkdirSync(path.join(ws.workspace, '.claude', 'commands'), { recursive: true });
    fs.symlinkSync(outside, path.join(ws.workspace, '.claude', 'commands', 'leak.md'));
    const home = path.join(ws.root, 'home');
    fs.mkdirSync(path.join(home, '.claude', 'commands'), { recursive: true });
    fs.writeFileSync(path.join(home, '.claude', 'commands', 'mine.md'), 'My own command.');
    const off = scanCommands(ws.workspace, commandRoots(ws.workspace, ws.dataDir));
    expect(off.commands).toEqual([]);
    expect(off.skipped[0].reason).toBe('it leads outside the workspace (through a link)');
    const on = scanCommands(ws.workspace, commandRoots(ws.workspace, ws.dataDir, home));
    expect(on.commands.map((c) => [c.name, c.source])).toEqual([['mine', 'person']]);
  });

  it('expands $ARGUMENTS and $1…$9 as typed (quoted phrases one word; $& stays literal); without placeholders the arguments are appended', () => {
    expect(commandWords('src/a.ts "error handling" x')).toEqual(['src/a.ts', 'error handling', 'x']);
    expect(expandCommand('Review $1 and look hard at $2.\nAll: $ARGUMENTS', 'src/a.ts "error handling"')).toBe('Review src/a.ts and look hard at error handling.\nAll: src/a.ts "error handling"');
    expect(expandCommand('Fix $1 now', '$& $$')).toBe('Fix $& now');
    expect(expandCommand('Missing: [$3]', 'one')).toBe('Missing: []');
    expect(expandCommand('Write the changelog.', 'since v1.2')).toBe('Write the changelog.\n\nARGUMENTS: since v1.2');
    expect(expandCommand('Write the changelog.', '')).toBe('Write the changelog.');
  });

  it('the composer lists them after the built-ins (one named like a built-in as /cmd:<name>; a skill of the same name as /skill:<name>)', () => {
    const file = (name: string) => ({ name, description: `${name} it`, source: 'workspace' as const, path: `/w/.claude/commands/${name}.md`, body: 'x' });
    const names = allCommands([{ name: 'review', description: 'a skill' }, { name: 'notes', description: 'another' }], [file('review'), file('help')]).map((c) => c.name);
    expect(names.slice(-4)).toEqual(['review', 'cmd:help', 'skill:review', 'notes']);
  });
});

describe('MCP prompts in the composer', () => {
  it('are listed last as /mcp__<server>__<prompt> with their arguments', () => {
    const p = { command: 'mcp__everything__args_prompt', server: 'everything', prompt: 'args-prompt', description: 'A prompt with arguments', arguments: [{ name: 'city', required: true }, { name: 'state' }] };
    const c = allCommands([], [], [p]).at(-1)!;
    expect(c).toMatchObject({ name: 'mcp__everything__args_prompt', args: '<city> [state]', help: 'A prompt with arguments (MCP prompt of everything)' });
  });
});
