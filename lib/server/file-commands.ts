import os from 'node:os';
import type { FileCommand } from '../contract/command-text';
import type { Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { commandRoots, scanCommands } from '../tools/skills/command-files';

/**
 * The commands from files a workspace offers the composer: its `.clamp/commands` and `.claude/commands`,
 * the data dir's `commands`, and `~/.claude/commands` once the person turned that on (a setting, default off:
 * the person's Claude Code folder is read only when they say so).
 */

const CLAUDE_USER_COMMANDS_KEY = 'commands.claudeUser';

/** Whether `~/.claude/commands` is read. */
export function claudeUserCommandsOn(db: Db): boolean {
  return getSetting<boolean>(db, CLAUDE_USER_COMMANDS_KEY) === true;
}

export function setClaudeUserCommands(db: Db, on: boolean): void {
  setSetting(db, CLAUDE_USER_COMMANDS_KEY, on);
}

/** The commands found now, in precedence order (the workspace's first); files that cannot be used are left out. */
export function fileCommands(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): FileCommand[] {
  const home = claudeUserCommandsOn(db) ? env.HOME || os.homedir() : undefined;
  return scanCommands(workspace, commandRoots(workspace, dataDir, home)).commands;
}
