import { afterEach, describe, expect, it } from 'vitest';
import { budgetTable } from '../../lib/contract/budget';
import { closeDb } from '../../lib/store/db';
import { commandRoots, scanCommands } from '../../lib/tools/skills/command-files';
import { agentsPromptSection, scanAgents } from '../../lib/tools/agents/agent-files';
import { skillList } from '../../lib/server/saved';
import { tempWorkspace } from '../helpers';

/** Command and agent files under their own caps of the budget table: each cut or skip says so, in the unit named. */

let ws: ReturnType<typeof tempWorkspace>;
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

const cmd = (description: string) => `---\ndescription: ${description}\n---\nDo it.\n`;
const agent = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nYou help.\n`;

describe('the budget of command and agent files', () => {
  it('a command file past COMMAND_FILE_MAX_BYTES or COMMAND_FILES_MAX_COUNT is skipped with the reason; a long description is cut with a note', () => {
    ws = tempWorkspace('clamp-file-budgets-');
    ws.write('.claude/commands/a.md', cmd('x'.repeat(50)));
    ws.write('.claude/commands/big.md', cmd('big') + 'y'.repeat(400));
    ws.write('.claude/commands/c.md', cmd('short'));
    ws.write('.claude/commands/d.md', cmd('third'));
    const scan = scanCommands(ws.workspace, commandRoots(ws.workspace, ws.dataDir), budgetTable({ COMMAND_FILE_MAX_BYTES: 200, COMMAND_FILES_MAX_COUNT: 2, COMMAND_DESCRIPTION_MAX_BYTES: 20 }));
    expect(scan.commands.map((c) => c.name)).toEqual(['a', 'c']);
    expect(scan.commands[0].description).toBe(`${'x'.repeat(20)}… [line cut: 30 more bytes]`);
    const why = Object.fromEntries(scan.skipped.map((s) => [s.path.split('/').pop(), s.reason]));
    expect(why['big.md']).toMatch(/^4\d\d bytes, larger than 200 bytes \(COMMAND_FILE_MAX_BYTES\)$/);
    expect(why['d.md']).toBe('more than 2 commands (COMMAND_FILES_MAX_COUNT)');
  });

  it('an agent file past AGENT_FILE_MAX_BYTES or AGENT_FILES_MAX_COUNT is skipped with the reason; its description is cut with a note in the system prompt', () => {
    ws = tempWorkspace('clamp-file-budgets-');
    ws.write('.claude/agents/a.md', agent('alpha', 'd'.repeat(60)));
    ws.write('.claude/agents/b.md', agent('beta', 'second') + 'z'.repeat(400));
    ws.write('.claude/agents/c.md', agent('gamma', 'third'));
    const b = budgetTable({ AGENT_FILE_MAX_BYTES: 200, AGENT_FILES_MAX_COUNT: 1, AGENT_DESCRIPTION_MAX_BYTES: 25 });
    const scan = scanAgents(ws.workspace, ws.dataDir, b);
    expect(scan.agents.map((a) => a.name)).toEqual(['alpha']);
    expect(scan.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^4\d\d bytes, larger than 200 bytes \(AGENT_FILE_MAX_BYTES\)$/), 'more than 1 agent types (AGENT_FILES_MAX_COUNT)']);
    expect(agentsPromptSection(scan.agents, b)).toContain(`- alpha: ${'d'.repeat(25)}… [line cut: 35 more bytes]`);
  });

  it('GET /api/skills names every skipped command and agent file with why, for /help', () => {
    ws = tempWorkspace('clamp-file-budgets-');
    ws.write('.claude/commands/ok.md', cmd('fine'));
    ws.write('.claude/commands/bad name.md', cmd('bad'));
    ws.write('.claude/agents/nodesc.md', '---\nname: nodesc\n---\nYou help.\n');
    const a = skillList({ workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' });
    expect(a.commands.map((c) => c.name)).toEqual(['ok']);
    expect(a.skipped?.map((s) => [s.path.slice(ws.workspace.length + 1), s.reason])).toEqual([
      ['.claude/commands/bad name.md', 'the name "bad name" is not a command name (letters, digits, . _ -)'],
      ['.claude/agents/nodesc.md', 'no description'],
    ]);
  });
});
