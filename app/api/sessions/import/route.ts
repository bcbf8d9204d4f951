import { BUDGET } from '@/lib/contract/budget';
import type { SessionAnswer } from '@/lib/contract/rest';
import { sessionExportSchema } from '@/lib/contract/session-export';
import { errorResponse, HttpError, json, parseJson, serverConfig } from '@/lib/server/http';
import { ImportError, importSession } from '@/lib/server/session-io';
import { openDb } from '@/lib/store/db';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Import a JSON export (GET /api/sessions/[id]/export) as a new session: 201 { session }. */
export async function POST(req: Request): Promise<Response> {
  try {
    const data = await parseJson(req, sessionExportSchema, BUDGET.SESSION_IMPORT_MAX_BYTES);
    const cfg = serverConfig();
    try {
      return json<SessionAnswer>({ session: importSession(openDb(cfg.dataDir), cfg.workspace, data, cfg.mode) }, 201);
    } catch (err) {
      if (err instanceof ImportError) throw new HttpError(400, err.message);
      throw err;
    }
  } catch (err) {
    return errorResponse(err);
  }
}
