import fs from 'node:fs';
import path from 'node:path';
import type { Approver } from '../dispatch/dispatch';
import type { ToolServices } from '../contract/types';
import { READ_GUARD_SERVICE } from '../contract/permission-rest';
import { claudeUserSettingsPath, personHooksPath, WORKSPACE_HOOK_FILES } from '../hooks/sources';

/**
 * The tool CLI's share of the settings files' permission rules: when any settings file exists, their verdict
 * (a Read deny refuses read_file here too) and the read guard for searches. The store is opened only then, so a
 * tool run in a folder without settings files starts as fast as before.
 */
export async function toolPermissions(workspace: string, dataDir: string): Promise<{ services: ToolServices; rule?: Approver['rule'] }> {
  const files = [personHooksPath(dataDir), claudeUserSettingsPath(), ...WORKSPACE_HOOK_FILES.map((f) => path.join(workspace, f))];
  if (!files.some((f) => fs.existsSync(f))) return { services: {} };
  const [{ openDb }, { fileRuleVerdict, readGuardFor }] = await Promise.all([import('../store/db'), import('../hooks/permission-verdict')]);
  const db = openDb(dataDir);
  const place = { workspace, dataDir, home: workspace };
  return { services: { [READ_GUARD_SERVICE]: readGuardFor(db, place) }, rule: (t, input, d, paths) => fileRuleVerdict(db, place, t, input, d, paths) };
}
