import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { runShutdownHooks } from '../contract/shutdown';
import { reapLeftoverGroups, setGroupJournal, startWatchdog, stopAllGroups } from '../exec/leftovers';

/**
 * The commands of a process that runs turns (the server, or a `clamp run`): the groups a crashed Clamp left running
 * on this data dir are stopped first; then this process's own are recorded there and watched. Answers how many were stopped.
 */
export async function takeOverCommands(dataDir: string): Promise<number> {
  const groupsDir = path.join(dataDir, 'running');
  const reaped = await reapLeftoverGroups(groupsDir, BUDGET.COMMAND_KILL_GRACE_MS);
  setGroupJournal(groupsDir);
  startWatchdog(groupsDir, BUDGET.COMMAND_KILL_GRACE_MS);
  return reaped;
}

/** Stop what this process started: background tasks (a shutdown hook) and foreground commands alike, each group killed and reaped. */
export async function stopEverything(): Promise<void> {
  await Promise.all([runShutdownHooks(), stopAllGroups(BUDGET.COMMAND_KILL_GRACE_MS + 3000)]);
}
