import type { FileCommand } from '../contract/command-text';
import type { Db } from '../store/db';
import { claudeHome, commandRoots, scanCommands, type CommandScan } from '../tools/skills/command-files';

/**
 * The commands from files a workspace offers the composer: its `.clamp/commands` and `.claude/commands`,
 * the data dir's `commands`, and `~/.claude/commands` once the person turned that on (the settings page's
 * switch, claudeUserFilesOn, default off: the person's Claude Code folders are read only when they say so).
 */

/** The commands found now, in precedence order (the workspace's first); files that cannot be used are left out. */
export function fileCommands(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): FileCommand[] {
  return fileCommandScan(db, workspace, dataDir, env).commands;
}

/** The commands found now, and the command files skipped with why. */
export function fileCommandScan(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): CommandScan {
  return scanCommands(workspace, commandRoots(workspace, dataDir, claudeHome(db, env)));
}
