import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { diagnosticsSettingsView, updateDiagnosticsSettings } from '@/lib/server/diagnostics';
import { diagnosticsSettingsBody, type DiagnosticsSettingsView } from '@/lib/contract/diagnostics';
import { BUDGET } from '@/lib/contract/budget';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Diagnostics after edits: on or off (and whether CLAMP_DIAGNOSTICS decides), and the language servers' states. */
export async function GET(): Promise<Response> {
  try {
    const cfg = serverConfig();
    return json<DiagnosticsSettingsView>(diagnosticsSettingsView(openDb(cfg.dataDir), cfg.workspace, cfg.dataDir));
  } catch (err) {
    return errorResponse(err);
  }
}

/** Turn diagnostics after edits on or off ({ enabled }); off stops the running language servers. */
export async function PUT(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, diagnosticsSettingsBody, BUDGET.API_BODY_MAX_BYTES);
    const cfg = serverConfig();
    return json<DiagnosticsSettingsView>(await updateDiagnosticsSettings(openDb(cfg.dataDir), cfg.workspace, cfg.dataDir, body));
  } catch (err) {
    return errorResponse(err);
  }
}
