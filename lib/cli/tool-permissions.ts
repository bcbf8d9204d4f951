import fs from 'node:fs';
import path from 'node:path';
import type { Approver } from '../dispatch/dispatch';
import type { ToolServices } from '../contract/types';
import { READ_GUARD_SERVICE, SANDBOX_RULES_SERVICE } from '../contract/permission-rest';
import { HOOKS_SERVICE } from '../contract/hooks';
import { claudeUserSettingsPath, personHooksPath, WORKSPACE_HOOK_FILES } from '../hooks/sources';

/**
 * The tool CLI's share of the settings files: when any of them exists, the permission rules' verdict (a Read deny
 * refuses read_file here too), the read guard for searches, and the hooks (PreToolUse can refuse a call of the CLI
 * as it refuses the model's; PostToolUse runs after it). The store is opened only then, so a tool run in a folder
 * without settings files starts as fast as before.
 */
export async function toolPermissions(workspace: string, dataDir: string): Promise<{ services: ToolServices; rule?: Approver['rule'] }> {
  const files = [personHooksPath(dataDir), claudeUserSettingsPath(), ...WORKSPACE_HOOK_FILES.map((f) => path.join(workspace, f))];
  if (!files.some((f) => fs.existsSync(f))) return { services: {} };
  const [{ openDb }, { fileRuleVerdict, readGuardFor }, { createHookService }, { sandboxRulesFor }] = await Promise.all([
    import('../store/db'),
    import('../hooks/permission-verdict'),
    import('../hooks/service'),
    import('../hooks/sandbox-rules'),
  ]);
  const db = openDb(dataDir);
  const place = { workspace, dataDir, home: workspace };
  const services = { [READ_GUARD_SERVICE]: readGuardFor(db, place), [SANDBOX_RULES_SERVICE]: sandboxRulesFor(db, place), [HOOKS_SERVICE]: createHookService({ db, workspace, dataDir }) };
  return { services, rule: (t, input, d, paths) => fileRuleVerdict(db, place, t, input, d, paths) };
}
