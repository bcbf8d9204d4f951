/**
 * Diagnostics after edits for the server: the on/off setting (CLAMP_DIAGNOSTICS wins over the saved
 * one), the service a session's tools get as ctx.services.diagnostics, and the settings route's logic.
 */
import type { DiagnosticsService, DiagnosticsSettingsUpdate, DiagnosticsSettingsView } from '../contract/diagnostics';
import type { Db } from '../store/db';
import { getSetting, setSetting } from '../store/settings';
import { createDiagnostics, stopLanguageServers } from '../lsp/service';

const KEY = 'diagnostics';
const ON = ['1', 'on', 'true', 'yes'];
const OFF = ['0', 'off', 'false', 'no'];

/** CLAMP_DIAGNOSTICS as a switch: undefined when unset or not a switch (the view reports the latter). */
function envSwitch(env: NodeJS.ProcessEnv): boolean | undefined {
  const v = env.CLAMP_DIAGNOSTICS?.trim().toLowerCase();
  if (!v) return undefined;
  if (ON.includes(v)) return true;
  if (OFF.includes(v)) return false;
  return undefined;
}

function saved(db: Db): boolean {
  return getSetting<{ enabled?: boolean }>(db, KEY)?.enabled ?? true;
}

/** Whether diagnostics after edits are on: CLAMP_DIAGNOSTICS when it says, else the settings page (on by default). */
export function diagnosticsEnabled(db: Db, env: NodeJS.ProcessEnv = process.env): boolean {
  return envSwitch(env) ?? saved(db);
}

/** The service for one session's tools; the setting is read at each call. */
export function diagnosticsFor(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): DiagnosticsService {
  return createDiagnostics({ workspace, dataDir, env, enabled: () => diagnosticsEnabled(db, env) });
}

/** GET /api/settings/diagnostics: on or off and why, and every language server with how it stands. */
export function diagnosticsSettingsView(db: Db, workspace: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): DiagnosticsSettingsView {
  const status = createDiagnostics({ workspace, dataDir, env, enabled: () => true }).status();
  const raw = env.CLAMP_DIAGNOSTICS?.trim();
  return {
    enabled: diagnosticsEnabled(db, env),
    saved: saved(db),
    ...(raw ? { env: raw } : {}),
    ...(raw && envSwitch(env) === undefined ? { envProblem: `CLAMP_DIAGNOSTICS=${raw} is not a switch; use 1 or 0 (on or off). The saved setting applies meanwhile.` } : {}),
    ...status,
  };
}

/** PUT /api/settings/diagnostics: save the switch; turning it off stops the workspace's language servers. */
export async function updateDiagnosticsSettings(db: Db, workspace: string, dataDir: string, body: DiagnosticsSettingsUpdate, env: NodeJS.ProcessEnv = process.env): Promise<DiagnosticsSettingsView> {
  setSetting(db, KEY, { enabled: body.enabled });
  if (!diagnosticsEnabled(db, env)) await stopLanguageServers(workspace);
  return diagnosticsSettingsView(db, workspace, dataDir, env);
}
