import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { ledgerOfSession } from '@/lib/server/context';
import type { SessionLedger } from '@/lib/contract/protocol';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's ledger (SessionLedger): every step, oldest first, and the totals; 404 when unknown. */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    return json<SessionLedger>(ledgerOfSession(serverConfig(), id));
  } catch (err) {
    return errorResponse(err);
  }
}
