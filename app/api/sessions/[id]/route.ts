import { errorResponse, json, parseJson, routeId, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { deleteSession, updateSession } from '@/lib/store/sessions';
import { loadSessionDetail } from '@/lib/store/session-detail';
import { BUDGET } from '@/lib/contract/budget';
import { sessionPatchBody, type DeletedAnswer, type SessionAnswer } from '@/lib/contract/rest';
import type { SessionDetail } from '@/lib/contract/protocol';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/** One session with its whole conversation and pending approvals (SessionDetail); 404 when unknown. */
export async function GET(_req: Request, { params }: Params): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const cfg = serverConfig();
    return json<SessionDetail>(loadSessionDetail(openDb(cfg.dataDir), cfg.workspace, id));
  } catch (err) {
    return errorResponse(err);
  }
}

/** Rename a session and/or switch its mode ({ title?, mode? }): { session: SessionSummary }. */
export async function PATCH(req: Request, { params }: Params): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const body = await parseJson(req, sessionPatchBody, BUDGET.API_BODY_MAX_BYTES);
    const cfg = serverConfig();
    return json<SessionAnswer>({ session: updateSession(openDb(cfg.dataDir), cfg.workspace, id, body) });
  } catch (err) {
    return errorResponse(err);
  }
}

/** Delete a session with its messages, approvals and session rules: { deleted: id }; 404 when unknown. */
export async function DELETE(_req: Request, { params }: Params): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const cfg = serverConfig();
    if (!deleteSession(openDb(cfg.dataDir), cfg.workspace, id)) return json({ error: `Session ${id} not found.` }, 404);
    return json<DeletedAnswer>({ deleted: id });
  } catch (err) {
    return errorResponse(err);
  }
}
