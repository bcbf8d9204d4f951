import { errorResponse, json, parseJson, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { settingsView, updateSettings } from '@/lib/store/settings';
import { settingsUpdateBody } from '@/lib/contract/rest';
import type { SettingsView } from '@/lib/contract/protocol';
import { BUDGET } from '@/lib/contract/budget';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The model settings and which API keys are set (SettingsView); never the keys themselves. */
export async function GET(): Promise<Response> {
  try {
    const cfg = serverConfig();
    return json<SettingsView>(settingsView(openDb(cfg.dataDir), cfg.dataDir, cfg.mode));
  } catch (err) {
    return errorResponse(err);
  }
}

/** Save any subset of the settings and keys (SettingsUpdate; a key set to null is removed): the new SettingsView. */
export async function PUT(req: Request): Promise<Response> {
  try {
    const body = await parseJson(req, settingsUpdateBody, BUDGET.API_BODY_MAX_BYTES);
    const cfg = serverConfig();
    return json<SettingsView>(updateSettings(openDb(cfg.dataDir), cfg.dataDir, body, cfg.mode));
  } catch (err) {
    return errorResponse(err);
  }
}
