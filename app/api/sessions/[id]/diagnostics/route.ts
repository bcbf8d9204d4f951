import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { lateDiagnosticsView } from '@/lib/server/diagnostics';
import type { LateDiagnosticsAnswer } from '@/lib/contract/diagnostics';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's late diagnostics (LateDiagnosticsAnswer): reports that arrived after their calls' results, and the checks going on; 404 when unknown. */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const cfg = serverConfig();
    return json<LateDiagnosticsAnswer>(lateDiagnosticsView(openDb(cfg.dataDir), cfg.workspace, id));
  } catch (err) {
    return errorResponse(err);
  }
}
